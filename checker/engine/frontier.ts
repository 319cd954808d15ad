/**
 * One BFS level's states waiting to be expanded, with their ids, in discovery order.
 *
 * `ByteFrontier` keeps packed states as bytes in large chunks (a state costs its width plus 4 bytes for
 * its id, not a JS object); a state is viewed in place when it is expanded. `ObjectFrontier` keeps
 * Immutable.js states of specs without a layout as the objects the spec built, so a successor is made
 * from exactly the value a trace rebuild makes it from (an Immutable Map iterates in insertion order).
 */
import { closeSync, mkdirSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { PackedLayout, PackedState } from './state/packed.ts';
import { copyInto } from '../../spec/layout/bytes.ts';

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

const CHUNK_BYTES = 1 << 22;

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
  private chunks: (Uint8Array | null)[] = [];
  private ids: (Uint32Array | null)[] = [];
  /** Per chunk on disk: where its bytes start in the spill file (ids follow them). */
  private spilledAt: number[] = [];
  private spill: SpillFile | null = null;
  private inMemory = 0;
  private count = 0;
  private head = 0;
  /** Chunks written to disk so far, over the frontier's life. */
  spilledChunks = 0;

  constructor(
    private readonly layout: PackedLayout,
    private readonly spillDir?: string,
    chunkBytes = CHUNK_BYTES,
  ) {
    this.perChunk = Math.max(1, Math.floor(chunkBytes / Math.max(1, layout.width)));
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
    return this.inMemory * this.perChunk * (this.layout.width + 4);
  }

  push(s: S, bytes: Uint8Array | null, id: number): void {
    const c = Math.floor(this.count / this.perChunk);
    const at = this.count - c * this.perChunk;
    if (c === this.chunks.length) {
      this.chunks.push(new Uint8Array(this.perChunk * this.layout.width));
      this.ids.push(new Uint32Array(this.perChunk));
      this.spilledAt.push(-1);
      this.inMemory++;
    }
    const w = this.layout.width;
    if (bytes !== null) this.chunks[c]!.set(bytes, at * w);
    else {
      const v = s as PackedState;
      copyInto(v._b, v._o, this.chunks[c]!, at * w, w);
    }
    this.ids[c]![at] = id;
    this.count++;
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
      this.spill ??= new SpillFile(this.spillDir);
      const at = this.spill.write(chunk);
      this.spill.write(new Uint8Array(this.ids[c]!.buffer));
      this.spilledAt[c] = at;
      this.chunks[c] = null;
      this.ids[c] = null;
      this.inMemory--;
      this.spilledChunks++;
      freed += chunk.length + this.perChunk * 4;
    }
    return freed;
  }

  private load(c: number): void {
    if (this.chunks[c] !== null) return;
    const chunk = new Uint8Array(this.perChunk * this.layout.width);
    const ids = new Uint32Array(this.perChunk);
    this.spill!.read(chunk, this.spilledAt[c]!);
    this.spill!.read(new Uint8Array(ids.buffer), this.spilledAt[c]! + chunk.length);
    this.chunks[c] = chunk;
    this.ids[c] = ids;
    this.inMemory++;
  }

  peekState(): S {
    const c = Math.floor(this.head / this.perChunk);
    this.load(c);
    const at = (this.head - c * this.perChunk) * this.layout.width;
    return this.layout.wrapAt(this.chunks[c]!, at) as S;
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
      this.chunks[c] = EMPTY;
      this.ids[c] = EMPTY_IDS;
      this.inMemory--;
    }
  }

  reset(): void {
    this.spill?.close();
    this.spill = null;
    this.chunks = [];
    this.ids = [];
    this.spilledAt = [];
    this.inMemory = 0;
    this.count = 0;
    this.head = 0;
  }

  /** The states from position `from` on, as one contiguous buffer (for handing a level to worker threads). */
  contiguous(from: number): { bytes: Uint8Array; ids: Uint32Array } {
    const n = this.count - from;
    const w = this.layout.width;
    const bytes = new Uint8Array(new SharedArrayBuffer(Math.max(1, n * w)));
    const ids = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      const p = from + i;
      const c = Math.floor(p / this.perChunk);
      this.load(c);
      const at = p - c * this.perChunk;
      bytes.set(this.chunks[c]!.subarray(at * w, (at + 1) * w), i * w);
      ids[i] = this.ids[c]![at]!;
    }
    return { bytes, ids };
  }
}

const EMPTY = new Uint8Array(0);
const EMPTY_IDS = new Uint32Array(0);
