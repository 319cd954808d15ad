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

// DataViews of the last few buffers asked for (a step's copy in the slab, the state it was made from, a
// memo's key pool), replaced in turn.
const dvBytes: (Uint8Array | null)[] = [null, null, null, null];
const dvs: (DataView | null)[] = [null, null, null, null];
let dvNext = 0;

/** A DataView over `b`'s bytes (offsets as in `b`). */
export function dataViewOf(b: Uint8Array): DataView {
  for (let i = 0; i < 4; i++) if (dvBytes[i] === b) return dvs[i]!;
  const d = new DataView(b.buffer, b.byteOffset, b.byteLength);
  dvBytes[dvNext] = b;
  dvs[dvNext] = d;
  dvNext = (dvNext + 1) & 3;
  return d;
}

/**
 * `equalBytes` for wider regions at any alignment: four bytes a compare (through DataViews; a region
 * off a word of its buffer cannot be read as words), about three times as fast from 16 bytes on.
 */
export function equalWide(a: Uint8Array, ao: number, b: Uint8Array, bo: number, w: number): boolean {
  if (w < 16) return equalBytes(a, ao, b, bo, w);
  const da = dataViewOf(a);
  const db = dataViewOf(b);
  let i = 0;
  for (; i + 4 <= w; i += 4) if (da.getInt32(ao + i) !== db.getInt32(bo + i)) return false;
  for (; i < w; i++) if (a[ao + i] !== b[bo + i]) return false;
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
// are never reused, so fresh bytes are zero; a slab lives as long as any view of it. Regions start on a
// multiple of 4, so a copy into the slab can go a 32-bit word at a time (see `copyInto`).
// Slabs of 32 KB, below the C allocator's threshold for memory of their own from the system: a slab
// whose views are gone is freed into the allocator and its memory serves a later slab, where a slab of
// 256 KB came as fresh pages, faulted in by the first copy written to each (a KRaft step's copy then cost
// about twice as much).
const SLAB_BYTES = 1 << 15;

/** The slab fresh regions are carved from, and its words (`reserve` may replace it: read `arena.b` after calling it). */
const firstSlab = new Uint8Array(SLAB_BYTES);
export const arena = { b: new Uint8Array(0), w: new Int32Array(0), used: 0 };
// Its slab is set by a write, not in the literal: compiled code takes a field of a module's object that
// was never written for a constant, and the first slab to fill then sent every function that read it
// back to be compiled again.
arena.b = firstSlab;
arena.w = new Int32Array(firstSlab.buffer);

/** Offset in `arena.b` of `w` fresh zero bytes, a multiple of 4. */
export function reserve(w: number): number {
  let at = arena.used;
  if (at + w > arena.b.length) {
    const b = new Uint8Array(Math.max(SLAB_BYTES, (w + 3) & ~3));
    arena.b = b;
    arena.w = new Int32Array(b.buffer);
    at = 0;
  }
  arena.used = (at + w + 3) & ~3;
  return at;
}

/** `w` zero bytes of their own (a buffer of exactly that length, for values kept apart). */
export function allocBytes(w: number): Uint8Array {
  return new Uint8Array(w);
}

/** Whether this machine stores a word's low byte first: only there are a region's words its bytes read four at a time, low first. */
export const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

// The words of the last few buffers other than the slab asked for, or null for one that does not start
// on a word. A search asks for several in turn, each once per successor: the frontier chunk of the state
// being expanded (copied for each successor), the slabs just left behind (where its successors lie), a
// VIEW's scratch (hashed for each), the chunk the next level is written to; with one remembered, each
// request made a new Int32Array. Replaced oldest first.
const WORDS_KEPT = 4;
const wordsBytes: (Uint8Array | null)[] = new Array<Uint8Array | null>(WORDS_KEPT).fill(null);
const wordsViews: (Int32Array | null)[] = new Array<Int32Array | null>(WORDS_KEPT).fill(null);
let wordsNext = 0;

/** The 32-bit words of `b` (an Int32Array over its memory, from its start), or null when `b` does not start on a word. */
export function wordsOf(b: Uint8Array): Int32Array | null {
  if (b === arena.b) return arena.w;
  for (let i = 0; i < WORDS_KEPT; i++) if (wordsBytes[i] === b) return wordsViews[i]!;
  const words = (b.byteOffset & 3) === 0 ? new Int32Array(b.buffer, b.byteOffset, b.length >> 2) : null;
  wordsBytes[wordsNext] = b;
  wordsViews[wordsNext] = words;
  wordsNext = wordsNext === WORDS_KEPT - 1 ? 0 : wordsNext + 1;
  return words;
}

/**
 * A fresh slab region holding a copy of `src[so, so + w)`: its offset in `arena.b`. The region's padding
 * up to the next word is its own, so a last partial word is copied whole when the source has one.
 */
export function copyToSlab(src: Uint8Array, so: number, w: number): number {
  const d = reserve(w);
  const whole = (w + 3) & ~3;
  copyInto(src, so, arena.b, d, so + whole <= src.length ? whole : w);
  return d;
}

/**
 * Copies `w` bytes from `src[so]` to `dst[d]` through the words of both (`sw`, `dw`), both offsets on a
 * word: a word at a time, the last partial word by bytes.
 */
export function copyByWords(src: Uint8Array, sw: Int32Array, so: number, dst: Uint8Array, dw: Int32Array, d: number, w: number): void {
  const n = w >> 2;
  const a = so >> 2;
  const b = d >> 2;
  for (let i = 0; i < n; i++) dw[b + i] = sw[a + i]!;
  for (let i = n << 2; i < w; i++) dst[d + i] = src[so + i]!;
}

/**
 * Copies a state's `w` bytes from `src[so]` to `dst[d]` (`dw`: `dst`'s words). A successor lies on a word
 * of the layout's slab and is copied a word at a time, with no subarray made; any other by `copyInto`.
 */
export function copyState(src: Uint8Array, so: number, dst: Uint8Array, dw: Int32Array, d: number, w: number): void {
  const sw = ((so | d) & 3) === 0 ? wordsOf(src) : null;
  if (sw !== null) copyByWords(src, sw, so, dst, dw, d, w);
  else copyInto(src, so, dst, d, w);
}

/** Copies `w` bytes from `src[so]` to `dst[d]` (short regions by a loop: no subarray is made). */
export function copyInto(src: Uint8Array, so: number, dst: Uint8Array, d: number, w: number): void {
  // A write's copy of a small region into the slab, both ends on a word: a word at a time, a quarter of
  // the loads and stores (each bounds-checked) of a byte loop, and no subarray.
  if (dst === arena.b && w >= 8 && w <= WORD_COPY_MAX && ((so | d) & 3) === 0) {
    const sw = wordsOf(src);
    if (sw !== null) {
      copyByWords(src, sw, so, dst, arena.w, d, w);
      return;
    }
  }
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
    dst.set(regionOf(src, so, w), d);
  }
}

// The region last copied whole and its subarray: a state is copied once for each of its successors,
// and a subarray made per copy was most of what a step allocated.
let regionSource: Uint8Array = new Uint8Array(0);
let regionStart = 0;
let regionBytes: Uint8Array = regionSource;

/** `src.subarray(so, so + w)`, the same one while the same region is asked for. */
function regionOf(src: Uint8Array, so: number, w: number): Uint8Array {
  if (src !== regionSource || so !== regionStart || regionBytes.length !== w) {
    regionSource = src;
    regionStart = so;
    regionBytes = src.subarray(so, so + w);
  }
  return regionBytes;
}

/**
 * Widest region copied by words; wider ones (a whole state) go through `set`, whose block copy is faster
 * from about 128 bytes on into memory not yet in the cache, as a fresh slab region is (512 bytes: about
 * 110 ns against 330 by words).
 */
const WORD_COPY_MAX = 96;
