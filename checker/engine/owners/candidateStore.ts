/**
 * The bytes of the candidates an owner keeps for its next level, by place (owner.ts): they come in the order
 * their senders made them, and are read back in key order, once to check their properties and once to
 * become the level. A state of ENCODE_FROM_WIDTH bytes or more is kept as the words that differ from the
 * state kept before it (the first of every GROUP: from zeros), after a bitmap of which they are.
 * Candidates that come one after another are mostly siblings: a KRaft state of 509 bytes takes about 85
 * (163 as its words that are not zero, how each was kept alone before). A narrower state is kept as it is.
 *
 * Key order follows the order they came in runs (an owner's own successors, parent by parent; a batch
 * of another's): a few readers, each a group and the state it decoded last, read a run at one decoding
 * a state, and any other state at GROUP at most.
 */
import { copyState, wordsOf } from '../../../spec/layout/bytes.ts';

/**
 * States this wide or wider are kept encoded. A narrower one is a few words, which a bitmap would not
 * shrink much (TwoPhase's 31 bytes).
 */
const ENCODE_FROM_WIDTH = 64;
/** States a decoding starts from zeros. */
const GROUP = 8;
/** Readers kept: the runs key order interleaves (the owner's own, and one per other owner sending). */
const READERS = 4;

/** A group of the store, decoded up to one of its states. */
interface Reader {
  group: number;
  /** The entry `state` holds (group - 1: none yet). */
  entry: number;
  readonly state: Uint8Array;
  readonly words: Int32Array;
  /** When it was last used, to replace the least recent. */
  used: number;
}

export class CandidateStore {
  /** A state's place to the next word: where raw states lie, and the buffers a state is decoded into. */
  private readonly slot: number;
  private readonly encoded: boolean;
  /** Words of a state, and of its bitmap (encoded stores). */
  private readonly stateWords: number;
  private readonly mapWords: number;
  /** Raw: each place's bytes at `place * slot`. Encoded: the code of every entry, one after another. */
  private data: Uint8Array;
  private words: Int32Array;
  /**
   * Encoded: per place, its entry, and the word where each entry's code starts. A place given other
   * bytes (a lesser key) gets a new entry.
   */
  private entryOf: Uint32Array;
  private codeAt: Uint32Array;
  private entries = 0;
  /** Words of code written (encoded stores). */
  private used = 0;
  /** The words of the state kept last (what the next one is encoded against), and a state being kept that had to be copied. */
  private readonly last: Int32Array;
  private readonly scratch: Uint8Array;
  private readonly scratchWords: Int32Array;
  private readonly readers: Reader[];
  private reads = 0;
  /** The words of the state `read` gave last. */
  private readerWords: Int32Array = new Int32Array(0);

  constructor(
    private readonly width: number,
    places: number,
  ) {
    this.slot = (width + 3) & ~3;
    this.encoded = width >= ENCODE_FROM_WIDTH;
    this.stateWords = this.slot >> 2;
    this.mapWords = (this.stateWords + 31) >> 5;
    // Encoded, room for a sixth of the raw bytes first: a KRaft state takes about that.
    this.data = new Uint8Array(this.encoded ? 4 * Math.max(this.mostWords, Math.ceil((places * this.stateWords) / 6)) : places * this.slot);
    this.words = new Int32Array(this.data.buffer);
    this.entryOf = new Uint32Array(this.encoded ? places : 0);
    this.codeAt = new Uint32Array(this.encoded ? places : 0);
    this.last = new Int32Array(this.encoded ? this.stateWords : 0);
    this.scratch = new Uint8Array(this.encoded ? this.slot : 0);
    this.scratchWords = new Int32Array(this.scratch.buffer);
    this.readers = Array.from({ length: this.encoded ? READERS : 0 }, () => {
      const state = new Uint8Array(this.slot);
      return { group: -1, entry: -1, state, words: new Int32Array(state.buffer), used: 0 };
    });
  }

  get bytes(): number {
    return this.data.byteLength + this.entryOf.byteLength + this.codeAt.byteLength + this.readers.length * this.slot;
  }

  /** Places the store has room for. */
  get places(): number {
    return this.encoded ? this.entryOf.length : this.data.length / this.slot;
  }

