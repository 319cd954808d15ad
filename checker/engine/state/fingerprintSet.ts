/**
 * The fingerprints of every state seen so far (TLC's FPSet): open addressing over one typed array of
 * 8-byte slots (the 64-bit fingerprint alone), at most three quarters full and grown by half, so it costs
 * 10.7–16 bytes a state. Fingerprint 0 marks an empty slot; a state whose fingerprint is 0 is stored as 1
 * (one more collision in 2^64). The buffer is shared so owner threads can probe another's table read-only
 * while its owner is not inserting (between levels).
 *
 * In front of the table sits a cache of fingerprints recently added or found there
 * (recentFingerprints.ts), so most lookups never reach the table. It holds only fingerprints that are in
 * the table: it changes how fast a state is found, never whether.
 */
import { RecentFingerprints } from './recentFingerprints.ts';
import { zeroedSharedWords } from './zeroedSharedWords.ts';
import { slotOf } from './slotOf.ts';

const MAX_LOAD = 0.75;

export class FingerprintSet {
  private slots: Uint32Array;
  private capacity: number;
  private limit: number;
  size = 0;
  /** What `touch` read, kept so the reads are not optimized away. */
  private touched = 0;
  private recent: RecentFingerprints;

  constructor(initialCapacity = 1 << 16) {
    this.capacity = Math.max(16, Math.ceil(initialCapacity / MAX_LOAD));
    this.slots = allocate(this.capacity);
    this.limit = Math.floor(this.capacity * MAX_LOAD);
    this.recent = new RecentFingerprints(initialCapacity);
  }

  get bytes(): number {
    return this.slots.byteLength + this.recent.bytes;
  }

  get buffer(): SharedArrayBuffer {
    return this.slots.buffer as SharedArrayBuffer;
  }

  /** Adds the fingerprint; true when it was not there before. */
  add(hi: number, lo: number): boolean {
    if (hi === 0 && lo === 0) lo = 1;
    if (this.recent.has(hi, lo)) return false;
    this.recent.remember(hi, lo);
    const slots = this.slots;
    const cap = this.capacity;
    let i = slotOf(hi, lo, cap);
    for (;;) {
      const h = slots[2 * i]!;
      const l = slots[2 * i + 1]!;
      if (h === 0 && l === 0) {
        slots[2 * i] = hi;
        slots[2 * i + 1] = lo;
        if (++this.size > this.limit) this.grow();
        return true;
      }
      if (h === hi && l === lo) return false;
      if (++i === cap) i = 0;
    }
  }

  /**
   * True when the fingerprint is known to be in the set without a trip to the table (it is in the recent
   * cache). Otherwise reads the slot where its probe starts, to bring it into the CPU's cache ahead of
   * `add`: lookups of several fingerprints touched one after another wait for memory together.
   */
  touch(hi: number, lo: number): boolean {
    if (hi === 0 && lo === 0) lo = 1;
    if (this.recent.has(hi, lo)) return true;
    this.touched ^= this.slots[2 * slotOf(hi, lo, this.capacity)]!;
    return false;
  }

  has(hi: number, lo: number): boolean {
    return probe(this.slots, this.capacity, hi, lo);
  }

  /** Forgets every fingerprint, keeping the table's capacity (a worker's per-level set, reused). */
  clear(): void {
    if (this.size === 0) return;
    this.slots.fill(0);
    this.recent.clear();
    this.size = 0;
  }

  /** The table as it is, for a checkpoint. */
  get rawSlots(): Uint32Array {
    return this.slots;
  }

  /** A set from a checkpoint's slots and size. */
  static fromSlots(slots: Uint32Array, size: number): FingerprintSet {
    const set = new FingerprintSet(16);
    const shared = allocate(slots.length / 2);
    shared.set(slots);
    set.slots = shared;
    set.capacity = slots.length / 2;
    set.limit = Math.floor(set.capacity * MAX_LOAD);
    set.size = size;
    set.recent = new RecentFingerprints(size);
    return set;
  }

  private grow(): void {
    const old = this.slots;
    const cap = Math.ceil(this.capacity * 1.5);
    const slots = allocate(cap);
    for (let j = 0; j < old.length; j += 2) {
      const hi = old[j]!;
      const lo = old[j + 1]!;
      if (hi === 0 && lo === 0) continue;
      let i = slotOf(hi, lo, cap);
      while (slots[2 * i] !== 0 || slots[2 * i + 1] !== 0) if (++i === cap) i = 0;
      slots[2 * i] = hi;
      slots[2 * i + 1] = lo;
    }
    this.slots = slots;
    this.capacity = cap;
    this.limit = Math.floor(cap * MAX_LOAD);
  }
}

function allocate(capacity: number): Uint32Array {
  return zeroedSharedWords(capacity * 2);
}

function probe(slots: Uint32Array, cap: number, hi: number, lo: number): boolean {
  if (hi === 0 && lo === 0) lo = 1;
  let i = slotOf(hi, lo, cap);
  for (;;) {
    const h = slots[2 * i]!;
    const l = slots[2 * i + 1]!;
    if (h === 0 && l === 0) return false;
    if (h === hi && l === lo) return true;
    if (++i === cap) i = 0;
  }
}

/** A worker thread's read-only view of the set, valid while no insertion runs. */
export class FingerprintSetView {
  private readonly slots: Uint32Array;
  private readonly capacity: number;
  constructor(buffer: SharedArrayBuffer) {
    this.slots = new Uint32Array(buffer);
    this.capacity = this.slots.length / 2;
  }
  private touched = 0;
  has(hi: number, lo: number): boolean {
    return probe(this.slots, this.capacity, hi, lo);
  }
  /** As FingerprintSet.touch: starts the trip to memory for a lookup made soon after. */
  touch(hi: number, lo: number): void {
    this.touched ^= this.slots[2 * slotOf(hi, lo, this.capacity)]!;
  }
}
