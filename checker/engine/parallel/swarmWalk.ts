/**
 * One walk of a swarm: a seeded simulation of its share of the runs, ended as the others are told to stop,
 * with its counterexample as ITF (plain JSON, which crosses threads and networks as it is). A worker
 * thread (swarmWorker.ts) and a cluster's worker process (cluster/natsWorker.ts) run the same.
 */
import type { SpecDefinition } from '../../../spec/spec.ts';
import { simulate } from '../simulate.ts';
import { toItf } from '../../../traces/itf/write.ts';
import type { CheckLabel } from '../check.ts';
import type { WalkOutcome } from './swarmProtocol.ts';
import type { FoundVerdict } from '../options.ts';

/** A walk's share of a swarm: its seed and runs, and the simulation's bounds. */
export interface WalkUnit {
  readonly params: CheckLabel['params'];
  readonly label: CheckLabel;
  readonly seed: number;
  readonly runs: number;
  readonly maxDepth: number;
  readonly deadlock?: boolean;
  readonly timeLimitSeconds?: number;
}

/** How a walk hears from its swarm: stop at once, and (threads) the first run not to start. */
export interface WalkControl {
  readonly shouldStop: () => boolean;
  readonly runsBefore?: () => number;
}

export async function runWalk(definition: SpecDefinition<unknown>, unit: WalkUnit, control: WalkControl, onVerdict?: (verdict: FoundVerdict, run: number) => void): Promise<WalkOutcome> {
  let foundIn = -1;
  const r = await simulate(
    definition.build(unit.params),
    {
      seed: unit.seed,
      runs: unit.runs,
      maxDepth: unit.maxDepth,
      ...(unit.deadlock !== undefined ? { deadlock: unit.deadlock } : {}),
      ...(unit.timeLimitSeconds !== undefined ? { timeLimitSeconds: unit.timeLimitSeconds } : {}),
      shouldStop: control.shouldStop,
      ...(control.runsBefore ? { runsBefore: control.runsBefore } : {}),
      onFoundInRun: (run) => (foundIn = run),
      ...(onVerdict ? { onVerdict: (verdict: FoundVerdict) => onVerdict(verdict, foundIn) } : {}),
    },
    unit.label,
  );
  return r.status === 'violation' || r.status === 'error' ? ({ ...r, ...(r.trace ? { trace: toItf(r.trace) } : {}) } as WalkOutcome) : r;
}