  /** The most words one state's code takes: its bitmap and every word. */
  private get mostWords(): number {
    return this.mapWords + this.stateWords;
  }

  /** Room for `places` places (their bytes kept). */
  growTo(places: number): void {
    if (this.encoded) {
      const entryOf = new Uint32Array(places);
      entryOf.set(this.entryOf);
      this.entryOf = entryOf;
    } else this.replaceData(places * this.slot);
  }

  /**
   * Keeps the state at `at` of `b` at `place`: a new place, or, `replacing`, one kept before (a candidate
   * replaced by one with a lesser key: the same state, but for a fingerprint collision or a symmetry or
   * VIEW class, so the bytes are kept again only when they differ).
   */
  put(place: number, b: Uint8Array, at: number, replacing = false): void {
    if (!this.encoded) {
      copyState(b, at, this.data, this.words, place * this.slot, this.width);
      return;
    }
    if (replacing && this.holds(place, b, at)) return;
    const e = this.entries++;
    if (e === this.codeAt.length) {
      const codeAt = new Uint32Array(Math.ceil(this.codeAt.length * 1.5) + GROUP);
      codeAt.set(this.codeAt);
      this.codeAt = codeAt;
    }
    if (4 * (this.used + this.mostWords) > this.data.length) this.replaceData(4 * (Math.ceil((this.data.length >> 2) * 1.5) + this.mostWords));
    const { words: code, mapWords, last } = this;
    if (e % GROUP === 0) last.fill(0);
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
        if (v !== last[i]) {
          bits |= 1 << (i & 31);
          code[o++] = v;
          last[i] = v;
        }
      }
      code[map + m] = bits;
    }
    this.codeAt[e] = map;
    this.used = o;
    this.entryOf[place] = e;
  }

  /** The buffer holding the state at `place`, at offset `offsetOf(place)`: an encoded store's is valid until the next `read`. */
  read(place: number): Uint8Array {
    if (!this.encoded) return this.data;
    const e = this.entryOf[place]!;
    const group = e - (e % GROUP);
    const readers = this.readers;
    let reader = readers[0]!;
    let found = false;
    for (let r = 0; r < readers.length; r++) {
      const candidate = readers[r]!;
      if (candidate.group === group && candidate.entry <= e) {
        reader = candidate;
        found = true;
        break;
      }
      if (candidate.used < reader.used) reader = candidate;
    }
    if (!found) {
      reader.group = group;
      reader.entry = group - 1;
      reader.words.fill(0);
    }
    reader.used = ++this.reads;
    const { words: code, mapWords, codeAt } = this;
    const state = reader.words;
    while (reader.entry < e) {
      const map = codeAt[++reader.entry]!;
      let o = map + mapWords;
      for (let m = 0; m < mapWords; m++) {
        for (let bits = code[map + m]!; bits !== 0; bits &= bits - 1) state[(m << 5) + 31 - Math.clz32(bits & -bits)] = code[o++]!;
      }
    }
    this.readerWords = state;
    return reader.state;
  }

  /** Whether `place` holds the state at `at` of `b` already. */
  private holds(place: number, b: Uint8Array, at: number): boolean {
    const kept = this.read(place);
    const keptWords = this.readerWords;
    const whole = this.width >> 2;
    const given = (at & 3) === 0 ? wordsOf(b) : null;
    let i = 0;
    if (given !== null) {
      const first = at >> 2;
      for (let w = 0; w < whole; w++) if (keptWords[w] !== given[first + w]) return false;
      i = whole << 2;
    }
    for (; i < this.width; i++) if (kept[i] !== b[at + i]) return false;
    return true;
  }

  offsetOf(place: number): number {
    return this.encoded ? 0 : place * this.slot;
  }

  /** Empties the store, keeping its room. */
  clear(): void {
    this.used = 0;
    this.entries = 0;
    for (const reader of this.readers) reader.group = -1;
  }

  private replaceData(length: number): void {
    const data = new Uint8Array(length);
    data.set(this.data.subarray(0, Math.min(this.data.length, length)));
    this.data = data;
    this.words = new Int32Array(data.buffer);
  }
}
