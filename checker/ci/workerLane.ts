/**
 * A lane of CI jobs in a worker thread (workerMain.ts): the local pool's lanes, and a `kmc worker`'s one
 * lane of a suite on the cluster. A thread can be ended from outside, so a check whose spec code never
 * returns is stopped at its time budget; a thread that dies fails its job, not the run.
 *
 * A lane a run is done with waits for the next run of this process (`takeLane`, `giveBack`): a thread takes
 * a few hundred milliseconds to start and load the sources, which a program running many suites (the
 * tests, `kmc ci --mutate`) would otherwise pay per run. A waiting lane does not keep the process alive.
 */
import { Worker } from 'node:worker_threads';
import type { Job, JobResult } from './job.ts';
import type { FromWorker, ToWorker } from './workerMain.ts';
import { type FoundVerdict, VERDICT_GRACE_MS } from '../engine/options.ts';

/** How long past its time budget a check in a worker thread may run before the thread is ended. */
const GRACE_MS = 2000;

/** One worker thread; replaced by a fresh one if it dies (e.g. runs out of memory). */
export class WorkerLane {
  private worker: Worker | undefined;
  /** Told to stop: every later job of this lane stops too, so it is not given to another run. */
  private stopped = false;
  private nextId = 0;
  private pending = new Map<number, { resolve: (r: JobResult) => void; reject: (e: Error) => void }>();
  /** The verdicts of the jobs under way that have one, by job id. */
  private verdicts = new Map<number, FoundVerdict>();

  private start(): Worker {
    const w = new Worker(new URL('./worker.mjs', import.meta.url));
    w.on('message', (msg: FromWorker) => {
      if (msg.type === 'verdict') return void this.verdicts.set(msg.id, msg.verdict);
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

  private fail(w: Worker, message: string, pastBudget = false): void {
    if (this.worker !== w) return;
    this.worker = undefined;
    for (const p of this.pending.values()) p.resolve({ ok: false, message, ...(pastBudget ? { pastBudget: true as const } : {}) });
    this.pending.clear();
  }

  run(job: Job): Promise<JobResult> {
    const w = (this.worker ??= this.start());
    w.ref();
    const id = this.nextId++;
    const done = new Promise<JobResult>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    w.postMessage({ type: 'job', id, job } satisfies ToWorker);
    const seconds = job.options.timeLimitSeconds;
    if (seconds === undefined) return done.finally(() => this.verdicts.delete(id));
    // A check that ignores its budget (spec code that never returns) cannot stop itself: end its thread.
    // One with its verdict, rebuilding the counterexample, has VERDICT_GRACE_MS past the budget instead.
    const startedAt = performance.now();
    const end = (): void => {
      if (!this.pending.has(id)) return;
      const verdict = this.verdicts.get(id);
      const past = (performance.now() - startedAt) / 1000 - seconds;
      if (verdict !== undefined && past * 1000 < VERDICT_GRACE_MS) {
        watchdog = setTimeout(end, VERDICT_GRACE_MS - past * 1000);
        return;
      }
      if (verdict !== undefined) {
        this.fail(w, `the check's verdict (${verdict.headline}) came within its time budget of ${seconds} s, but its counterexample was not rebuilt within ${VERDICT_GRACE_MS / 1000} s past it, so its worker thread was ended`);
      } else {
        this.fail(w, `ran past its time budget of ${seconds} s by more than ${GRACE_MS / 1000} s without returning (a step of the spec never returned), so its worker thread was ended`, true);
      }
      void w.terminate();
    };
    let watchdog = setTimeout(end, seconds * 1000 + GRACE_MS);
    return done.finally(() => {
      clearTimeout(watchdog);
      this.verdicts.delete(id);
    });
  }

  /** Asks the job under way, and every later one, to stop (they end as incomplete). */
  stop(): void {
    this.stopped = true;
    this.worker?.postMessage({ type: 'stop' } satisfies ToWorker);
  }

  /** Whether a later run can have this lane: not stopped, no job under way. */
  reusable(): boolean {
    return !this.stopped && this.pending.size === 0;
  }

  /** Between runs: the thread does not keep the process alive. */
  idle(): void {
    this.worker?.unref();
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }
}

/** Lanes waiting for the next run of this process. */
const waiting: WorkerLane[] = [];

/** A lane for a run: one that waits from an earlier run, or a new one. */
export function takeLane(): WorkerLane {
  return waiting.pop() ?? new WorkerLane();
}

/** The run is done with `lane`: it waits for the next, unless it was stopped (its later jobs would stop too). */
export async function giveBack(lane: WorkerLane): Promise<void> {
  if (!lane.reusable()) return lane.close();
  lane.idle();
  waiting.push(lane);
}
