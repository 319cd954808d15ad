import { SpecError } from '../expander.ts';

/**
 * Messages between the coordinator and its worker threads. Every worker holds the whole current BFS
 * level as live states; worker w expands the level's states at positions w, w+N, w+2N, … and reports,
 * per state, what the sequential search would have counted, plus the successors not already in the
 * shared seen-set. The coordinator merges those reports in position order — exactly the sequential
 * order — decides which successors are new, and broadcasts them as (parent position, action, parameter
 * ordinal) so every worker rebuilds the next level by re-running one action per new state.
 */

/** Per expanded parent, in a Uint32Array stream: the header, then `pairs` (action, fired) pairs. */
export const PARENT_HEADER = 4; // generated, candidates, flags, pairs
/**
 * Per candidate successor, in a Uint32Array: fingerprint hi, lo, action index, parameter ordinal, and
 * its index among its parent's successors (a search that ends at it has generated those up to it).
 */
export const CANDIDATE_WORDS = 5;
/**
 * Set in a candidate's action word for a successor outside the model's CONSTRAINT, or reached by a step
 * outside its ACTION_CONSTRAINT. Such a state is no state of the model (bfs.ts): a worker sends it only
 * when an invariant fails on it, with that invariant's index in place of the fingerprint's high half.
 * The packed search flags its candidates the same way (packedProtocol.ts).
 */
export const OUTSIDE_CONSTRAINT = 0x80000000;
/** Per new state, in the broadcast Uint32Array: parent position in its level, action, parameter ordinal. */
export const NEW_STATE_WORDS = 3;

export interface WorkerSetup {
  readonly modulePath: string;
  readonly params: Readonly<Record<string, string | number | boolean>>;
  readonly symmetry: boolean;
  readonly index: number;
  readonly count: number;
}

export type ToWorker =
  /** Start from these initial states (indexes into the model's `init()` list), in this order. */
  | { readonly type: 'start'; readonly initIndexes: Uint32Array }
  /** Expand your share of the current level, probing this seen-set. */
  | { readonly type: 'expand'; readonly seen: SharedArrayBuffer }
  /** The next level is these new states; first id `firstId`. Check your share of them. */
  | { readonly type: 'advance'; readonly newStates: Uint32Array; readonly firstId: number; readonly check: boolean }
  | { readonly type: 'stop' };

export type FromWorker =
  | { readonly type: 'ready' }
  | { readonly type: 'started' }
  | {
      readonly type: 'expanded';
      readonly parents: Uint32Array;
      readonly candidates: Uint32Array;
      /** Spec code threw while expanding the parent at this position (its partial record is last). */
      readonly error: { readonly position: number; readonly cause: SentSpecError } | null;
      /** The worker's V8 heap in use (its copy of the level lives there), counted against the memory budget. */
      readonly heapUsed: number;
    }
  | {
      readonly type: 'checked';
      /** Least id in this worker's share that breaks an invariant, and which one. */
      readonly violation: { readonly id: number; readonly invariant: number } | null;
      /** Per witness property: least id satisfying it in this worker's share, or -1. */
      readonly witnessMin: Float64Array;
      readonly error: { readonly id: number; readonly cause: SentSpecError } | null;
      readonly heapUsed: number;
    }
  | { readonly type: 'failed'; readonly message: string };

/** A spec error as a worker thread sends it (a message carries plain data only). */
export interface SentSpecError {
  readonly phase: SpecError['phase'];
  readonly detail: string;
  readonly cause: string;
}

export function sendSpecError(e: SpecError): SentSpecError {
  return { phase: e.phase, detail: e.detail, cause: e.causeError instanceof Error ? e.causeError.message : String(e.causeError) };
}

/** The error as the search in one thread would have thrown it. */
export function receiveSpecError(sent: SentSpecError): SpecError {
  return new SpecError(sent.phase, sent.detail, new Error(sent.cause));
}
