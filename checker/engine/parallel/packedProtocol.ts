import type { MessagePort } from 'node:worker_threads';
import type { EncodedLevel } from '../state/encodedLevel.ts';
import type { SentSpecError } from './sentSpecError.ts';

/**
 * Messages between the coordinator and the worker threads of the packed search (packedCoordinator.ts).
 *
 * A level lives once, as bytes in shared memory. It is cut into chunks of consecutive positions (large
 * first, small towards its end: levelChunks.ts), which
 * the workers claim in increasing order from a shared counter, so a worker slowed down (by the machine or
 * by costlier states) takes fewer chunks instead of holding up the merge. For each parent a worker reports what the sequential search would have
 * counted, and each successor not already in the shared fingerprint set as a candidate: its fingerprint,
 * how it was reached, what the properties say of it, and its bytes, in reports of at most PIECE_MS each.
 * The coordinator merges the reports in order of position (the sequential order), keeps the candidates
 * that are new, and appends their bytes to the next level. No state is ever made twice.
 */

/**
 * Bytes from one state of a level, or of a chunk's candidates, to the next: the width rounded up to a
 * word, with the bytes between states zero. Every state then starts on a word, so it is copied a word at
 * a time, not by a byte loop or through a subarray made for it.
 */
export function levelStride(width: number): number {
  return (width + 3) & ~3;
}

/**
 * Per parent, in the chunk's `parents` stream. Its coverage counts are not in it: a chunk reports the sum
 * of its parents' (`counts`), and a search that stops inside a chunk counts its parents up to the stop
 * again itself (packedCoordinator.ts), once.
 */
export const PARENT_HEADER = 3; // generated, candidates, flags
export const FLAG_ERROR = 2; // spec code threw while expanding it: the chunk's `error` says what

/** Per candidate, in the chunk's `candidates` stream. */
export const CANDIDATE_WORDS = 7; // hi, lo, action, ordinal, successor index, verdict, witness bits
/** `verdict`: 0 = every invariant holds; i + 1 = invariant i fails; ERROR_VERDICT = a property threw. */
export const ERROR_VERDICT = 0xffffffff;
/**
 * Set in a candidate's action word for a successor outside the model's CONSTRAINT, or reached by a step
 * outside its ACTION_CONSTRAINT. Such a state is no state of the model (bfs.ts): it is reported only when
 * an invariant fails on it or spec code throws.
 */
export const OUTSIDE_CONSTRAINT = 0x80000000;

export interface PackedWorkerSetup {
  /**
   * Where the worker posts its chunk reports. The coordinator takes them off this port itself
   * (receiveMessageOnPort) between its own chunks, without a turn of its event loop for each.
   */
  readonly reports: MessagePort;
  /** One Int32 the worker adds one to, and wakes, after each report: the coordinator waits on it. */
  readonly mail: SharedArrayBuffer;
  readonly modulePath: string;
  readonly params: Readonly<Record<string, string | number | boolean>>;
  readonly symmetry: boolean;
  readonly index: number;
  readonly count: number;
}

export type ToPackedWorker =
  | {
      readonly type: 'level';
      /** The level's states, each as its difference from the one before (encodedLevel.ts). */
      readonly level: EncodedLevel;
      /** Where each chunk starts, then `count` (levelChunks.ts). */
      readonly starts: Int32Array;
      /** One Int32: the next chunk to claim (Atomics.add). */
      readonly nextChunk: SharedArrayBuffer;
      readonly seen: SharedArrayBuffer;
      /** Witnesses already reached: not evaluated again. */
      readonly witnessesReached: Uint8Array;
    }
  | { readonly type: 'stop' };

/** One chunk's report: per parent its counts, per candidate its words, and the candidates' bytes. */
export interface ChunkReport {
  readonly type: 'chunk';
  /**
   * The positions of the level it covers: [start, end). A chunk of many slow states is reported in
   * pieces (chunkExpander.ts), each from where the one before it ended.
   */
  readonly start: number;
  readonly end: number;
  /** The worker's index, for its heap figure (-1: the coordinator's own thread). */
  readonly worker: number;
  readonly parents: Uint32Array;
  /** The chunk's coverage: per action, the parents it was enabled in, then per action, its successors. */
  readonly counts: Float64Array;
  readonly candidates: Uint32Array;
  /** The candidates' states, `levelStride(width)` bytes apart. */
  readonly bytes: Uint8Array;
  /** Spec code threw expanding a parent of this chunk (flagged FLAG_ERROR), or a property threw on a candidate. */
  readonly errors: readonly SentSpecError[];
  /** The worker's V8 heap in use, counted against the memory budget with the coordinator's. */
  readonly heapUsed: number;
}

export type FromPackedWorker = ChunkReport | { readonly type: 'failed'; readonly message: string };
