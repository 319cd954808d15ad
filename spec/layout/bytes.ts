/** Byte-level helpers of the packed encoding: big-endian codes (so byte order is numeric order), compare, hash. */

/** Bytes needed for codes 0..count-1. */
export function codeWidth(count: number): 1 | 2 | 4 {
  return count <= 0x100 ? 1 : count <= 0x10000 ? 2 : 4;
}

export function readCode(b: Uint8Array, o: number, w: number): number {
  if (w === 1) return b[o]!;
  if (w === 2) return (b[o]! << 8) | b[o + 1]!;
  return ((b[o]! << 24) | (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!) >>> 0;
}

export function writeCode(b: Uint8Array, o: number, w: number, c: number): void {
  if (w === 1) b[o] = c;
  else if (w === 2) {
    b[o] = c >>> 8;
    b[o + 1] = c;
  } else {
    b[o] = c >>> 24;
    b[o + 1] = c >>> 16;
    b[o + 2] = c >>> 8;
    b[o + 3] = c;
  }
}

/** Lexicographic comparison of two regions of `w` bytes: the canonical order of set and bag elements. */
export function compareBytes(a: Uint8Array, ao: number, b: Uint8Array, bo: number, w: number): number {
  for (let i = 0; i < w; i++) {
    const d = a[ao + i]! - b[bo + i]!;
    if (d !== 0) return d;
  }
  return 0;
}

export function equalBytes(a: Uint8Array, ao: number, b: Uint8Array, bo: number, w: number): boolean {
  for (let i = 0; i < w; i++) if (a[ao + i] !== b[bo + i]) return false;
  return true;
}

/** Immutable.js-style 31-bit hash of a region (for `hashCode`, so views can live in Immutable collections). */
export function hashRegion(b: Uint8Array, o: number, w: number): number {
  let h = 0x811c9dc5 ^ w;
  for (let i = 0; i < w; i++) h = Math.imul(h ^ b[o + i]!, 0x01000193);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  return h | 0;
}

// States are small and made by the million: a write carves its copy out of a shared slab and the new
// view reads it at an offset, so a write allocates no typed array and no ArrayBuffer of its own. Slabs
// are never reused, so fresh bytes are zero; a slab lives as long as any view of it.
const SLAB_BYTES = 1 << 18;

/** The slab fresh regions are carved from (`reserve` may replace it: read `arena.b` after calling it). */
export const arena = { b: new Uint8Array(SLAB_BYTES), used: 0 };

/** Offset in `arena.b` of `w` fresh zero bytes. */
export function reserve(w: number): number {
  let at = arena.used;
  if (at + w > arena.b.length) {
    arena.b = new Uint8Array(Math.max(SLAB_BYTES, w));
    at = 0;
  }
  arena.used = at + w;
  return at;
}

/** `w` zero bytes of their own (a buffer of exactly that length, for values kept apart). */
export function allocBytes(w: number): Uint8Array {
  return new Uint8Array(w);
}

/** Copies `w` bytes from `src[so]` to `dst[d]` (short regions by a loop: no subarray is made). */
export function copyInto(src: Uint8Array, so: number, dst: Uint8Array, d: number, w: number): void {
  if (w <= 64) {
    // Four bytes a turn: a state is copied for every successor, and the loop's own cost was most of it.
    let i = 0;
    for (; i + 4 <= w; i += 4) {
      dst[d + i] = src[so + i]!;
      dst[d + i + 1] = src[so + i + 1]!;
      dst[d + i + 2] = src[so + i + 2]!;
      dst[d + i + 3] = src[so + i + 3]!;
    }
    for (; i < w; i++) dst[d + i] = src[so + i]!;
  } else if (src === dst) {
    dst.copyWithin(d, so, so + w);
  } else {
    dst.set(src.subarray(so, so + w), d);
  }
}
