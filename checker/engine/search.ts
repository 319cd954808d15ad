/** What a search strategy hands back to `check`: how it ended, and the counters it kept. */
import type { IncompleteReason } from './result.ts';
import type { SpecError } from './expander.ts';
import type { StateLog } from './stateLog.ts';

export type SearchEnd =
  | { readonly kind: 'complete' }
  /** `invariant` indexes the expander's `invariants`. */
  | { readonly kind: 'violation'; readonly stateId: number; readonly invariant: number }
  | { readonly kind: 'deadlock'; readonly stateId: number }
  | { readonly kind: 'incomplete'; readonly reason: IncompleteReason }
  /** Spec code threw while evaluating or expanding `stateId`. */
  | { readonly kind: 'error'; readonly stateId: number; readonly error: SpecError };

/** What a search partitioned among owners sent between them, and how long its levels waited on each other. */
export interface OwnershipFigures {
  readonly levels: number;
  readonly batches: number;
  /** Successor batches' bytes, all owners together (on a cluster, the bytes through NATS). */
  readonly bytesSent: number;
  /** Per level, median milliseconds: every owner expanding, every owner taking in, and the barrier (merging keys, ranking, committing). */
  readonly expandMs: number;
  readonly absorbMs: number;
  readonly barrierMs: number;
  /** Owner threads: per owner, the depth from which a thread of its own owned its part (null: the driver's thread throughout). */
  readonly threadsJoined?: readonly (number | null)[];
}

export interface SearchOutcome {
  readonly end: SearchEnd;
  readonly log: StateLog;
  readonly distinct: number;
  readonly generated: number;
  readonly depth: number;
  readonly queued: number;
  /** Per action index: new distinct states it produced. */
  readonly newStates: Float64Array;
  /** Per witness index: 1 when some reachable state satisfied it. */
  readonly witnessesReached: Uint8Array;
  /** Checker memory that is not on the V8 heap (seen-set, state log, packed frontier), at its most in the run. */
  readonly offHeapBytes: number;
  readonly workers: number;
  /** The search was partitioned among `workers` owners: what went between them. */
  readonly owned?: OwnershipFigures;
  /** Frontier bytes written to disk because of the memory budget. */
  readonly spilledBytes?: number;
}
