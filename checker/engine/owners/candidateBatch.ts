/**
 * Successors on their way to their owner, in batches of about BATCH_BYTES: per successor its fingerprint,
 * its key (parent rank, index among the parent's successors), its step, its parent's fingerprint and its
 * bytes. One message per batch keeps the cost per message (a NATS publish and acknowledgement) off the
 * cost per state.
 *
 * A state of ENCODE_FROM_WIDTH bytes or more travels as its difference from the one before it in the batch
 * (frontierCodec.ts; the first against zeros): a batch's successors come in the order their sender made
 * them, mostly siblings of one parent, so a KRaft state of 509 bytes takes a few dozen on the wire.
 */

import { copyState } from '../../../spec/layout/bytes.ts';
import { decodeState, ENCODE_FROM_WIDTH, encodeAligned, maxEncodedWidth } from '../frontierCodec.ts';

/** Words before a state's bytes: hi, lo, parent rank, index, step, parent hi, parent lo. */
export const HEADER_WORDS = 7;
const HEADER_BYTES = HEADER_WORDS * 4;

/** A batch is sent once it holds this many bytes. */
export const BATCH_BYTES = 256 * 1024;

/** Whether states of this width travel encoded (both ends decide it from the layout's width alone). */
function encodes(width: number): boolean {
  return width >= ENCODE_FROM_WIDTH;
}

const toWord = (n: number) => (n + 3) & ~3;

/** The bytes a batch starts with: an owner keeps one batch per owner, so `--owners 100` makes 10,000. */
const FIRST_BYTES = 4096;

export class CandidateBatch {
  // Grown as successors come, up to BATCH_BYTES and one successor's room: a batch for an owner this one
  // rarely sends to stays small (each once took BATCH_BYTES from the start: 2.6 GB with --owners 100).
  private bytes = new Uint8Array(FIRST_BYTES);
  private words = new Uint32Array(this.bytes.buffer);
  private signedWords = new Int32Array(this.bytes.buffer);
  /** Bytes used. */
  length = 0;
  private readonly encoded: boolean;
  /** The most one successor can take: its header and its bytes, raw or encoded, to the next word. */
  private readonly room: number;
  /** The state pushed last (zeros at a batch's start) and the one being pushed, a word apart from the next, with their words. */
  private readonly prev: Uint8Array;
  private readonly prev32: Uint32Array;
  private readonly cur: Uint8Array;
  private readonly cur32: Uint32Array;
  private readonly curWords: Int32Array;

  constructor(readonly width: number) {
    this.encoded = encodes(width);
    this.room = HEADER_BYTES + toWord(this.encoded ? maxEncodedWidth(width) : width);
    this.prev = new Uint8Array(toWord(width));
    this.prev32 = new Uint32Array(this.prev.buffer);
    this.cur = new Uint8Array(toWord(width));
    this.cur32 = new Uint32Array(this.cur.buffer);
    this.curWords = new Int32Array(this.cur.buffer);
  }

  get full(): boolean {
    return this.length >= BATCH_BYTES;
  }

  push(hi: number, lo: number, parentRank: number, index: number, step: number, parentHi: number, parentLo: number, state: Uint8Array, at: number): void {
    if (this.length + this.room > this.bytes.length) this.grow();
    const w = this.length >> 2;
    const words = this.words;
    words[w] = hi;
    words[w + 1] = lo;
    words[w + 2] = parentRank;
    words[w + 3] = index;
    words[w + 4] = step;
    words[w + 5] = parentHi;
    words[w + 6] = parentLo;
    const body = this.length + HEADER_BYTES;
    if (!this.encoded) {
      copyState(state, at, this.bytes, this.signedWords, body, this.width);
      this.length = body + toWord(this.width);
      return;
    }
    copyState(state, at, this.cur, this.curWords, 0, this.width);
    this.length = body + toWord(encodeAligned(this.prev, this.prev32, this.cur, this.cur32, this.width, this.bytes, body));
  }

  /** Memory the batch's buffer takes (its room, not only what it holds). */
  get capacityBytes(): number {
    return this.bytes.byteLength;
  }

  /** The batch's bytes (a copy, so the batch can be refilled at once), and the batch emptied. */
  take(): Uint8Array {
    const out = this.bytes.slice(0, this.length);
    this.length = 0;
    this.prev.fill(0);
    return out;
  }

  private grow(): void {
    const bigger = new Uint8Array(Math.max(this.length + this.room, Math.min(this.bytes.length * 2, toWord(BATCH_BYTES + this.room))));
    bigger.set(this.bytes.subarray(0, this.length));
    this.bytes = bigger;
    this.words = new Uint32Array(bigger.buffer);
    this.signedWords = new Int32Array(bigger.buffer);
  }
}

/**
 * Reads a batch's successors in order (the batch's bytes must start on a 4-byte boundary: they are copied
 * if not). A successor's bytes are valid during its call only: an encoded one is decoded over the one before.
 */
export function readBatch(
  batch: Uint8Array,
  width: number,
  each: (hi: number, lo: number, parentRank: number, index: number, step: number, parentHi: number, parentLo: number, bytes: Uint8Array, at: number) => void,
): number {
  // (A Node.js Buffer's slice is a view: the copy is made by the constructor.)
  const b = (batch.byteOffset & 3) === 0 ? batch : new Uint8Array(batch);
  const words = new Uint32Array(b.buffer, b.byteOffset, b.length >> 2);
  const encoded = encodes(width);
  const state = encoded ? new Uint8Array(toWord(width)) : b;
  let n = 0;
  for (let o = 0; o + HEADER_BYTES < b.length; n++) {
    const w = o >> 2;
    const body = o + HEADER_BYTES;
    let at = body;
    if (encoded) {
      o = toWord(decodeState(b, body, state, 0, width));
      at = 0;
    } else o = body + toWord(width);
    if (o > b.length) throw new Error(`a batch of candidates ends inside a state (${b.length} bytes)`);
    each(words[w]!, words[w + 1]!, words[w + 2]!, words[w + 3]!, words[w + 4]!, words[w + 5]!, words[w + 6]!, state, at);
  }
  return n;
}
