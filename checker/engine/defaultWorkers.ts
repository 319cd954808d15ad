/**
 * How many worker threads a check uses when the user does not say. Measured with `npm run bench` on a
 * 2-vCPU machine, workers made searches slower (their level-by-level hand-offs cost more than the second
 * vCPU gives), so small machines search in one thread; machines with 4 or more cores use them all.
 */
import { availableParallelism } from 'node:os';

export const MIN_CORES_FOR_WORKERS = 4;

export function defaultWorkers(cores = availableParallelism()): number {
  return cores >= MIN_CORES_FOR_WORKERS ? cores : 1;
}
