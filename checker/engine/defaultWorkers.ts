/**
 * How a check uses the machine's cores when the user does not say (`--workers`): all of them, wherever
 * worker threads lose nothing one thread has (CheckOptions.workersByDefault; check.ts).
 *
 * Measured on 2 cores, 2 workers (two owners of the partitioned search, one a thread) against one
 * thread, medians of three: 1.25× on TwoPhase rm=8 (1.7 million states, 7.4 s in one thread), 1.14× on
 * KRaft with two client values (468,131 states, 9.4 s). Shorter searches lose: kraft-bench (2.4 s)
 * 0.8×, a preset of 0.6 s 0.8× (0.57 s against 0.71 s, the whole command). A thread is a V8 isolate of
 * its own, which loads the model (0.45 s beside a busy search) and compiles its hot code again: on
 * kraft-bench about 1.5 s of CPU (one thread with V8's compiler moved onto it took 4.5 s instead of 3.0),
 * so two workers there spend 5.6 s of CPU against 3.8 (per thread: 1.8 s and 1.6 s of search, 2.3 s in
 * V8's helper threads, against 2.7 s and 1.1 s). Starting the threads later, or the search as one part
 * split when a thread is ready, was measured too: short runs gained a few hundredths of a second, runs of
 * 3 s lost a tenth more, and the code compiled for one part is compiled again once there are two.
 * The seconds a short search loses are few; those a long one gains are many.
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
