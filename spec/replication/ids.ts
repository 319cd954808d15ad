/**
 * Sets of broker ids as bit masks: the model computes on masks (set algebra is bit arithmetic), and the
 * state holds them as `L.idSet`s over the broker ids 0..rf-1, whose `bits` are the same masks.
 */
import type { BrokerSet } from './state.ts';

export const MAX_BROKERS = 5;

// The ids of every mask, interned: writing a set into the state takes its members.
const IDS: readonly (readonly number[])[] = Array.from({ length: 1 << MAX_BROKERS }, (_, mask) =>
  Array.from({ length: MAX_BROKERS }, (_, b) => b).filter((b) => (mask >> b) & 1),
);

/** The bit mask of a set of broker ids held in the state. */
export function maskOf(set: BrokerSet): number {
  return set.bits;
}

export const bit = (b: number): number => 1 << b;
export const inMask = (mask: number, b: number): boolean => ((mask >> b) & 1) === 1;

export function countOf(mask: number): number {
  let n = 0;
  for (let m = mask; m !== 0; m &= m - 1) n++;
  return n;
}

/** The ids in `mask`, ascending (one shared array per mask: do not modify it). */
export function idsOf(mask: number): readonly number[] {
  return IDS[mask]!;
}

/** The mask of some broker ids. */
export function maskOfIds(ids: Iterable<number>): number {
  let mask = 0;
  for (const b of ids) mask |= bit(b);
  return mask;
}

/** `LeaderConstants.NO_LEADER`. */
export const NO_LEADER = -1;
