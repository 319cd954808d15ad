/**
 * Successors on their way to their owner, in batches of about BATCH_BYTES: per successor its fingerprint,
 * its key (parent rank, index among the parent's successors), its step, its parent's fingerprint and its
 * bytes. One message per batch keeps the cost per message (a NATS publish and acknowledgement) off the
 * cost per state.
 */

import { copyState } from '../../../spec/layout/bytes.ts';

/** Words before a state's bytes: hi, lo, parent rank, index, step, parent hi, parent lo. */
export const HEADER_WORDS = 7;

/** A batch is sent once it holds this many bytes. */
export const BATCH_BYTES = 256 * 1024;

export class CandidateBatch {
  private bytes = new Uint8Array(BATCH_BYTES + 4096);
  private words = new Uint32Array(this.bytes.buffer);
  private signedWords = new Int32Array(this.bytes.buffer);
  /** Bytes used. */
  length = 0;
  readonly stride: number;

  constructor(readonly width: number) {
    this.stride = HEADER_WORDS * 4 + ((width + 3) & ~3);
  }

  get full(): boolean {
    return this.length >= BATCH_BYTES;
  }

  push(hi: number, lo: number, parentRank: number, index: number, step: number, parentHi: number, parentLo: number, state: Uint8Array, at: number): void {
    if (this.length + this.stride > this.bytes.length) this.grow();
    const w = this.length >> 2;
    const words = this.words;
    words[w] = hi;
    words[w + 1] = lo;
    words[w + 2] = parentRank;
    words[w + 3] = index;
    words[w + 4] = step;
    words[w + 5] = parentHi;
    words[w + 6] = parentLo;
    copyState(state, at, this.bytes, this.signedWords, this.length + HEADER_WORDS * 4, this.width);
    this.length += this.stride;
  }

  /** The batch's bytes (a copy, so the batch can be refilled at once), and the batch emptied. */
  take(): Uint8Array {
    const out = this.bytes.slice(0, this.length);
    this.length = 0;
    return out;
  }

  private grow(): void {
    const bigger = new Uint8Array(this.bytes.length * 2);
    bigger.set(this.bytes.subarray(0, this.length));
    this.bytes = bigger;
    this.words = new Uint32Array(bigger.buffer);
    this.signedWords = new Int32Array(bigger.buffer);
  }
}

/** Reads a batch's successors in order (the batch's bytes must start on a 4-byte boundary: they are copied if not). */
export function readBatch(
  batch: Uint8Array,
  width: number,
  each: (hi: number, lo: number, parentRank: number, index: number, step: number, parentHi: number, parentLo: number, bytes: Uint8Array, at: number) => void,
): number {
  // (A Node.js Buffer's slice is a view: the copy is made by the constructor.)
  const b = (batch.byteOffset & 3) === 0 ? batch : new Uint8Array(batch);
  const words = new Uint32Array(b.buffer, b.byteOffset, b.length >> 2);
  const stride = HEADER_WORDS * 4 + ((width + 3) & ~3);
  let n = 0;
  for (let o = 0; o + stride <= b.length; o += stride, n++) {
    const w = o >> 2;
    each(words[w]!, words[w + 1]!, words[w + 2]!, words[w + 3]!, words[w + 4]!, words[w + 5]!, words[w + 6]!, b, o + HEADER_WORDS * 4);
  }
  return n;
}
