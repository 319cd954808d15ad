/**
 * `kmc ci --cluster nats://…`: the jobs of a suite (and of its mutation self-test) run by `kmc worker`
 * processes, which take them from a work queue (engine/cluster/jobQueue.ts) in the order given, so costly
 * checks still start first. Each worker runs one job at a time in a worker thread of its own (as a local
 * lane does: a spec whose code never returns is ended at its budget) and sends back the job's result, so
 * the reports are those of a local run. A job names its spec by bundled name or absolute path: a worker
 * needs the spec at the same path. Once the run is stopped, jobs not started come back as not run.
 */
import { ClusterError } from '../engine/cluster/clusterError.ts';
import { runQueue, type UnitRunner } from '../engine/cluster/jobQueue.ts';
import { ExitCode } from '../run/exitCodes.ts';
import { UserError } from '../run/userError.ts';
import type { Job, JobResult } from './job.ts';
import type { ClusterTarget, PoolOptions, PoolRun } from './pool.ts';
import { WorkerLane } from './workerLane.ts';

export async function runJobsOnCluster(cluster: ClusterTarget, jobs: readonly Job[], opts: PoolOptions): Promise<PoolRun> {
  try {
    // A job's result is null when its worker took it after the stop.
    const { results, workers } = await runQueue<Job, JobResult | null>(cluster.url, 'CI run', { kind: 'ci' }, jobs, {
      waitSeconds: cluster.waitSeconds,
      ...(opts.shouldStop ? { shouldStop: opts.shouldStop } : {}),
      onResult: (index, result) => {
        if (result) opts.onResult?.(index, result);
      },
    });
    return { results: results.map((r) => r ?? undefined), lanesUsed: workers };
  } catch (e) {
    if (e instanceof ClusterError) throw new UserError(`Cannot run the suite's checks on the cluster: ${e.message}`, ExitCode.Cluster);
    throw e;
  }
}

/** A worker's side: jobs in one worker thread, told to stop when the queue is. */
export function jobRunner(): UnitRunner<Job, JobResult | null> {
  const lane = new WorkerLane();
  return {
    run: async (job, shouldStop) => {
      const poll = setInterval(() => shouldStop() && lane.stop(), 100);
      try {
        return await lane.run(job);
      } finally {
        clearInterval(poll);
      }
    },
    notStarted: () => null,
    close: () => lane.close(),
  };
}
