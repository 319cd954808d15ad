/**
 * Runs CI jobs on `lanes` lanes at once: this thread plus lanes−1 worker threads, each taking the next job
 * when it finishes one. Results come back by job index, so the report is the same whatever the lanes,
 * the machine or the order jobs finished in. Checks are single-threaded searches, so on a 2-core machine
 * two lanes halve the wall time of a suite of several checks. With `cluster`, `kmc worker` processes
 * are the lanes instead (clusterPool.ts).
 */
import { executeJob, type Job, type JobResult } from './job.ts';
import { WorkerLane } from './workerLane.ts';
import { announceDeadline, tellLauncher, verdictToLauncher } from '../run/launcherChannel.ts';

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
  // A worker thread takes about a second to start (it loads the sources); a suite this thread finishes
  // sooner than that never pays for one.
  const spawn = () => {
    for (let k = workers.length + 1; k < laneCount && next < jobs.length; k++) {
      const w = new WorkerLane();
      workers.push(w);
      running.push(lane((job) => w.run(job)));
    }
  };
  // No delay means the worker threads start before this thread takes its first job: a timer, even of
  // 0 ms, waits for this thread to yield, and a suite of short checks may never yield before it ends.
  const delayMs = opts.workerDelayMs ?? WORKER_DELAY_MS;
  if (laneCount > 1 && delayMs === 0) spawn();
  const spawnTimer = laneCount > 1 && delayMs > 0 ? setTimeout(spawn, delayMs) : undefined;
  const stopTimer = opts.shouldStop
    ? setInterval(() => {
        if (opts.shouldStop!()) for (const w of workers) w.stop();
      }, 100)
    : undefined;
  try {
    await lane(async (job) => {
      // A check on this thread whose spec code never returns blocks this thread: the launcher ends the run.
      announceDeadline(job.options.timeLimitSeconds, `the time budget of ${job.specRef}${job.preset ? ` --preset ${job.preset}` : ''}`);
      try {
        return await executeJob(job, opts.shouldStop, verdictToLauncher);
      } finally {
        tellLauncher({ kind: 'no-deadline' });
      }
    });
    clearTimeout(spawnTimer);
    await Promise.all(running);
  } finally {
    clearTimeout(spawnTimer);
    if (stopTimer) clearInterval(stopTimer);
    await Promise.all(workers.map((w) => w.close()));
  }
  return { results, lanesUsed: 1 + workers.length };
}
