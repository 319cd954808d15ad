/**
 * Sets of broker ids, interned: one Immutable `Set` instance per subset of 0..MAX_BROKERS-1. States keep
 * readable sets, while the model computes on bit masks: set algebra is bit arithmetic, equality is `===`,
 * and each set is fingerprinted once for the whole run.
 */
import { Set } from 'immutable';

export const MAX_BROKERS = 5;

const SETS: readonly Set<number>[] = Array.from({ length: 1 << MAX_BROKERS }, (_, mask) =>
  Set(Array.from({ length: MAX_BROKERS }, (_, b) => b).filter((b) => (mask >> b) & 1)),
);
const MASKS = new Map<Set<number>, number>(SETS.map((s, mask) => [s, mask]));

/** The interned set of the ids in `mask`. */
export function idSet(mask: number): Set<number> {
  return SETS[mask]!;
}

/** The bit mask of a set of ids (any instance, interned or not). */
export function maskOf(set: Set<number>): number {
  const m = MASKS.get(set);
  if (m !== undefined) return m;
  let mask = 0;
  set.forEach((b) => {
    mask |= 1 << b;
  });
  return mask;
}

export const bit = (b: number): number => 1 << b;
export const inMask = (mask: number, b: number): boolean => ((mask >> b) & 1) === 1;

export function countOf(mask: number): number {
  let n = 0;
  for (let m = mask; m !== 0; m &= m - 1) n++;
  return n;
}

/** The ids in `mask`, ascending. */
export function idsOf(mask: number): number[] {
  const out: number[] = [];
  for (let b = 0; b < MAX_BROKERS; b++) if (inMask(mask, b)) out.push(b);
  return out;
}
