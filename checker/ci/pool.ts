/**
 * Runs CI jobs on `lanes` lanes at once: this thread plus lanes−1 worker threads, each taking the next job
 * when it finishes one. Results come back by job index, so the report is the same whatever the lanes,
 * the machine or the order jobs finished in. Checks are single-threaded searches, so on a 2-core machine
 * two lanes halve the wall time of a suite of several checks.
 */
import { Worker } from 'node:worker_threads';
import { executeJob, type Job, type JobResult } from './job.ts';
import type { FromWorker, ToWorker } from './workerMain.ts';
import { announceDeadline, tellLauncher } from '../run/launcherChannel.ts';

/** How long past its time budget a check in a worker thread may run before the thread is ended. */
const GRACE_MS = 2000;

export interface PoolOptions {
  readonly lanes: number;
  /** Asked before each job starts; false leaves the job's result undefined (e.g. a total budget is spent). */
  readonly canStart?: (index: number) => boolean;
  readonly onResult?: (index: number, result: JobResult) => void;
  /** Polled by running searches (Ctrl-C); a stopped search ends as `incomplete`. */
  readonly shouldStop?: () => boolean;
  /** How long this thread works alone before worker threads join (default 400 ms; 0 starts them at once). */
  readonly workerDelayMs?: number;
}

const WORKER_DELAY_MS = 400;

export interface PoolRun {
  /** By job index; undefined for a job that was not started. */
  readonly results: readonly (JobResult | undefined)[];
  /** Lanes that ran jobs: this thread plus the worker threads started. */
  readonly lanesUsed: number;
}

export async function runJobs(jobs: readonly Job[], opts: PoolOptions): Promise<PoolRun> {
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
        return await executeJob(job, opts.shouldStop);
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

/** One worker thread; replaced by a fresh one if it dies (e.g. runs out of memory). */
class WorkerLane {
  private worker: Worker | undefined;
  private nextId = 0;
  private pending = new Map<number, { resolve: (r: JobResult) => void; reject: (e: Error) => void }>();

  private start(): Worker {
    const w = new Worker(new URL('./worker.mjs', import.meta.url));
    w.on('message', (msg: FromWorker) => {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      if (msg.type === 'result') p.resolve(msg.result);
      else p.reject(new Error(`a CI worker thread failed: ${msg.error}`));
    });
    w.on('error', (e) => this.fail(w, `the worker thread running it died: ${e.message}`));
    w.on('exit', (code) => this.fail(w, `the worker thread running it exited (code ${code})`));
    return w;
  }

  private fail(w: Worker, message: string): void {
    if (this.worker !== w) return;
    this.worker = undefined;
    for (const p of this.pending.values()) p.resolve({ ok: false, message });
    this.pending.clear();
  }

  run(job: Job): Promise<JobResult> {
    const w = (this.worker ??= this.start());
    const id = this.nextId++;
    const done = new Promise<JobResult>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    w.postMessage({ type: 'job', id, job } satisfies ToWorker);
    const seconds = job.options.timeLimitSeconds;
    if (seconds === undefined) return done;
    // A check that ignores its budget (spec code that never returns) cannot stop itself: end its thread.
    const watchdog = setTimeout(() => {
      if (!this.pending.has(id)) return;
      this.fail(w, `the check ran past its time budget of ${seconds} s by more than ${GRACE_MS / 1000} s without returning (the spec's code never returned from a step), so its worker thread was ended`);
      void w.terminate();
    }, seconds * 1000 + GRACE_MS);
    return done.finally(() => clearTimeout(watchdog));
  }

  stop(): void {
    this.worker?.postMessage({ type: 'stop' } satisfies ToWorker);
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }
}
