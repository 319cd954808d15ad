import { SpecError } from '../expander.ts';

/**
 * Messages between the coordinator and its worker threads, for states that are Immutable.js values (they
 * cannot be sent as bytes). Each worker holds its share of the current BFS level as live states, expands
 * them in position order and reports, per state, what the sequential search would have counted, plus the
 * successors not already in the shared seen-set. The coordinator merges those reports in position order —
 * exactly the sequential order — and decides which successors are new. A new state belongs to the worker
 * that expanded its parent: that worker makes it again from its parent (one action re-run), checks it and
 * expands it next. So no worker holds or makes more than its share of a level.
 *
 * The levels searched in one thread before the workers start are rebuilt in every worker by re-running
 * one action per state (parent position, action, parameter ordinal); each worker then keeps the states at
 * positions w, w+N, w+2N, … of the last one.
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
/** Per new state, in the coordinator's record of a level and in a replayed level: parent position in its level, action, parameter ordinal. */
export const NEW_STATE_WORDS = 3;
/**
 * Per state of a worker's share of the next level: its parent's index in the worker's share of the current
 * level, action, parameter ordinal, and its position in the next level.
 */
export const KEEP_WORDS = 4;

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
  /** The next level searched in one thread is these states (NEW_STATE_WORDS each), from the current one. */
  | { readonly type: 'replay'; readonly newStates: Uint32Array }
  /** Keep your share of the level last replayed: positions index, index + count, … */
  | { readonly type: 'share' }
  /** Expand your share of the current level, probing this seen-set. */
  | { readonly type: 'expand'; readonly seen: SharedArrayBuffer }
  /**
   * Your share of the next level, whose first state has id `firstId`: these successors of your share of
   * the current one (KEEP_WORDS each, in position order). Make them and check them.
   */
  | { readonly type: 'advance'; readonly keep: Uint32Array; readonly firstId: number }
  | { readonly type: 'stop' };

export type FromWorker =
  | { readonly type: 'ready' }
  | { readonly type: 'started' }
  | { readonly type: 'replayed' }
  | {
      readonly type: 'expanded';
      readonly parents: Uint32Array;
      readonly candidates: Uint32Array;
      /** Spec code threw while expanding the parent at this position (its partial record is last). */
      readonly error: { readonly position: number; readonly cause: SentSpecError } | null;
      /** The worker's V8 heap in use (its share of the level lives there), counted against the memory budget. */
      readonly heapUsed: number;
    }
  | {
      readonly type: 'checked';
      /** Least id in this worker's share of the new level that breaks an invariant, and which one. */
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
