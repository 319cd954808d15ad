/**
 * The fields that belong to the cluster rather than to a topic partition: each broker's running flag and
 * clean-shutdown file, the broker sets (fenced, in controlled shutdown, cut off) and the fault counters.
 * Steps read and write them in the state's bytes (places.ts, writes.ts), so a step makes no view to read
 * or change them (in place on the step's `withMutations` copy, else on a copy: hence the returned state).
 */
import type { Key } from '../layout/index.ts';
import { MAX_BROKERS } from './ids.ts';
import { type FaultPlaces, type Places, placesOf } from './places.ts';
import type { ReplicationState } from './state.ts';
import { inCopy, putBounded, putByte, writesInPlace } from './writes.ts';

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
  if (!writesInPlace(s)) return inCopy(s, (m) => setBrokerFlag(m, b, flag, v));
  const P = placesOf(s);
  if (b >= P.brokers) return s.setIn(BROKER_PATHS[b]![flag], v);
  putByte(s, flag === 'running' ? P.running[b]! : P.cleanShutdownFile[b]!, v ? 1 : 0);
  return s;
}

// Each field's place is picked by name below rather than looked up as `places[field]`: a lookup by a name
// that varies from call to call is a generic (megamorphic) property load, and these run in every step.

/** Where a set of brokers lies. */
function brokerSetAt(P: Places, field: BrokerSetField): number {
  return field === 'fenced' ? P.fenced : field === 'cut' ? P.cut : P.shuttingDown;
}

/** A set of brokers, as a mask. */
export function brokerMask(s: S, field: BrokerSetField): number {
  return s._b[s._o + brokerSetAt(placesOf(s), field)]!;
}

/** Writes a set of brokers given as a mask (of the brokers there are). */
export function setBrokerMask(s: S, field: BrokerSetField, mask: number): S {
  if (!writesInPlace(s)) return inCopy(s, (m) => setBrokerMask(m, field, mask));
  putByte(s, brokerSetAt(placesOf(s), field), mask);
  return s;
}

/** Where a fault counter lies (or its bound, given `P.max.faults`). */
function faultAt(f: FaultPlaces, c: FaultCounter): number {
  switch (c) {
    case 'uncleanShutdowns':
      return f.uncleanShutdowns;
    case 'dataLossShutdowns':
      return f.dataLossShutdowns;
    case 'cleanShutdowns':
      return f.cleanShutdowns;
    case 'emptyDisks':
      return f.emptyDisks;
    case 'partitions':
      return f.partitions;
    case 'isolations':
      return f.isolations;
    case 'isrShrinks':
      return f.isrShrinks;
  }
}

export function faultCount(s: S, f: FaultCounter): number {
  return s._b[s._o + faultAt(placesOf(s).faults, f)]!;
}

/** Spends `n` more of a fault budget (a counter beyond its bound is a layout error naming it). */
export function spendFault(s: S, f: FaultCounter, n = 1): S {
  if (n === 0) return s;
  if (!writesInPlace(s)) return inCopy(s, (m) => spendFault(m, f, n));
  const P = placesOf(s);
  const at = faultAt(P.faults, f);
  putBounded(s, at, 1, s._b[s._o + at]! + n, faultAt(P.max.faults, f), faultPath, f);
  return s;
}
