/**
 * Fingerprints with the id of the state each belongs to: open addressing over one typed array, 12 bytes
 * a slot, at most three quarters full and grown by half (16–24 bytes a state, as `FingerprintSet` is
 * 10.7–16). Depth-first search needs the id (to compare the depth a state was reached at), an owner the
 * place of each candidate for its next level; the seen sets (breadth-first search in one process, the
 * states an owner holds) need only membership and use the smaller `FingerprintSet`.
 */
import { zeroedSharedWords } from './zeroedSharedWords.ts';
import { slotOf } from './slotOf.ts';

const STRIDE = 3; // hi, lo, id + 1 (0 = empty)
const MAX_LOAD = 0.75;

export class FingerprintIndex {
  private slots: Uint32Array;
  /** Slots in the table (not a power of two: the table grows by half). */
  private slotCount: number;
  private limit: number;
  size = 0;

  constructor(initialCapacity = 1 << 16) {
    this.slotCount = Math.max(16, Math.ceil(initialCapacity / MAX_LOAD));
    this.slots = allocate(this.slotCount);
    this.limit = Math.floor(this.slotCount * MAX_LOAD);
  }

  get capacity(): number {
    return this.slotCount;
  }

  get bytes(): number {
    return this.slots.byteLength;
  }

  /** Adds the fingerprint with `id` and returns -1, or returns the id it already had. */
  insert(hi: number, lo: number, id: number): number {
    const slots = this.slots;
    const cap = this.slotCount;
    let i = slotOf(hi, lo, cap);
    for (;;) {
      const at = i * STRIDE;
      const stored = slots[at + 2]!;
      if (stored === 0) {
        slots[at] = hi;
        slots[at + 1] = lo;
        slots[at + 2] = id + 1;
        if (++this.size > this.limit) this.grow();
        return -1;
      }
      if (slots[at] === hi && slots[at + 1] === lo) return stored - 1;
      if (++i === cap) i = 0;
    }
  }

  /** Empties the index, keeping its capacity. */
  clear(): void {
    this.slots.fill(0);
    this.size = 0;
  }

  /** The id stored with the fingerprint, or -1. */
  get(hi: number, lo: number): number {
    return lookup(this.slots, this.slotCount, hi, lo);
  }

  private grow(): void {
    const old = this.slots;
    // Grown by half, not doubled: at 10^8 states a doubling would strand hundreds of megabytes.
    const cap = Math.ceil(this.slotCount * 1.5);
    const slots = allocate(cap);
    for (let j = 0; j < old.length; j += STRIDE) {
      if (old[j + 2] === 0) continue;
      let i = slotOf(old[j]!, old[j + 1]!, cap);
      while (slots[i * STRIDE + 2] !== 0) if (++i === cap) i = 0;
      slots[i * STRIDE] = old[j]!;
      slots[i * STRIDE + 1] = old[j + 1]!;
      slots[i * STRIDE + 2] = old[j + 2]!;
    }
    this.slots = slots;
    this.slotCount = cap;
    this.limit = Math.floor(cap * MAX_LOAD);
  }
}

function allocate(capacity: number): Uint32Array {
  return zeroedSharedWords(capacity * STRIDE);
}

function lookup(slots: Uint32Array, cap: number, hi: number, lo: number): number {
  let i = slotOf(hi, lo, cap);
  for (;;) {
    const at = i * STRIDE;
    const stored = slots[at + 2]!;
    if (stored === 0) return -1;
    if (slots[at] === hi && slots[at + 1] === lo) return stored - 1;
    if (++i === cap) i = 0;
  }
}
