/**
 * A lane of CI jobs in a worker thread (workerMain.ts): the local pool's extra lanes, and a `kmc worker`'s
 * one lane of a suite on the cluster. A thread can be ended from outside, so a check whose spec code never
 * returns is stopped at its time budget; a thread that dies fails its job, not the run.
 */
import { Worker } from 'node:worker_threads';
import type { Job, JobResult } from './job.ts';
import type { FromWorker, ToWorker } from './workerMain.ts';

/** How long past its time budget a check in a worker thread may run before the thread is ended. */
const GRACE_MS = 2000;

/** One worker thread; replaced by a fresh one if it dies (e.g. runs out of memory). */
export class WorkerLane {
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

  /** Asks the job under way, and every later one, to stop (they end as incomplete). */
  stop(): void {
    this.worker?.postMessage({ type: 'stop' } satisfies ToWorker);
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }
}
