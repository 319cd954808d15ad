/**
 * Runs CI jobs on `lanes` lanes at once, each a worker thread taking the next job when it finishes one.
 * Results come back by job index, so the report is the same whatever the lanes, the machine or the order
 * jobs finished in. Checks are single-threaded searches, so on a 2-core machine two lanes halve the wall
 * time of a suite of several checks. With `cluster`, `kmc worker` processes are the lanes instead
 * (clusterPool.ts).
 *
 * No check runs on this thread, even on one lane: a check whose spec's code never returns is ended with
 * its thread at its time budget and the run goes on to report every other check (workerLane.ts). On this
 * thread it held the whole run, which only the launcher could end, with no report written.
 */
import type { Job, JobResult } from './job.ts';
import { giveBack, takeLane, type WorkerLane } from './workerLane.ts';

/** A NATS server whose `kmc worker` processes run the jobs, and how long to wait for the first to join. */
export interface ClusterTarget {
  readonly url: string;
  readonly waitSeconds: number;
}

export interface PoolOptions {
  readonly lanes: number;
  /**
   * Asked before each job starts; false leaves the job's result undefined (e.g. a total budget is spent).
   * Not asked on a cluster, where `shouldStop` alone says when no more jobs start: give both or neither.
   */
  readonly canStart?: (index: number) => boolean;
  readonly onResult?: (index: number, result: JobResult) => void;
  /** Polled by running searches (Ctrl-C); a stopped search ends as `incomplete`. */
  readonly shouldStop?: () => boolean;
  /** How long this thread works alone before worker threads join (default 400 ms; 0 starts them at once). */
  readonly workerDelayMs?: number;
  /** Run the jobs on `kmc worker` processes instead of lanes of this machine. */
  readonly cluster?: ClusterTarget;
}

const WORKER_DELAY_MS = 400;

export interface PoolRun {
  /** By job index; undefined for a job that was not started. */
  readonly results: readonly (JobResult | undefined)[];
  /** Lanes that ran jobs: this thread plus the worker threads started. */
  readonly lanesUsed: number;
}

export async function runJobs(jobs: readonly Job[], opts: PoolOptions): Promise<PoolRun> {
  if (opts.cluster) return (await import('./clusterPool.ts')).runJobsOnCluster(opts.cluster, jobs, opts);
  const results: (JobResult | undefined)[] = jobs.map(() => undefined);
  let next = 0;
  const take = (): number => {
    while (next < jobs.length) {
      const i = next++;
      if (!opts.canStart || opts.canStart(i)) return i;
    }
    return -1;
  };
  const lane = async (run: (job: Job) => Promise<JobResult>) => {
    for (let i = take(); i >= 0; i = take()) {
      const r = await run(jobs[i]!);
      results[i] = r;
      opts.onResult?.(i, r);
    }
  };
  const laneCount = Math.max(1, Math.min(opts.lanes, jobs.length));
  const workers: WorkerLane[] = [];
  const running: Promise<void>[] = [];
  const spawn = (upTo: number) => {
    for (let k = workers.length; k < upTo && next < jobs.length; k++) {
      const w = takeLane();
      workers.push(w);
      running.push(lane((job) => w.run(job)));
    }
  };
  // A worker thread takes a few hundred milliseconds to start (it loads the sources): the other lanes join a
  // moment after the first, so a suite the first lane finishes sooner than that never pays for them.
  const delayMs = opts.workerDelayMs ?? WORKER_DELAY_MS;
  spawn(delayMs === 0 ? laneCount : 1);
  const spawnTimer = laneCount > 1 && delayMs > 0 ? setTimeout(() => spawn(laneCount), delayMs) : undefined;
  const stopTimer = opts.shouldStop
    ? setInterval(() => {
        if (opts.shouldStop!()) for (const w of workers) w.stop();
      }, 100)
    : undefined;
  try {
    // The lanes started later join `running` as they start: wait until no lane is left to wait for.
    for (let waited = -1; waited < running.length; ) {
      waited = running.length;
      await Promise.all(running);
    }
  } finally {
    clearTimeout(spawnTimer);
    if (stopTimer) clearInterval(stopTimer);
    await Promise.all(workers.map((w) => giveBack(w)));
  }
  return { results, lanesUsed: workers.length };
}
