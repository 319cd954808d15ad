/**
 * Fingerprints with the id of the state each belongs to: open addressing over one typed array, 12 bytes
 * a slot, doubling when half full. Depth-first search needs the id (to compare the depth a state was
 * reached at); breadth-first search needs only membership and uses the smaller `FingerprintSet`.
 */
import { zeroedSharedWords } from './zeroedSharedWords.ts';

const STRIDE = 3; // hi, lo, id + 1 (0 = empty)

export class FingerprintIndex {
  private slots: Uint32Array;
  private mask: number;
  size = 0;

  constructor(initialCapacity = 1 << 16) {
    let cap = 1 << 4;
    while (cap < initialCapacity * 2) cap *= 2;
    this.slots = allocate(cap);
    this.mask = cap - 1;
  }

  get capacity(): number {
    return this.mask + 1;
  }

  get bytes(): number {
    return this.slots.byteLength;
  }

  /** The underlying buffer, for a worker thread's read-only `SeenSetView`. */
  get buffer(): SharedArrayBuffer {
    return this.slots.buffer as SharedArrayBuffer;
  }

  /** Adds the fingerprint with `id` and returns -1, or returns the id it already had. */
  insert(hi: number, lo: number, id: number): number {
    const slots = this.slots;
    let i = slotOf(hi, lo, this.mask);
    for (;;) {
      const at = i * STRIDE;
      const stored = slots[at + 2]!;
      if (stored === 0) {
        slots[at] = hi;
        slots[at + 1] = lo;
        slots[at + 2] = id + 1;
        if (++this.size * 2 > this.capacity) this.grow();
        return -1;
      }
      if (slots[at] === hi && slots[at + 1] === lo) return stored - 1;
      i = (i + 1) & this.mask;
    }
  }

  /** Calls `each` with every fingerprint and its id, in no particular order. */
  forEach(each: (hi: number, lo: number, id: number) => void): void {
    const slots = this.slots;
    for (let at = 0; at < slots.length; at += STRIDE) if (slots[at + 2] !== 0) each(slots[at]!, slots[at + 1]!, slots[at + 2]! - 1);
  }

  /** Empties the index, keeping its capacity. */
  clear(): void {
    this.slots.fill(0);
    this.size = 0;
  }

  /** The id stored with the fingerprint, or -1. */
  get(hi: number, lo: number): number {
    return lookup(this.slots, this.mask, hi, lo);
  }

  private grow(): void {
    const old = this.slots;
    const cap = this.capacity * 2;
    const slots = allocate(cap);
    const mask = cap - 1;
    for (let j = 0; j < old.length; j += STRIDE) {
      if (old[j + 2] === 0) continue;
      let i = slotOf(old[j]!, old[j + 1]!, mask);
      while (slots[i * STRIDE + 2] !== 0) i = (i + 1) & mask;
      slots.set(old.subarray(j, j + STRIDE), i * STRIDE);
    }
    this.slots = slots;
    this.mask = mask;
  }
}

/** Another thread's read-only view of an index, valid while no insertion runs (its buffer from `buffer`). */
export class FingerprintIndexView {
  private readonly slots: Uint32Array;
  private readonly mask: number;
  constructor(buffer: SharedArrayBuffer) {
    this.slots = new Uint32Array(buffer);
    this.mask = this.slots.length / STRIDE - 1;
  }
  has(hi: number, lo: number): boolean {
    return lookup(this.slots, this.mask, hi, lo) >= 0;
  }
}

function allocate(capacity: number): Uint32Array {
  return zeroedSharedWords(capacity * STRIDE);
}

function slotOf(hi: number, lo: number, mask: number): number {
  return (lo ^ Math.imul(hi, 0x9e3779b1)) & mask;
}

function lookup(slots: Uint32Array, mask: number, hi: number, lo: number): number {
  let i = slotOf(hi, lo, mask);
  for (;;) {
    const at = i * STRIDE;
    const stored = slots[at + 2]!;
    if (stored === 0) return -1;
    if (slots[at] === hi && slots[at + 1] === lo) return stored - 1;
    i = (i + 1) & mask;
  }
}
