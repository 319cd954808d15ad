/**
 * Pure helpers on replica logs (lists of `Entry`, offset = index).
 *
 * Comparisons run on each log's entries coded as numbers, decoded once per List instance: successor
 * states share their logs with their parents, so most logs are decoded once for the whole run.
 */
import type { Entry, Log } from './state.ts';

const CODES = new WeakMap<Log, readonly number[]>();
const VALUE_BITS = 8;

/** An entry as one number: epoch and value (values stay below 2^8). */
export const codeOf = (e: Entry): number => (e.epoch << VALUE_BITS) | e.value;

function codes(log: Log): readonly number[] {
  let c = CODES.get(log);
  if (c === undefined) {
    c = log.toArray().map(codeOf);
    CODES.set(log, c);
  }
  return c;
}

/**
 * Length of the longest prefix two logs agree on. Entries with the same offset and epoch are the same
 * record (one leader per epoch), so this is where KIP-101/279 epoch-based truncation lands a follower:
 * the OffsetsForLeaderEpoch exchange repeats until both sides agree on the epoch at the fetch offset.
 */
export function commonPrefix(a: Log, b: Log): number {
  if (a === b) return a.size;
  const x = codes(a);
  const y = codes(b);
  const n = Math.min(x.length, y.length);
  let i = 0;
  while (i < n && x[i] === y[i]) i++;
  return i;
}

export function isPrefixOf(a: Log, b: Log): boolean {
  return a.size <= b.size && commonPrefix(a, b) === a.size;
}

/** Whether the log holds a record with this value, at any offset. */
export function holdsValue(log: Log, value: number): boolean {
  const c = codes(log);
  for (let i = 0; i < c.length; i++) if ((c[i]! & ((1 << VALUE_BITS) - 1)) === value) return true;
  return false;
}

/** Whether `log` has exactly `entry` at `offset`. */
export function hasEntryAt(log: Log, offset: number, entry: Entry): boolean {
  return codes(log)[offset] === codeOf(entry);
}

/** The epoch of the last record, 0 for an empty log (`LeaderEpochFileCache.latestEpoch`). */
export function lastEpoch(log: Log): number {
  const c = codes(log);
  return c.length === 0 ? 0 : c[c.length - 1]! >> VALUE_BITS;
}

/**
 * The leader epoch start offset: the first offset of `epoch`, or the log end when the leader has not
 * appended in it yet (it then starts at the end it had when elected, and has appended nothing since).
 */
export function epochStartOffset(log: Log, epoch: number): number {
  const c = codes(log);
  for (let i = 0; i < c.length; i++) if (c[i]! >> VALUE_BITS === epoch) return i;
  return c.length;
}
