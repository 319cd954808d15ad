/**
 * A level of a breadth-first search in shared memory, each state stored as its difference from the one
 * before it (frontierCodec.ts), as the search in one thread stores its frontier. An owner appends its
 * part of a level in rank order, mostly siblings that differ in a few fields (a KRaft state of 509 bytes
 * takes a few dozen). Every BLOCK states the difference starts again from zeros, so a thread decodes any
 * run of a level from the block it starts in.
 */
import { copyState } from '../../../spec/layout/bytes.ts';
import { decodeState, encodeAligned, maxEncodedWidth } from '../frontierCodec.ts';

/** States per block: a chunk starts decoding at most BLOCK - 1 states before its first. */
export const BLOCK = 64;

/**
 * How much a level's code grows when full. A writer is reused for the level after next, so each keeps the
 * size of the widest level it held: at 1.5 two such writers came to 2.5 MB each for KRaft
 * levels of 1.8 MB; a growth copies a few megabytes, once per wider level.
 */
const CODE_GROWTH = 1.2;

/** A level as the workers receive it: the code, where each block starts in it, and the count of states. */
export interface EncodedLevel {
  readonly code: SharedArrayBuffer;
  readonly blocks: SharedArrayBuffer;
  readonly count: number;
}

/** Appends states to a level (an owner's part of the next level), growing its shared buffers as it goes. */
export class EncodedLevelWriter {
  private code: Uint8Array;
  private blocks: Int32Array;
  private used = 0;
  count = 0;
  /** The state appended last (zeros at a block's start), a word view of it, and the state being appended. */
  private readonly prev: Uint8Array;
  private readonly prev32: Uint32Array;
  private readonly cur: Uint8Array;
  private readonly cur32: Uint32Array;
  private readonly curWords: Int32Array;
  private readonly room: number;

  constructor(
    private readonly width: number,
    /** A state's width to the next word: the readers' buffers (`EncodedLevelReader.read`). */
    private readonly stride: number,
    capacityStates: number,
  ) {
    this.room = maxEncodedWidth(width);
    this.code = new Uint8Array(new SharedArrayBuffer(Math.max(1 << 16, capacityStates * 32)));
    this.blocks = new Int32Array(new SharedArrayBuffer(4 * (Math.ceil(Math.max(1, capacityStates) / BLOCK) + 1)));
    this.prev = new Uint8Array(stride);
    this.prev32 = new Uint32Array(this.prev.buffer);
    this.cur = new Uint8Array(stride);
    this.cur32 = new Uint32Array(this.cur.buffer);
    this.curWords = new Int32Array(this.cur.buffer);
  }

  /** This writer with no states, for the level after next (its memory is kept). */
  emptied(): this {
    this.count = 0;
    this.used = 0;
    return this;
  }

  /** Bytes of code written so far. */
  get encodedBytes(): number {
    return this.used;
  }

  /** Memory its buffers take. */
  get bytes(): number {
    return this.code.byteLength + this.blocks.byteLength;
  }

  /** Appends the state at `at` of `b`. */
  push(b: Uint8Array, at: number): void {
    if (this.count % BLOCK === 0) {
      const block = this.count / BLOCK;
      if (block === this.blocks.length) this.blocks = grown(this.blocks, this.blocks.length * 2);
      this.blocks[block] = this.used;
      this.prev.fill(0);
    }
    if (this.used + this.room > this.code.length) this.code = grown(this.code, Math.max(this.used + this.room, Math.ceil(this.code.length * CODE_GROWTH)));
    copyState(b, at, this.cur, this.curWords, 0, this.width);
    this.used += encodeAligned(this.prev, this.prev32, this.cur, this.cur32, this.width, this.code, this.used);
    this.count++;
  }

  /** The level written so far, for the workers (valid until the next push grows a buffer). */
  level(): EncodedLevel {
    return { code: this.code.buffer as SharedArrayBuffer, blocks: this.blocks.buffer as SharedArrayBuffer, count: this.count };
  }
}

/** Reads the states of a level by position, decoding from the block a position lies in. */
export class EncodedLevelReader {
  private readonly code: Uint8Array;
  private readonly blocks: Int32Array;
  readonly count: number;
  /** The state at `last`, decoded, and where the next state's code starts. */
  private readonly state: Uint8Array;
  private last = -1;
  private next = 0;

  constructor(
    level: EncodedLevel,
    private readonly width: number,
    /** The state's width to the next word. */
    stride: number,
  ) {
    this.code = new Uint8Array(level.code);
    this.blocks = new Int32Array(level.blocks);
    this.count = level.count;
    this.state = new Uint8Array(stride);
  }

  /**
   * The state at position `pos`, in this reader's own buffer (at offset 0, padded to a word): valid until
   * the next call, which decodes the next state over it (fastest in increasing order). A search expands a
   * parent from it: views never write into the bytes they read.
   */
  at(pos: number): Uint8Array {
    if (pos < 0 || pos >= this.count) throw new Error(`no state ${pos} in a level of ${this.count}`);
    const block = Math.floor(pos / BLOCK);
    if (pos <= this.last || Math.floor(this.last / BLOCK) !== block) {
      this.state.fill(0);
      this.last = block * BLOCK - 1;
      this.next = this.blocks[block]!;
    }
    while (this.last < pos) {
      this.next = decodeState(this.code, this.next, this.state, 0, this.width);
      this.last++;
    }
    return this.state;
  }
}

/** The level's states end to end, `width` bytes each (a checkpoint's level, as one thread writes it). */
export function decodeLevel(level: EncodedLevel, width: number, stride: number): Uint8Array {
  const reader = new EncodedLevelReader(level, width, stride);
  const out = new Uint8Array(level.count * width);
  for (let i = 0; i < level.count; i++) out.set(reader.at(i).subarray(0, width), i * width);
  return out;
}

function grown<T extends Uint8Array | Int32Array>(a: T, length: number): T {
  const bigger = (a instanceof Uint8Array ? new Uint8Array(new SharedArrayBuffer(length)) : new Int32Array(new SharedArrayBuffer(4 * length))) as T;
  bigger.set(a);
  return bigger;
}
