/**
 * One BFS level's states waiting to be expanded, with their ids, in discovery order.
 *
 * `ByteFrontier` keeps packed states as bytes in large chunks (a state costs its width plus 4 bytes for
 * its id, not a JS object); a state is viewed in place when it is expanded. `ObjectFrontier` keeps
 * Immutable.js states of specs without a layout as the objects the spec built, so a successor is made
 * from exactly the value a trace rebuild makes it from (an Immutable Map iterates in insertion order).
 */
import type { PackedLayout } from './state/packed.ts';

export interface Frontier<S> {
  readonly length: number;
  readonly remaining: number;
  /** Bytes held, for the memory budget. */
  readonly bytes: number;
  push(s: S, bytes: Uint8Array, id: number): void;
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
  push(s: S, _bytes: Uint8Array, id: number): void {
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

export class ByteFrontier<S> implements Frontier<S> {
  private readonly perChunk: number;
  private chunks: Uint8Array[] = [];
  private ids: Uint32Array[] = [];
  private count = 0;
  private head = 0;

  constructor(private readonly layout: PackedLayout) {
    this.perChunk = Math.max(1, Math.floor(CHUNK_BYTES / Math.max(1, layout.width)));
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
    return this.chunks.length * this.perChunk * (this.layout.width + 4);
  }

  push(_s: S, bytes: Uint8Array, id: number): void {
    const c = Math.floor(this.count / this.perChunk);
    const at = this.count - c * this.perChunk;
    if (c === this.chunks.length) {
      this.chunks.push(new Uint8Array(this.perChunk * this.layout.width));
      this.ids.push(new Uint32Array(this.perChunk));
    }
    this.chunks[c]!.set(bytes, at * this.layout.width);
    this.ids[c]![at] = id;
    this.count++;
  }

  peekState(): S {
    const c = Math.floor(this.head / this.perChunk);
    const at = (this.head - c * this.perChunk) * this.layout.width;
    return this.layout.wrap(this.chunks[c]!.subarray(at, at + this.layout.width)) as S;
  }

  peekId(): number {
    const c = Math.floor(this.head / this.perChunk);
    return this.ids[c]![this.head - c * this.perChunk]!;
  }

  shift(): void {
    this.head++;
    // A chunk fully expanded is dropped at once: the level's memory shrinks as it is consumed.
    if (this.head % this.perChunk === 0) {
      const c = this.head / this.perChunk - 1;
      this.chunks[c] = EMPTY;
      this.ids[c] = EMPTY_IDS;
    }
  }

  reset(): void {
    this.chunks = [];
    this.ids = [];
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
      const at = p - c * this.perChunk;
      bytes.set(this.chunks[c]!.subarray(at * w, (at + 1) * w), i * w);
      ids[i] = this.ids[c]![at]!;
    }
    return { bytes, ids };
  }
}

const EMPTY = new Uint8Array(0);
const EMPTY_IDS = new Uint32Array(0);
