/**
 * How a check uses the machine's cores when the user does not say (`--workers`): all of them, wherever
 * worker threads lose nothing one thread has (CheckOptions.workersByDefault; check.ts).
 *
 * Measured on 2 cores, 2 workers (two owners of the partitioned search, one a thread) against one
 * thread, medians of three: 1.25× on TwoPhase rm=8 (1.7 million states, 7.4 s in one thread), 1.14× on
 * KRaft with two client values (468,131 states, 9.4 s). A worker thread takes its part a few tenths of
 * a second into the search, once it has loaded the model, and V8 compiles its hot code for it again, so
 * searches under a second or two gain nothing. A search worth waiting for is long enough.
 */
import { availableParallelism } from 'node:os';

export interface WorkerPlan {
  readonly workers: number;
  /** The workers are the default, not asked for (CheckOptions.workersByDefault). */
  readonly workersByDefault?: true;
}

export function defaultWorkers(cores = availableParallelism()): WorkerPlan {
  return cores > 1 ? { workers: cores, workersByDefault: true } : { workers: 1 };
}
