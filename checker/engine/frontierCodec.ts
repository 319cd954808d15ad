/**
 * The byte code of a frontier chunk: each state is stored as its difference from the state stored
 * before it (the first state of a chunk against zeros), written as runs of unchanged bytes and runs of
 * new bytes. States of one BFS level come in discovery order, mostly siblings of one parent that differ
 * in a few fields, so a KRaft state of 509 bytes takes a few dozen; a chunk decodes alone, front to back.
 *
 * One control byte starts each run:
 * - 0..126: the next c+1 bytes are unchanged;
 * - 127 (REST): every remaining byte of the state is unchanged (the state ends);
 * - 128..255: the next c-127 bytes (1..128) are new and follow the control byte.
 * A state ends when its width is covered, so an unchanged tail costs one byte.
 */

/**
 * States narrower than this are kept and sent as they are: they cost little raw (TwoPhase's 31 bytes), and
 * on a model that fast the encoding would be a few percent of each step.
 */
export const ENCODE_FROM_WIDTH = 128;

const MAX_SAME = 127;
const REST = 127;
const MAX_NEW = 128;

/** The most bytes one state of width `w` can take: a control byte per 128 new bytes, plus the bytes. */
export function maxEncodedWidth(w: number): number {
  return w + Math.ceil(w / MAX_NEW);
}

/**
 * Writes `cur[co .. co+w)` as its difference from `prev[po .. po+w)` into `out` at `oo` (which must have
 * room for `maxEncodedWidth(w)` bytes), and updates `prev` to equal `cur` (only the changed bytes are
 * written, so the next state is encoded against it without a copy); returns the bytes written.
 */
export function encodeState(prev: Uint8Array, po: number, cur: Uint8Array, co: number, w: number, out: Uint8Array, oo: number): number {
  const start = oo;
  let i = 0;
  while (i < w) {
    if (cur[co + i] === prev[po + i]) {
      const j = sameUntil(prev, po, cur, co, i + 1, w);
      if (j === w) {
        out[oo++] = REST;
        return oo - start;
      }
      oo = writeSame(out, oo, j - i);
      i = j;
    } else {
      const j = newUntil(prev, po, cur, co, i, w);
      oo = writeNew(out, oo, prev, po, cur, co, i, j);
      i = j;
    }
  }
  return oo - start;
}

/** Writes the control bytes of `n` unchanged bytes; returns the offset after them. */
function writeSame(out: Uint8Array, oo: number, n: number): number {
  while (n > MAX_SAME) {
    out[oo++] = MAX_SAME - 1;
    n -= MAX_SAME;
  }
  out[oo++] = n - 1;
  return oo;
}

/** The end of a run of new bytes from `i`: the next two unchanged bytes in a row (one unchanged byte costs no more kept as new). */
function newUntil(prev: Uint8Array, po: number, cur: Uint8Array, co: number, i: number, w: number): number {
  let j = i + 1;
  while (j < w && j - i < MAX_NEW && (cur[co + j] !== prev[po + j] || (j + 1 < w && cur[co + j + 1] !== prev[po + j + 1]))) j++;
  return j;
}

/** Writes the new bytes `cur[i .. j)` after their control byte, and copies them into `prev`; returns the offset after them. */
function writeNew(out: Uint8Array, oo: number, prev: Uint8Array, po: number, cur: Uint8Array, co: number, i: number, j: number): number {
  out[oo++] = 127 + (j - i);
  for (let k = i; k < j; k++) out[oo++] = prev[po + k] = cur[co + k]!;
  return oo;
}

/** The first index from `i` on where the two states differ, or `w`. */
function sameUntil(prev: Uint8Array, po: number, cur: Uint8Array, co: number, i: number, w: number): number {
  while (i < w && cur[co + i] === prev[po + i]) i++;
  return i;
}

/**
 * `encodeState` for two states held at offset 0 of buffers padded with zeros to a multiple of 4 bytes
 * (`prev32`, `cur32` their word views): unchanged stretches are skipped a word at a time.
 */
export function encodeAligned(prev: Uint8Array, prev32: Uint32Array, cur: Uint8Array, cur32: Uint32Array, w: number, out: Uint8Array, oo: number): number {
  const start = oo;
  let i = 0;
  while (i < w) {
    if (cur[i] === prev[i]) {
      let j = i + 1;
      while ((j & 3) !== 0 && j < w && cur[j] === prev[j]) j++;
      if ((j & 3) === 0) {
        let q = j >>> 2;
        const words = prev32.length;
        while (q < words && cur32[q] === prev32[q]) q++;
        j = q << 2;
        while (j < w && cur[j] === prev[j]) j++;
      }
      if (j >= w) {
        out[oo++] = REST;
        return oo - start;
      }
      oo = writeSame(out, oo, j - i);
      i = j;
    } else {
      const j = newUntil(prev, 0, cur, 0, i, w);
      oo = writeNew(out, oo, prev, 0, cur, 0, i, j);
      i = j;
    }
  }
  return oo - start;
}

/**
 * Applies one encoded state at `code[ci]` to `into[io .. io+w)`, which holds the state stored before it
 * (zeros for the first); returns the offset in `code` after it.
 */
export function decodeState(code: Uint8Array, ci: number, into: Uint8Array, io: number, w: number): number {
  let i = 0;
  while (i < w) {
    const c = code[ci++]!;
    if (c < REST) i += c + 1;
    else if (c === REST) i = w;
    else {
      const n = c - 127;
      for (let k = 0; k < n; k++) into[io + i + k] = code[ci + k]!;
      ci += n;
      i += n;
    }
  }
  if (i !== w) throw new Error(`frontier code overruns a state of ${w} bytes`);
  return ci;
}
