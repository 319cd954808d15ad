/**
 * The writes of a step, made in the state's bytes. Every step writes into one fresh copy of the state's
 * bytes (`writeStep`, actions.ts); while it runs, the rules write their fields' codes into that copy at
 * the places where they read them (places.ts) instead of making a view for each write. A rule given any
 * other state (a test's, a diagram's) writes into a copy of it (`inCopy`), so what it returns is the
 * same either way.
 *
 * The codes are the layout's (an int's code is its value minus its minimum, a boolean's 0 or 1, an id
 * set's its bit mask, a log its length then its entries, unused entries zero), so the bytes written are
 * those the layout would write. A counter pushed past its bound, or a log past its length, is written
 * through the layout instead, which reports the error naming the field.
 */
import { arena, copyInto, copyToSlab, writeCode } from '../layout/bytes.ts';
import type { Key } from '../layout/index.ts';
import type { LogShape, PartitionPlaces } from './places.ts';
import type { ReplicationState } from './state.ts';

type S = ReplicationState;

/** The copy the step in progress writes, or null. */
let stepping: S | null = null;

/**
 * The successor of `before` by `step`: a fresh copy of its bytes that `step` writes in place, then the
 * state itself (no other view of those bytes exists until it is returned). `step` is made once per action.
 */
export function writeStep<P>(before: S, p: P, step: (m: S, p: P, before: S) => unknown): S {
  const m = ownCopy(before);
  const outer = stepping;
  stepping = m;
  try {
    step(m, p, before);
  } finally {
    stepping = outer;
  }
  return m;
}

/** Whether `s` is the copy the step in progress writes (else a rule writes into a copy of it). */
export function writesInPlace(s: S): boolean {
  return s === stepping;
}

/** `write` run on a copy of `s`, in place: the new state (a rule called outside a step, as tests do). */
export function inCopy(s: S, write: (m: S) => unknown): S {
  return writeStep(s, undefined, (m) => write(m));
}

// A step's copy is a fresh region of the layout's slab, as the layout's own writes are: a step
// allocates no buffer of its own, and the copy moves whole words.
function ownCopy(s: S): S {
  const t = s._t;
  const at = copyToSlab(s._b, s._o, t.width);
  return t.read(arena.b, at, null, '') as S;
}

/** Writes a one-byte code (a flag, a broker mask, a leader code, an offset below its bound) at `at`. */
export function putByte(s: S, at: number, code: number): void {
  s._b[s._o + at] = code;
}

/**
 * Writes the value of a bounded counter of `width` bytes; past `max`, the layout's write reports it at
 * `pathOf(field)` (the path is only built then).
 */
export function putBounded<F>(s: S, at: number, width: number, value: number, max: number, pathOf: (field: F) => readonly Key[], field: F): void {
  if (value < 0 || value > max) s.setIn(pathOf(field), value);
  else if (width === 1) s._b[s._o + at] = value;
  else writeCode(s._b, s._o + at, width, value);
}

/**
 * Makes the log at `dst` the first `n` entries of the log at `src` (both in `s`; the same log truncates
 * it), its unused entries zero.
 */
export function putLogPrefix(s: S, dst: number, src: number, n: number, shape: LogShape): void {
  const b = s._b;
  const d = s._o + dst;
  const { lw, ew } = shape;
  if (src !== dst) copyInto(b, s._o + src + lw, b, d + lw, n * ew);
  if (lw === 1) b[d] = n;
  else writeCode(b, d, lw, n);
  zero(b, d + lw + n * ew, d + lw + shape.max * ew);
}

/** Zeroes `b[from, to)`: a few bytes, for which a loop costs less than a call of `fill`. */
function zero(b: Uint8Array, from: number, to: number): void {
  for (let i = from; i < to; i++) b[i] = 0;
}

/** Appends an entry (leader epoch, value) to the log at `log`; false when the log is full (nothing written). */
export function appendEntry(s: S, log: number, epoch: number, value: number, shape: LogShape): boolean {
  const b = s._b;
  const at = s._o + log;
  const { lw, ew } = shape;
  const n = lw === 1 ? b[at]! : readLength(b, at, lw);
  if (n >= shape.max) return false;
  const e = at + lw + n * ew;
  if (shape.epochWidth === 1) b[e + shape.epoch] = epoch;
  else writeCode(b, e + shape.epoch, shape.epochWidth, epoch);
  b[e + shape.value] = value;
  if (lw === 1) b[at] = n + 1;
  else writeCode(b, at, lw, n + 1);
  return true;
}

function readLength(b: Uint8Array, at: number, lw: number): number {
  return lw === 2 ? (b[at]! << 8) | b[at + 1]! : ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;
}

/** Copies the registration at `from` over the one at `to` (a cut-off broker keeping the controller's record). */
export function copyRegistration(s: S, from: PartitionPlaces, to: PartitionPlaces): void {
  copyInto(s._b, s._o + from.at, s._b, s._o + to.at, from.width);
}

/** Sets a broker's stale registration: present, a copy of `from`. */
export function putView(s: S, view: number, from: PartitionPlaces, to: PartitionPlaces): void {
  s._b[s._o + view] = 1;
  copyRegistration(s, from, to);
}

/** Clears a broker's stale registration (it acts on the controller's again): absent, all zero. */
export function clearView(s: S, view: number, to: PartitionPlaces): void {
  zero(s._b, s._o + view, s._o + to.at + to.width);
}
