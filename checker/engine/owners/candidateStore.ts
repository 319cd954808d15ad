/**
 * The bytes of the candidates an owner keeps for its next level, by place (owner.ts): they come in the order
 * their senders made them, and are read back in key order, once to check their properties and once to
 * become the level. A state of ENCODE_FROM_WIDTH bytes or more is kept as its words that are not zero, after
 * a bitmap of which they are: any one reads back alone, and a KRaft state of 509 bytes, mostly zeros, takes
 * about a third of that. A narrower state is kept as it is.
 */
import { copyState, wordsOf } from '../../../spec/layout/bytes.ts';
import { ENCODE_FROM_WIDTH } from '../frontierCodec.ts';

export class CandidateStore {
  /** A state's place to the next word: where raw states lie, and the buffers a state is decoded into. */
  private readonly slot: number;
  private readonly encoded: boolean;
  /** Words of a state, and of its bitmap (encoded stores). */
  private readonly stateWords: number;
  private readonly mapWords: number;
  /** Raw: each place's bytes at `place * slot`. Encoded: codes one after another, each place's at word `codeAt[place]`. */
  private data: Uint8Array;
  private words: Int32Array;
  private codeAt: Uint32Array;
  /** Words of code written (encoded stores). */
  private used = 0;
  /** The state being kept, then the state read back (encoded stores), and its words. */
  private readonly scratch: Uint8Array;
  private readonly scratchWords: Int32Array;

  constructor(
    private readonly width: number,
    places: number,
  ) {
    this.slot = (width + 3) & ~3;
    this.encoded = width >= ENCODE_FROM_WIDTH;
    this.stateWords = this.slot >> 2;
    this.mapWords = (this.stateWords + 31) >> 5;
    // Encoded, room for a third of the raw bytes first: a KRaft state takes about that.
    this.data = new Uint8Array(this.encoded ? 4 * Math.max(this.mostWords, Math.ceil(places * this.stateWords / 3)) : places * this.slot);
    this.words = new Int32Array(this.data.buffer);
    this.codeAt = new Uint32Array(this.encoded ? places : 0);
    this.scratch = new Uint8Array(this.encoded ? this.slot : 0);
    this.scratchWords = new Int32Array(this.scratch.buffer);
  }

  get bytes(): number {
    return this.data.byteLength + this.codeAt.byteLength;
  }

  /** Places the store has room for. */
  get places(): number {
    return this.encoded ? this.codeAt.length : this.data.length / this.slot;
  }

  /** The most words one state's code takes: its bitmap and every word. */
  private get mostWords(): number {
    return this.mapWords + this.stateWords;
  }

  /** Room for `places` places (their bytes kept). */
  growTo(places: number): void {
    if (this.encoded) {
      const codeAt = new Uint32Array(places);
      codeAt.set(this.codeAt);
      this.codeAt = codeAt;
    } else this.replaceData(places * this.slot);
  }

  /**
   * Keeps the state at `at` of `b` at `place`: a new place, or, `replacing`, one kept before (a candidate
   * replaced by one with a lesser key: the same state but for a fingerprint collision, so its code is
   * written over the old one when it has the old one's length, not appended beside it).
   */
  put(place: number, b: Uint8Array, at: number, replacing = false): void {
    if (!this.encoded) {
      copyState(b, at, this.data, this.words, place * this.slot, this.width);
      return;
    }
    if (4 * (this.used + this.mostWords) > this.data.length) this.replaceData(4 * (Math.ceil((this.data.length >> 2) * 1.5) + this.mostWords));
    const { words: code, mapWords } = this;
    // Read a word at a time where it lies: a state on a word of a buffer whose padding is its own (a
    // successor in the slab of layout writes, a state decoded from a batch); any other is copied first.
    let state = (at & 3) === 0 && at + this.slot <= b.length ? wordsOf(b) : null;
    let first = at >> 2;
    if (state === null) {
      copyState(b, at, this.scratch, this.scratchWords, 0, this.width);
      state = this.scratchWords;
      first = 0;
    }
    const map = this.used;
    let o = map + mapWords;
    for (let m = 0; m < mapWords; m++) {
      let bits = 0;
      const end = Math.min(this.stateWords, (m + 1) << 5);
      for (let i = m << 5; i < end; i++) {
        const v = state[first + i]!;
        if (v !== 0) {
          bits |= 1 << (i & 31);
          code[o++] = v;
        }
      }
      code[map + m] = bits;
    }
    if (replacing) {
      const old = this.codeAt[place]!;
      let oldWords = mapWords;
      for (let m = 0; m < mapWords; m++) oldWords += popCount(code[old + m]!);
      if (oldWords === o - map) {
        code.copyWithin(old, map, o);
        return;
      }
    }
    this.codeAt[place] = map;
    this.used = o;
  }

  /** The buffer holding the state at `place`, at offset `offsetOf(place)`: an encoded store's is valid until the next `read`. */
  read(place: number): Uint8Array {
    if (!this.encoded) return this.data;
    const { scratchWords: state, words: code, mapWords } = this;
    state.fill(0);
    const map = this.codeAt[place]!;
    let o = map + mapWords;
    for (let m = 0; m < mapWords; m++) {
      for (let bits = code[map + m]!; bits !== 0; bits &= bits - 1) state[(m << 5) + 31 - Math.clz32(bits & -bits)] = code[o++]!;
    }
    return this.scratch;
  }

  offsetOf(place: number): number {
    return this.encoded ? 0 : place * this.slot;
  }

  /** Empties the store, keeping its room. */
  clear(): void {
    this.used = 0;
  }

  private replaceData(length: number): void {
    const data = new Uint8Array(length);
    data.set(this.data.subarray(0, Math.min(this.data.length, length)));
    this.data = data;
    this.words = new Int32Array(data.buffer);
  }
}

function popCount(bits: number): number {
  let n = 0;
  for (; bits !== 0; bits &= bits - 1) n++;
  return n;
}
