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
  /** Checker memory that is not on the V8 heap (seen-set, state log). */
  readonly offHeapBytes: number;
  readonly workers: number;
}
