/**
 * The fields that belong to the cluster rather than to a topic partition: each broker's running flag and
 * clean-shutdown file, the broker sets (fenced, in controlled shutdown, cut off) and the fault counters.
 * Steps read them from the state's bytes (places.ts) and write them through paths built once, so a step
 * makes no view to read or change them (in place on a `withMutations` copy, hence the returned state).
 */
import type { Key } from '../layout/index.ts';
import { idsOf, MAX_BROKERS } from './ids.ts';
import { type FaultPlaces, placesOf } from './places.ts';
import type { ReplicationState } from './state.ts';

type S = ReplicationState;
export type BrokerFlag = 'running' | 'cleanShutdownFile';
export type BrokerSetField = 'fenced' | 'shuttingDown' | 'cut';
export type FaultCounter = keyof FaultPlaces;

const BROKER_PATHS: readonly Readonly<Record<BrokerFlag, readonly Key[]>>[] = Array.from({ length: MAX_BROKERS }, (_, b) => ({
  running: ['brokers', b, 'running'],
  cleanShutdownFile: ['brokers', b, 'cleanShutdownFile'],
}));

const FAULT_PATHS = new Map<FaultCounter, readonly Key[]>();
const faultPath = (f: FaultCounter): readonly Key[] => {
  let p = FAULT_PATHS.get(f);
  if (p === undefined) FAULT_PATHS.set(f, (p = ['faults', f]));
  return p;
};

/** Whether broker `b`'s flag is set. */
export function brokerFlag(s: S, b: number, flag: BrokerFlag): boolean {
  const P = placesOf(s);
  return s._b[s._o + (flag === 'running' ? P.running[b]! : P.cleanShutdownFile[b]!)] !== 0;
}

export function setBrokerFlag(s: S, b: number, flag: BrokerFlag, v: boolean): S {
  return s.setIn(BROKER_PATHS[b]![flag], v);
}

/** A set of brokers, as a mask. */
export function brokerMask(s: S, field: BrokerSetField): number {
  return s._b[s._o + placesOf(s)[field]]!;
}

/** Writes a set of brokers given as a mask (only when it changes). */
export function setBrokerMask(s: S, field: BrokerSetField, mask: number): S {
  return brokerMask(s, field) === mask ? s : s.set(field, idsOf(mask));
}

export function faultCount(s: S, f: FaultCounter): number {
  return s._b[s._o + placesOf(s).faults[f]]!;
}

/** Spends `n` more of a fault budget (a counter beyond its bound is a layout error naming it). */
export function spendFault(s: S, f: FaultCounter, n = 1): S {
  return n === 0 ? s : s.setIn(faultPath(f), faultCount(s, f) + n);
}
