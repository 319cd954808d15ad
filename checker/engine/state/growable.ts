/**
 * Append-only typed arrays that double when full, for streams built before their size is known (the
 * liveness graph, a worker's reports). An owner's records, kept to the end of a search, go to disk
 * instead (wordFile.ts).
 */
import { copyState } from '../../../spec/layout/bytes.ts';

export class GrowableU32 {
  private data = new Uint32Array(1024);
  length = 0;

  get bytes(): number {
    return this.data.byteLength;
  }

  push(x: number): void {
    if (this.length === this.data.length) {
      const bigger = new Uint32Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = x;
  }

  /** Overwrites an element already pushed (a record's header, filled in once its body is known). */
  set(i: number, x: number): void {
    this.data[i] = x;
  }

  /** The filled part, without copying. */
  view(): Uint32Array {
    return this.data.subarray(0, this.length);
  }

  /** The filled part as its own buffer, to transfer to another thread. */
  take(): Uint32Array {
    return this.data.slice(0, this.length);
  }

  /** Empties it, keeping its capacity (a worker reuses one for every chunk). */
  clear(): void {
    this.length = 0;
  }
}

export class GrowableBytes {
  private data = new Uint8Array(1 << 16);
  private words = new Int32Array(this.data.buffer);
  length = 0;

  /**
   * Appends a state: `w` bytes of `b` from offset `o`, then zeros up to `stride`, a multiple of 4 (states
   * a word apart). A word at a time when `o` is on one of `b`'s words, as a view's region in the slab is.
   */
  pushState(b: Uint8Array, o: number, w: number, stride: number): void {
    if (this.length + stride > this.data.length) {
      let size = this.data.length * 2;
      while (size < this.length + stride) size *= 2;
      const bigger = new Uint8Array(size);
      bigger.set(this.data.subarray(0, this.length));
      this.data = bigger;
      this.words = new Int32Array(bigger.buffer);
    }
    const d = this.length;
    const data = this.data;
    copyState(b, o, data, this.words, d, w);
    for (let i = w; i < stride; i++) data[d + i] = 0;
    this.length = d + stride;
  }

  /** The filled part as its own buffer, to transfer to another thread. */
  take(): Uint8Array {
    return this.data.slice(0, this.length);
  }

  /** Empties it, keeping its capacity. */
  clear(): void {
    this.length = 0;
  }
}

export class GrowableI32 {
  private data = new Int32Array(1024);
  length = 0;

  get bytes(): number {
    return this.data.byteLength;
  }

  push(x: number): void {
    if (this.length === this.data.length) {
      const bigger = new Int32Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = x;
  }

  view(): Int32Array {
    return this.data.subarray(0, this.length);
  }
}

/** One bit per state, growing with the graph. */
export class GrowableBits {
  private words = new Uint32Array(64);

  get bytes(): number {
    return this.words.byteLength;
  }

  set(i: number, on: boolean): void {
    const w = i >>> 5;
    if (w >= this.words.length) {
      const bigger = new Uint32Array(Math.max(this.words.length * 2, w + 1));
      bigger.set(this.words);
      this.words = bigger;
    }
    if (on) this.words[w]! |= 1 << (i & 31);
    else this.words[w]! &= ~(1 << (i & 31));
  }

  has(i: number): boolean {
    const w = i >>> 5;
    return w < this.words.length && (this.words[w]! & (1 << (i & 31))) !== 0;
  }
}
