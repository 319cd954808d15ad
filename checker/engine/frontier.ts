/**
 * One BFS level's states waiting to be expanded, with their ids, in discovery order.
 *
 * `ByteFrontier` keeps packed states as bytes in large chunks, plus 4 bytes for each id. A wide state is
 * written as its difference from the one before it (frontierCodec.ts: a KRaft state of 509 bytes takes a
 * few dozen); the chunk being expanded is decoded whole and its states are viewed in place.
 * `ObjectFrontier` keeps Immutable.js states of specs without a layout as the objects the spec built, so a
 * successor is made from exactly the value a trace rebuild makes it from (an Immutable Map iterates in
 * insertion order).
 */
import { closeSync, mkdirSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { PackedLayout, PackedState } from './state/packed.ts';
import { copyState } from '../../spec/layout/bytes.ts';
import { decodeState, ENCODE_FROM_WIDTH, encodeAligned, maxEncodedWidth } from './frontierCodec.ts';

export interface Frontier<S> {
  readonly length: number;
  readonly remaining: number;
  /** Bytes held, for the memory budget. */
  readonly bytes: number;
  /** `bytes` null: a packed state's bytes are read from its view. */
  push(s: S, bytes: Uint8Array | null, id: number): void;
  peekState(): S;
  peekId(): number;
  shift(): void;
  reset(): void;
}

export class ObjectFrontier<S> implements Frontier<S> {
  private states: (S | undefined)[] = [];
  private ids: number[] = [];
  private head = 0;

  get length(): number {
    return this.states.length;
  }
  get remaining(): number {
    return this.states.length - this.head;
  }
  get bytes(): number {
    return 0; // on the V8 heap, which the limits measure directly
  }
  push(s: S, _bytes: Uint8Array | null, id: number): void {
    this.states.push(s);
    this.ids.push(id);
  }
  peekState(): S {
    return this.states[this.head]!;
  }
  peekId(): number {
    return this.ids[this.head]!;
  }
  shift(): void {
    this.states[this.head++] = undefined; // let the expanded state be collected
  }
  reset(): void {
    this.states = [];
    this.ids = [];
    this.head = 0;
  }
}

/**
 * States that are numbers (a model packed by hand into one number) kept as numbers, 12 bytes a state in
 * two typed arrays: in a JS array each would be a boxed number the garbage collector moves to its old
 * space and marks there. A state of another type, should the spec make one, is kept aside as it is.
 */
export class NumberFrontier<S> implements Frontier<S> {
  private values = new Float64Array(1024);
  private ids = new Uint32Array(1024);
  /** States that are not numbers, by position. */
  private others: Map<number, S> | null = null;
  private count = 0;
  private head = 0;

  get length(): number {
    return this.count;
  }
  get remaining(): number {
    return this.count - this.head;
  }
  get bytes(): number {
    return this.values.byteLength + this.ids.byteLength;
  }
  push(s: S, _bytes: Uint8Array | null, id: number): void {
    const i = this.count++;
    if (i === this.values.length) {
      const values = new Float64Array(i * 2);
      values.set(this.values);
      this.values = values;
      const ids = new Uint32Array(i * 2);
      ids.set(this.ids);
      this.ids = ids;
    }
    if (typeof s === 'number') this.values[i] = s;
    else (this.others ??= new Map()).set(i, s);
    this.ids[i] = id;
  }
  peekState(): S {
    const other = this.others?.get(this.head);
    return other !== undefined ? other : (this.values[this.head] as S);
  }
  peekId(): number {
    return this.ids[this.head]!;
  }
  shift(): void {
    this.others?.delete(this.head);
    this.head++;
  }
  /** Empties it, keeping its capacity (the two frontiers take turns, each as wide as a level). */
  reset(): void {
    this.count = 0;
    this.head = 0;
    this.others = null;
  }
}

const CHUNK_BYTES = 1 << 22;
/** Bytes of states decoded at a time from the chunk being read (at least one state). */
const BLOCK_BYTES = 1 << 16;

/**
 * Where a frontier's chunks go when memory runs short (TLC's disk-backed state queue): one file per
 * frontier, chunks written whole and read back whole, in order.
 */
export class SpillFile {
  private fd: number;
  private end = 0;
  readonly path: string;
  constructor(dir: string) {
    mkdirSync(dir, { recursive: true });
    this.path = join(dir, `frontier-${process.pid}-${SpillFile.next++}.bin`);
    this.fd = openSync(this.path, 'w+');
    // Unlinked at once where the system allows it: the open file lives on, and is gone on any exit, even
    // a kill that runs no clean-up.
    if (process.platform !== 'win32') rmSync(this.path, { force: true });
  }
  static next = 0;
  write(bytes: Uint8Array): number {
    const at = this.end;
    let done = 0;
    while (done < bytes.length) done += writeSync(this.fd, bytes, done, bytes.length - done, at + done);
    this.end += bytes.length;
    return at;
  }
  read(into: Uint8Array, at: number): void {
    let done = 0;
    while (done < into.length) {
      const n = readSync(this.fd, into, done, into.length - done, at + done);
      if (n === 0) throw new Error(`spill file ${this.path} ended early`);
      done += n;
    }
  }
  close(): void {
    if (this.fd < 0) return;
    closeSync(this.fd);
    this.fd = -1;
    rmSync(this.path, { force: true });
  }
}

export class ByteFrontier<S> implements Frontier<S> {
  private readonly perChunk: number;
  /** Per chunk: its states in the frontier code (frontierCodec.ts), null while on disk. */
  private chunks: (Uint8Array | null)[] = [];
  /** Per chunk: bytes of code in use (the chunk being written has room to spare). */
  private used: number[] = [];
  private ids: (Uint32Array | null)[] = [];
  /** Per chunk on disk: where its code starts in the spill file (ids follow it). */
  private spilledAt: number[] = [];
  private spill: SpillFile | null = null;
  /** Bytes of code and ids in memory. */
  private held = 0;
  private count = 0;
  private head = 0;
  /** The last state pushed, which the next one is encoded against (zeros at the start of a chunk), and
   * the state being pushed, copied to offset 0 so both are compared a word at a time (padded with zeros). */
  private readonly last: Uint8Array;
  private readonly last32: Uint32Array;
  private readonly cur: Uint8Array;
  private readonly cur32: Uint32Array;
  /** `cur`'s words, signed, for `copyByWords`. */
  private readonly curWords: Int32Array;
  /**
   * A block of the chunk being read, decoded (a fresh buffer each time: views of its states stay valid):
   * its chunk, its first state's place in the chunk, how many states it holds and where their code ends.
   * Decoded a block at a time, not a chunk: a chunk of wide states decoded whole was megabytes, more than
   * the rest of the frontier of a small run.
   */
  private decoded: Uint8Array = EMPTY;
  private decodedChunk = -1;
  private blockFirst = 0;
  private blockCount = 0;
  private blockCodeEnd = 0;
  /** Chunks written to disk so far, over the frontier's life. */
  spilledChunks = 0;
  /** States stored as they are (a chunk is its own decoded form). */
  private readonly raw: boolean;
  /** The words of the raw chunk being written, `chunkWordsOf` (see `wordsOfChunk`). */
  private chunkWords: Int32Array = EMPTY_WORDS;
  private chunkWordsOf: Uint8Array = EMPTY;
  /**
   * Bytes from one decoded state to the next: the width rounded up to a word, so every state being
   * expanded starts on a word and its copies and compares go a word at a time (raw chunks: the width).
   */
  private readonly stride: number;

  constructor(
    private readonly layout: PackedLayout,
    private readonly spillDir?: string,
    chunkBytes = CHUNK_BYTES,
  ) {
    this.perChunk = Math.max(1, Math.floor(chunkBytes / Math.max(1, layout.width)));
    this.raw = layout.width < ENCODE_FROM_WIDTH;
    this.stride = this.raw ? layout.width : (layout.width + 3) & ~3;
    const padded = (layout.width + 3) & ~3;
    this.last = new Uint8Array(padded);
    this.last32 = new Uint32Array(this.last.buffer);
    this.cur = new Uint8Array(padded);
    this.cur32 = new Uint32Array(this.cur.buffer);
    this.curWords = new Int32Array(this.cur.buffer);
  }

  get length(): number {
    return this.count;
  }
  get width(): number {
    return this.layout.width;
  }
  get remaining(): number {
    return this.count - this.head;
  }
  get bytes(): number {
    return this.held + (this.raw ? 0 : this.decoded.length);
  }

  push(s: S, bytes: Uint8Array | null, id: number): void {
    const w = this.layout.width;
    const c = Math.floor(this.count / this.perChunk);
    const at = this.count - c * this.perChunk;
    // A chunk starts at a sixteenth of the most it can take and doubles as it fills: the levels of a
    // search are mostly far smaller than a chunk, and room never written still counted as memory in use,
    // which brought on collections of the whole heap. Its ids too: a chunk of one-byte states holds four
    // million, and their ids made whole took 16 MB, and 20 ms to zero, for a level of a few states.
    const most = this.perChunk * (this.raw ? w : maxEncodedWidth(w));
    if (c === this.chunks.length) {
      if (c > 0) this.close(c - 1);
      const first = new Uint8Array(Math.min(most, Math.max(4096, (this.perChunk * w) >>> 4)));
      const ids = new Uint32Array(Math.min(this.perChunk, Math.max(1024, this.perChunk >>> 4)));
      this.chunks.push(first);
      this.used.push(0);
      this.ids.push(ids);
      this.spilledAt.push(-1);
      this.held += first.length + ids.byteLength;
      this.last.fill(0);
    }
    if (at === this.ids[c]!.length) this.growIds(c);
    let chunk = this.chunks[c]!;
    let o = this.used[c]!;
    // The state's bytes: given, or read from its view.
    const src = bytes ?? (s as PackedState)._b;
    const so = bytes !== null ? 0 : (s as PackedState)._o;
    if (o + (this.raw ? w : maxEncodedWidth(w)) > chunk.length) {
      const grown = new Uint8Array(Math.min(most, chunk.length * 2));
      grown.set(chunk.subarray(0, o));
      this.held += grown.length - chunk.length;
      this.chunks[c] = chunk = grown;
    }
    if (this.raw) {
      copyState(src, so, chunk, this.wordsOfChunk(chunk), o, w);
      this.used[c] = o + w;
      this.ids[c]![at] = id;
      this.count++;
      return;
    }
    copyState(src, so, this.cur, this.curWords, 0, w);
    o += encodeAligned(this.last, this.last32, this.cur, this.cur32, w, chunk, o);
    this.used[c] = o;
    this.ids[c]![at] = id;
    this.count++;
  }

  /** Room for twice as many ids in chunk `c` (the chunk being written), up to a whole chunk's. */
  private growIds(c: number): void {
    const ids = this.ids[c]!;
    const grown = new Uint32Array(Math.min(this.perChunk, ids.length * 2));
    grown.set(ids);
    this.held += grown.byteLength - ids.byteLength;
    this.ids[c] = grown;
  }

  /** The words of the raw chunk being written (made again only when the chunk is replaced). */
  private wordsOfChunk(chunk: Uint8Array): Int32Array {
    if (this.chunkWordsOf !== chunk) {
      this.chunkWordsOf = chunk;
      this.chunkWords = new Int32Array(chunk.buffer, chunk.byteOffset, chunk.length >> 2);
    }
    return this.chunkWords;
  }

  /** A chunk now full gives back the room it did not use. */
  private close(c: number): void {
    const chunk = this.chunks[c];
    if (chunk === null || chunk === undefined || chunk.length === this.used[c]) return;
    const trimmed = chunk.slice(0, this.used[c]);
    this.held -= chunk.length - trimmed.length;
    this.chunks[c] = trimmed;
  }

  /**
   * Moves every whole chunk that is neither being read nor being written to disk; returns how many bytes
   * that freed. A frontier without a spill directory keeps everything in memory.
   */
  spillToDisk(): number {
    if (this.spillDir === undefined) return 0;
    const reading = Math.floor(this.head / this.perChunk);
    const writing = Math.floor(this.count / this.perChunk);
    let freed = 0;
    for (let c = reading + 1; c < Math.min(writing, this.chunks.length); c++) {
      const chunk = this.chunks[c];
      if (chunk === null || chunk === undefined || chunk.length === 0) continue;
      this.close(c);
      const code = this.chunks[c]!;
      this.spill ??= new SpillFile(this.spillDir);
      const at = this.spill.write(code);
      // A whole chunk's ids: this chunk is full, so they have grown to a chunk's count.
      const ids = this.ids[c]!;
      this.spill.write(new Uint8Array(ids.buffer));
      this.spilledAt[c] = at;
      this.chunks[c] = null;
      this.ids[c] = null;
      this.held -= code.length + ids.byteLength;
      this.spilledChunks++;
      freed += code.length + ids.byteLength;
    }
    return freed;
  }

  private load(c: number): void {
    if (this.chunks[c] !== null) return;
    const code = new Uint8Array(this.used[c]!);
    const ids = new Uint32Array(this.perChunk);
    this.spill!.read(code, this.spilledAt[c]!);
    this.spill!.read(new Uint8Array(ids.buffer), this.spilledAt[c]! + code.length);
    this.chunks[c] = code;
    this.ids[c] = ids;
    this.held += code.length + ids.byteLength;
  }

  /** States of chunk `c` pushed so far. */
  private statesIn(c: number): number {
    return Math.min(this.perChunk, this.count - c * this.perChunk);
  }

  /** Decodes chunk `c`'s states into `into` from offset `io` on, `stride` bytes apart, from its state `first` on. */
  private decodeChunk(c: number, into: Uint8Array, io: number, first: number, stride: number): void {
    this.load(c);
    const w = this.layout.width;
    const code = this.chunks[c]!;
    const n = this.statesIn(c);
    if (this.raw) {
      into.set(code.subarray(first * w, n * w), io);
      return;
    }
    // Each state is decoded over the one before it: the first over zeros, or over a scratch copy.
    const scratch = first === 0 ? null : new Uint8Array(w);
    let ci = 0;
    for (let i = 0; i < n; i++) {
      if (i < first) {
        ci = decodeState(code, ci, scratch!, 0, w);
        continue;
      }
      const at = io + (i - first) * stride;
      if (i === first && scratch !== null) into.set(scratch, at);
      else if (i > first) into.copyWithin(at, at - stride, at - stride + w);
      ci = decodeState(code, ci, into, at, w);
    }
  }

  /** Makes state `p` of chunk `c` one of the decoded block's (a raw chunk is its own decoded form). */
  private readBlock(c: number, p: number): void {
    if (this.decodedChunk === c && p >= this.blockFirst && p < this.blockFirst + this.blockCount) return;
    this.load(c);
    const code = this.chunks[c]!;
    if (this.raw) {
      this.decoded = code;
      this.decodedChunk = c;
      this.blockFirst = 0;
      this.blockCount = this.statesIn(c);
      return;
    }
    const { stride } = this;
    const w = this.layout.width;
    const count = Math.min(Math.max(1, Math.floor(BLOCK_BYTES / stride)), this.statesIn(c) - p);
    const decoded = new Uint8Array(count * stride);
    // Each state is decoded over the one before it: the block's first over the last one decoded when the
    // frontier is read in order (as a search does), else over the chunk's states decoded from its start.
    let ci: number;
    if (this.decodedChunk === c && p === this.blockFirst + this.blockCount) {
      const last = (this.blockCount - 1) * stride;
      decoded.set(this.decoded.subarray(last, last + w), 0);
      ci = this.blockCodeEnd;
    } else {
      ci = 0;
      for (let i = 0; i < p; i++) ci = decodeState(code, ci, decoded, 0, w);
    }
    for (let i = 0; i < count; i++) {
      const at = i * stride;
      if (i > 0) decoded.copyWithin(at, at - stride, at - stride + w);
      ci = decodeState(code, ci, decoded, at, w);
    }
    this.decoded = decoded;
    this.decodedChunk = c;
    this.blockFirst = p;
    this.blockCount = count;
    this.blockCodeEnd = ci;
  }

  peekState(): S {
    const c = Math.floor(this.head / this.perChunk);
    const p = this.head - c * this.perChunk;
    this.readBlock(c, p);
    return this.layout.wrapAt(this.decoded, (p - this.blockFirst) * this.stride) as S;
  }

  peekId(): number {
    const c = Math.floor(this.head / this.perChunk);
    this.load(c);
    return this.ids[c]![this.head - c * this.perChunk]!;
  }

  shift(): void {
    this.head++;
    // A chunk fully expanded is dropped at once: the level's memory shrinks as it is consumed.
    if (this.head % this.perChunk === 0) {
      const c = this.head / this.perChunk - 1;
      if (this.chunks[c] !== null) this.held -= this.chunks[c]!.length + this.ids[c]!.byteLength;
      this.chunks[c] = EMPTY;
      this.ids[c] = EMPTY_IDS;
      if (this.decodedChunk === c) {
        this.decoded = EMPTY;
        this.decodedChunk = -1;
      }
    }
  }

  reset(): void {
    this.spill?.close();
    this.spill = null;
    this.chunks = [];
    this.used = [];
    this.ids = [];
    this.spilledAt = [];
    this.held = 0;
    this.count = 0;
    this.head = 0;
    this.decoded = EMPTY;
    this.decodedChunk = -1;
  }

  /**
   * The states from position `from` on, as one contiguous buffer in shared memory, `stride` bytes apart
   * (the width, or more: the bytes between states are zero), for a checkpoint or worker threads.
   */
  contiguous(from: number, stride = this.layout.width): { bytes: Uint8Array; ids: Uint32Array } {
    const n = this.count - from;
    const w = this.layout.width;
    const bytes = new Uint8Array(new SharedArrayBuffer(Math.max(1, n * stride)));
    const ids = new Uint32Array(n);
    for (let c = Math.floor(from / this.perChunk); c * this.perChunk < this.count; c++) {
      const first = Math.max(0, from - c * this.perChunk);
      const out = c * this.perChunk + first - from;
      if (this.raw && stride !== w) {
        // A raw chunk is its states end to end: each goes to its place apart.
        this.load(c);
        const code = this.chunks[c]!;
        for (let i = first; i < this.statesIn(c); i++) bytes.set(code.subarray(i * w, (i + 1) * w), (out + i - first) * stride);
      } else this.decodeChunk(c, bytes, out * stride, first, stride);
      ids.set(this.ids[c]!.subarray(first, this.statesIn(c)), out);
    }
    return { bytes, ids };
  }
}

const EMPTY = new Uint8Array(0);
const EMPTY_IDS = new Uint32Array(0);
const EMPTY_WORDS = new Int32Array(0);
