/**
 * A 64-bit hash of a state's bytes, in two 32-bit halves that mix with each other every block (the
 * two-lane shape of MurmurHash3's x86 128-bit variant), so the halves are one 64-bit hash rather than two
 * independent 32-bit ones. The result is left in `hashed` to avoid allocating per state.
 */
const C1 = 0x239b961b;
const C2 = 0xab0e9789;
const C3 = 0x38b34ae5;

/**
 * The last hash: `[high half, low half]`. A typed array, because a module variable holding a number past
 * 2^31 is a fresh heap number on every store, and the store then went through the write barrier.
 */
export const hashed = new Uint32Array(2);

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** Hashes `bytes[start, end)`; the result is in `hashed`. */
export function hash64(bytes: Uint8Array, start: number, end: number): void {
  const b = bytes;
  const len = end - start;
  let h1 = 0x9747b28c ^ len;
  let h2 = 0x5bd1e995 ^ len;
  let i = start;
  // Whole 8-byte blocks, then the last partial block (zero-padded, the second word 0 when it is past the end).
  // The tail (in `finish`) repeats the block mix rather than sharing it: one loop testing for the tail in
  // every block, or a mix function over shared state, made hashing about 15 % slower.
  const whole = end - 7;
  for (; i < whole; i += 8) {
    let k1 = b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24);
    let k2 = b[i + 4]! | (b[i + 5]! << 8) | (b[i + 6]! << 16) | (b[i + 7]! << 24);
    k1 = Math.imul(k1, C1);
    k1 = (k1 << 15) | (k1 >>> 17);
    k1 = Math.imul(k1, C2);
    h1 ^= k1;
    h1 = (h1 << 19) | (h1 >>> 13);
    h1 = (h1 + h2) | 0;
    h1 = (Math.imul(h1, 5) + 0x561ccd1b) | 0;
    k2 = Math.imul(k2, C2);
    k2 = (k2 << 16) | (k2 >>> 16);
    k2 = Math.imul(k2, C3);
    h2 ^= k2;
    h2 = (h2 << 17) | (h2 >>> 15);
    h2 = (h2 + h1) | 0;
    h2 = (Math.imul(h2, 5) + 0x0bcaa747) | 0;
  }
  finish(b, i, end, h1, h2);
}


/**
 * `hash64Aligned(words, bytes, start, end)`: `hash64(bytes, start, end)` for a `start` on a 32-bit word,
 * reading whole blocks from `words` (an Int32Array over the same memory as `bytes`, from its start): the
 * same result with a quarter of the loads. Little-endian machines only (see `LITTLE_ENDIAN`), where a word
 * is its four bytes read as `hash64` reads them.
 */
export function hash64Aligned(words: Int32Array, bytes: Uint8Array, start: number, end: number): void {
  const len = end - start;
  let h1 = 0x9747b28c ^ len;
  let h2 = 0x5bd1e995 ^ len;
  let i = start;
  const whole = end - 7;
  for (; i < whole; i += 8) {
    let k1 = words[i >> 2]!;
    let k2 = words[(i >> 2) + 1]!;
    k1 = Math.imul(k1, C1);
    k1 = (k1 << 15) | (k1 >>> 17);
    k1 = Math.imul(k1, C2);
    h1 ^= k1;
    h1 = (h1 << 19) | (h1 >>> 13);
    h1 = (h1 + h2) | 0;
    h1 = (Math.imul(h1, 5) + 0x561ccd1b) | 0;
    k2 = Math.imul(k2, C2);
    k2 = (k2 << 16) | (k2 >>> 16);
    k2 = Math.imul(k2, C3);
    h2 ^= k2;
    h2 = (h2 << 17) | (h2 >>> 15);
    h2 = (h2 + h1) | 0;
    h2 = (Math.imul(h2, 5) + 0x0bcaa747) | 0;
  }
  finish(bytes, i, end, h1, h2);
}

/** Whether this machine stores the low byte of a word first (what `hash64Aligned` needs). */
export { LITTLE_ENDIAN } from '../../../spec/layout/bytes.ts';

/** The last partial block of `b[i, end)` (zero-padded), then the final mix; leaves the result in `hashed`. */
function finish(b: Uint8Array, i: number, end: number, h1: number, h2: number): void {
  if (i < end) {
    let k1 = 0;
    let k2 = 0;
    // Read by the number of bytes left, not in a loop testing the end at every byte (half the time of a
    // 31-byte state's hash).
    switch (end - i) {
      case 7:
        k2 |= b[i + 6]! << 16;
      // falls through
      case 6:
        k2 |= b[i + 5]! << 8;
      // falls through
      case 5:
        k2 |= b[i + 4]!;
      // falls through
      case 4:
        k1 |= b[i + 3]! << 24;
      // falls through
      case 3:
        k1 |= b[i + 2]! << 16;
      // falls through
      case 2:
        k1 |= b[i + 1]! << 8;
      // falls through
      default:
        k1 |= b[i]!;
    }
    k1 = Math.imul(k1, C1);
    k1 = (k1 << 15) | (k1 >>> 17);
    k1 = Math.imul(k1, C2);
    h1 ^= k1;
    h1 = (h1 << 19) | (h1 >>> 13);
    h1 = (h1 + h2) | 0;
    h1 = (Math.imul(h1, 5) + 0x561ccd1b) | 0;
    k2 = Math.imul(k2, C2);
    k2 = (k2 << 16) | (k2 >>> 16);
    k2 = Math.imul(k2, C3);
    h2 ^= k2;
    h2 = (h2 << 17) | (h2 >>> 15);
    h2 = (h2 + h1) | 0;
    h2 = (Math.imul(h2, 5) + 0x0bcaa747) | 0;
  }
  h1 = (h1 + h2) | 0;
  h2 = (h2 + h1) | 0;
  h1 = fmix(h1);
  h2 = fmix(h2);
  h1 = (h1 + h2) | 0;
  h2 = (h2 + h1) | 0;
  hashed[0] = h1;
  hashed[1] = h2;
}
