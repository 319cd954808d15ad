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
export const FLAG_NOT_EXPANDED = 1; // outside the model's CONSTRAINT
/** Per candidate successor, in a Uint32Array: fingerprint hi, lo, action index, parameter ordinal. */
export const CANDIDATE_WORDS = 4;
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
      readonly error: { readonly position: number; readonly message: string } | null;
      /** The worker's V8 heap in use (its copy of the level lives there), counted against the memory budget. */
      readonly heapUsed: number;
    }
  | {
      readonly type: 'checked';
      /** Least id in this worker's share that breaks an invariant, and which one. */
      readonly violation: { readonly id: number; readonly invariant: number } | null;
      /** Per witness property: least id satisfying it in this worker's share, or -1. */
      readonly witnessMin: Float64Array;
      readonly error: { readonly id: number; readonly message: string } | null;
      readonly heapUsed: number;
    }
  | { readonly type: 'failed'; readonly message: string };
