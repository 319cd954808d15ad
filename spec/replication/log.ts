/** Pure helpers on replica logs (lists of `Entry`, offset = index). */
import type { Entry, Log } from './state.ts';

const same = (a: Entry, b: Entry): boolean => a.epoch === b.epoch && a.value === b.value;

/**
 * Length of the longest prefix two logs agree on. Entries with the same offset and epoch are the same
 * record (one leader per epoch), so this is where KIP-101/279 epoch-based truncation lands a follower:
 * the OffsetsForLeaderEpoch exchange repeats until both sides agree on the epoch at the fetch offset.
 */
export function commonPrefix(a: Log, b: Log): number {
  const n = Math.min(a.size, b.size);
  let i = 0;
  while (i < n && same(a.get(i)!, b.get(i)!)) i++;
  return i;
}

export function isPrefixOf(a: Log, b: Log): boolean {
  return a.size <= b.size && commonPrefix(a, b) === a.size;
}

/** Whether the log holds a record with this value, at any offset. */
export function holdsValue(log: Log, value: number): boolean {
  return log.some((e) => e.value === value);
}

/** Whether `log` has exactly `entry` at `offset`. */
export function hasEntryAt(log: Log, offset: number, entry: Entry): boolean {
  const e = log.get(offset);
  return e !== undefined && same(e, entry);
}

/** The epoch of the last record, 0 for an empty log (`LeaderEpochFileCache.latestEpoch`). */
export function lastEpoch(log: Log): number {
  return log.size === 0 ? 0 : log.get(log.size - 1)!.epoch;
}

/**
 * The leader epoch start offset: the first offset of `epoch`, or the log end when the leader has not
 * appended in it yet (it then starts at the end it had when elected, and has appended nothing since).
 */
export function epochStartOffset(log: Log, epoch: number): number {
  const i = log.findIndex((e) => e.epoch === epoch);
  return i < 0 ? log.size : i;
}
