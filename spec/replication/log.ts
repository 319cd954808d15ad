/**
 * Pure helpers on replica logs (lists of `Entry`, offset = index).
 *
 * Two entries are the same record exactly when their packed bytes are (epoch and value), so comparisons
 * read the logs' bytes in place, entry by entry, without decoding them.
 */
import { readCode } from '../layout/bytes.ts';
import type { LogShape } from './places.ts';
import type { Entry, Log } from './state.ts';

/** Whether entry `i` of `a` and entry `j` of `b` hold the same bytes. */
function sameEntry(a: Log, i: number, b: Log, j: number): boolean {
  const { lw, ew } = a._t;
  const ab = a._b;
  const bb = b._b;
  const ao = a._o + lw + i * ew;
  const bo = b._o + lw + j * ew;
  for (let k = 0; k < ew; k++) if (ab[ao + k] !== bb[bo + k]) return false;
  return true;
}

/**
 * Length of the longest prefix two logs agree on. Entries with the same offset and epoch are the same
 * record (one leader per epoch), so this is where KIP-101/279 epoch-based truncation lands a follower:
 * the OffsetsForLeaderEpoch exchange repeats until both sides agree on the epoch at the fetch offset.
 */
export function commonPrefix(a: Log, b: Log): number {
  const n = Math.min(a.size, b.size);
  let i = 0;
  while (i < n && sameEntry(a, i, b, i)) i++;
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
  if (offset >= log.size) return false;
  const { lw, ew } = log._t;
  const at = log._o + lw + offset * ew;
  for (let k = 0; k < ew; k++) if (log._b[at + k] !== entry._b[entry._o + k]) return false;
  return true;
}

/** The epoch of the last record, 0 for an empty log (`LeaderEpochFileCache.latestEpoch`). */
export function lastEpoch(log: Log): number {
  const n = log.size;
  return n === 0 ? 0 : log.get(n - 1)!.epoch;
}

/**
 * The leader epoch start offset: the first offset of `epoch`, or the log end when the leader has not
 * appended in it yet (it then starts at the end it had when elected, and has appended nothing since).
 */
export function epochStartOffset(log: Log, epoch: number): number {
  const n = log.size;
  for (let i = 0; i < n; i++) if (log.get(i)!.epoch === epoch) return i;
  return n;
}

// The same comparisons on logs lying in one state's bytes, at absolute offsets (see places.ts).

/** The length of the log at `at`. */
export function sizeAt(b: Uint8Array, at: number, shape: LogShape): number {
  return shape.lw === 1 ? b[at]! : readCode(b, at, shape.lw);
}

/** Whether entry `i` of the log at `x` and entry `j` of the log at `y` (both in `b`) hold the same bytes. */
export function sameEntryAt(b: Uint8Array, x: number, i: number, y: number, j: number, shape: LogShape): boolean {
  const { lw, ew } = shape;
  const xo = x + lw + i * ew;
  const yo = y + lw + j * ew;
  for (let k = 0; k < ew; k++) if (b[xo + k] !== b[yo + k]) return false;
  return true;
}

/** `commonPrefix` of the logs at `x` and `y` of the same bytes. */
export function commonPrefixAt(b: Uint8Array, x: number, y: number, shape: LogShape): number {
  const n = Math.min(sizeAt(b, x, shape), sizeAt(b, y, shape));
  let i = 0;
  while (i < n && sameEntryAt(b, x, i, y, i, shape)) i++;
  return i;
}

/** Whether the log at `at` holds a record with this value, at any offset. */
export function holdsValueAt(b: Uint8Array, at: number, value: number, shape: LogShape): boolean {
  const n = sizeAt(b, at, shape);
  const first = at + shape.lw + shape.value;
  for (let i = 0; i < n; i++) if (b[first + i * shape.ew] === value) return true;
  return false;
}

/** The epoch (code) of entry `i` of the log at `at`. */
export function epochAt(b: Uint8Array, at: number, i: number, shape: LogShape): number {
  const o = at + shape.lw + i * shape.ew + shape.epoch;
  return shape.epochWidth === 1 ? b[o]! : readCode(b, o, shape.epochWidth);
}

/** The value of entry `i` of the log at `at`. */
export function valueAt(b: Uint8Array, at: number, i: number, shape: LogShape): number {
  return b[at + shape.lw + i * shape.ew + shape.value]!;
}

/** `isPrefixOf` of the logs at `x` and `y` of the same bytes. */
export function isPrefixAt(b: Uint8Array, x: number, y: number, shape: LogShape): boolean {
  const n = sizeAt(b, x, shape);
  return n <= sizeAt(b, y, shape) && commonPrefixAt(b, x, y, shape) === n;
}

/** `epochStartOffset` of the log at `at` (`epoch` as its code). */
export function epochStartOffsetAt(b: Uint8Array, at: number, epoch: number, shape: LogShape): number {
  const n = sizeAt(b, at, shape);
  for (let i = 0; i < n; i++) if (epochAt(b, at, i, shape) === epoch) return i;
  return n;
}
