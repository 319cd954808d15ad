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

const MAX_SAME = 127;
const REST = 127;
const MAX_NEW = 128;

/** The most bytes one state of width `w` can take: a control byte per 128 new bytes, plus the bytes. */
export function maxEncodedWidth(w: number): number {
  return w + Math.ceil(w / MAX_NEW);
}

/**
 * Writes `cur[co .. co+w)` as its difference from `prev[po .. po+w)` into `out` at `oo` (which must have
 * room for `maxEncodedWidth(w)` bytes); returns the bytes written.
 */
export function encodeState(prev: Uint8Array, po: number, cur: Uint8Array, co: number, w: number, out: Uint8Array, oo: number): number {
  const start = oo;
  let i = 0;
  while (i < w) {
    if (cur[co + i] === prev[po + i]) {
      let j = i + 1;
      while (j < w && cur[co + j] === prev[po + j]) j++;
      if (j === w) {
        out[oo++] = REST;
        return oo - start;
      }
      let n = j - i;
      while (n > MAX_SAME) {
        out[oo++] = MAX_SAME - 1;
        n -= MAX_SAME;
      }
      out[oo++] = n - 1;
      i = j;
    } else {
      // New bytes up to the next two unchanged ones in a row (one unchanged byte costs no more kept as new).
      let j = i + 1;
      while (j < w && j - i < MAX_NEW && (cur[co + j] !== prev[po + j] || (j + 1 < w && cur[co + j + 1] !== prev[po + j + 1]))) j++;
      out[oo++] = 127 + (j - i);
      for (let k = i; k < j; k++) out[oo++] = cur[co + k]!;
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
