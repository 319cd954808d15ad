/**
 * How a check uses the machine's cores when the user does not say (`--workers`): all of them, wherever
 * worker threads lose nothing one thread has (CheckOptions.workersByDefault; check.ts).
 *
 * Measured on 2 cores, 2 workers against one: 1.6× on TwoPhase rm=8 (1.7 million states, 5 s in one
 * thread), 1.8× on rm=9, 1.7× on KRaft with 1.3 million states; slower on searches under a second (0.65×
 * on the KIP-631 lifecycle's 0.4 s, 0.85× on replication-bench's 0.6 s): a worker thread starts about
 * 0.2 s into the search, and V8 compiles its hot code for it again, which one thread has done on the idle
 * core. A search worth waiting for is long enough.
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
