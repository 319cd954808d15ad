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

// States are small and made by the million: carving them out of shared slabs avoids one ArrayBuffer
// (a separately allocated and finalized backing store) per state. Slabs are never reused, so fresh
// bytes are zero; a slab lives as long as any value carved from it.
const SLAB_BYTES = 1 << 16;
let slab = new ArrayBuffer(SLAB_BYTES);
let slabUsed = 0;

/** `w` zero bytes of their own. */
export function allocBytes(w: number): Uint8Array {
  if (w > SLAB_BYTES >>> 4) return new Uint8Array(w);
  if (slabUsed + w > SLAB_BYTES) {
    slab = new ArrayBuffer(SLAB_BYTES);
    slabUsed = 0;
  }
  const b = new Uint8Array(slab, slabUsed, w);
  slabUsed += w;
  return b;
}

/** A copy of `w` bytes at `src[o]` in bytes of their own. */
export function copyBytes(src: Uint8Array, o: number, w: number): Uint8Array {
  const b = allocBytes(w);
  if (w <= 64) for (let i = 0; i < w; i++) b[i] = src[o + i]!;
  else b.set(src.subarray(o, o + w));
  return b;
}
