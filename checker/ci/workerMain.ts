/** A worker thread of the CI pool: runs the jobs it is sent, one at a time, and posts back each result. */
import { parentPort } from 'node:worker_threads';
import { executeJob, type Job } from './job.ts';
import type { FoundVerdict } from '../engine/options.ts';

export type ToWorker = { readonly type: 'job'; readonly id: number; readonly job: Job } | { readonly type: 'stop' };
export type FromWorker =
  | { readonly type: 'result'; readonly id: number; readonly result: Awaited<ReturnType<typeof executeJob>> }
  /** The job has its verdict and rebuilds the counterexample, which may run past its budget (workerLane.ts). */
  | { readonly type: 'verdict'; readonly id: number; readonly verdict: FoundVerdict }
  | { readonly type: 'crash'; readonly id: number; readonly error: string };

const port = parentPort!;
let stopped = false;
port.on('message', (msg: ToWorker) => {
  if (msg.type === 'stop') {
    stopped = true;
    return;
  }
  executeJob(msg.job, () => stopped, (verdict) => port.postMessage({ type: 'verdict', id: msg.id, verdict } satisfies FromWorker)).then(
    (result) => port.postMessage({ type: 'result', id: msg.id, result } satisfies FromWorker),
    (e: unknown) => port.postMessage({ type: 'crash', id: msg.id, error: e instanceof Error ? (e.stack ?? e.message) : String(e) } satisfies FromWorker),
  );
});
