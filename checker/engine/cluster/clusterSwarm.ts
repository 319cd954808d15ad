/**
 * `kmc simulate --cluster nats://… --workers N`: the swarm of N seeded walks (parallel/swarm.ts), its
 * walks handed out to `kmc worker` processes through a work-queue stream. Every walk has the seed and
 * runs it has in a swarm of threads, so whatever a worker finds is replayed alone by
 * `kmc simulate --seed <its seed> --runs <its runs>`. The swarm's finding is the first in the order
 * (run, walk), as with threads (parallel/swarmOrder.ts): a finding bounds every walk, the bounds go out to
 * the workers (a walk not started by then runs up to its bound), and the figures of a walk that went past
 * its bound are cut back to it. A walk whose worker dies goes back to the queue (jobQueue.ts).
 */
import { hostname } from 'node:os';
import type { ModelSource } from '../modelSource.ts';
import type { CheckLabel } from '../check.ts';
import { type SwarmOptions, type SwarmResult, walkUnits } from '../parallel/swarm.ts';
import type { WalkOutcome } from '../parallel/swarmProtocol.ts';
import type { FoundVerdict } from '../options.ts';
import { runWalk, type WalkUnit } from '../parallel/swarmWalk.ts';
import { SwarmOrder } from '../parallel/swarmOrder.ts';
import { loadSpec } from '../../run/loadSpec.ts';
import { specForWorkers } from './natsOwners.ts';
import { type QueueOffer, runQueue, type UnitRunner } from './jobQueue.ts';
import { fileDifference } from './specIdentity.ts';
import { type SourceFile, specSources } from '../specSources.ts';

/** What a walk tells the driver when it finds a violation or an error: the verdict, and the run (from 0) it came in. */
interface WalkNotice {
  readonly verdict: FoundVerdict;
  readonly run: number;
}

/** What a driver offers a worker: to take walks of a swarm from its queue. */
export interface SwarmOffer extends QueueOffer {
  readonly kind: 'swarm';
  readonly spec: string;
  /** The digest of the driver's spec sources (specIdentity.ts): a worker with another copy does not join. */
  readonly file: string;
  /** Those sources one by one, to name the one that differs. */
  readonly sources?: readonly SourceFile[];
}

export async function clusterSwarm(url: string, source: ModelSource, options: SwarmOptions & { readonly waitSeconds: number }, label: CheckLabel): Promise<SwarmResult> {
  const startedAt = performance.now();
  const units = walkUnits(options, source.params, label);
  const outcomes: (WalkOutcome | undefined)[] = new Array(units.length).fill(undefined);
  const order = new SwarmOrder(units.map((u) => u.runs), new ArrayBuffer(4 * units.length));
  const sources = specSources(source.modulePath);
  const { results } = await runQueue<WalkUnit, WalkOutcome>(url, 'swarm', { kind: 'swarm', spec: specForWorkers(source), file: sources.digest, sources: sources.files }, units, {
    waitSeconds: options.waitSeconds,
    ...(options.shouldStop ? { shouldStop: options.shouldStop } : {}),
    bounds: () => [...order.runsBefore],
    // A walk's verdict, before it shrinks it and builds its trace: the launcher hears the one that comes first so far.
    onNotice: (index, notice) => {
      const { verdict, run } = notice as WalkNotice;
      if (order.found(index, run)) options.onVerdict?.(verdict);
    },
    onResult: (index, outcome) => {
      outcomes[index] = outcome;
      order.winner(outcomes);
    },
  });
  const winner = order.winner(results);
  const walks = results.map((outcome, i) => ({ seed: units[i]!.seed, runs: units[i]!.runs, outcome: order.reported(i, outcome, winner) }));
  const status: WalkOutcome['status'] =
    winner !== null ? walks[winner]!.outcome.status : walks.some((w) => w.outcome.status === 'incomplete') ? 'incomplete' : 'holds';
  return { status, winner, walks, seconds: (performance.now() - startedAt) / 1000 };
}

/** A worker's side of a swarm: the offered spec's walks, each up to the bound the driver sets it; one taken after a stop (Ctrl-C, the time limit) ends at once, interrupted. */
export async function walkRunner(offer: SwarmOffer): Promise<UnitRunner<WalkUnit, WalkOutcome>> {
  let loaded;
  try {
    loaded = await loadSpec(offer.spec);
  } catch (e) {
    throw new Error(`cannot load the spec ${offer.spec}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const { definition, modulePath } = loaded;
  const difference = fileDifference(modulePath, offer);
  if (difference !== null) throw new Error(`${hostname()} (pid ${process.pid}) has another spec than the driver's: ${difference}`);
  return {
    run: (unit, shouldStop, tell, bound) => runWalk(definition, unit, { shouldStop, runsBefore: bound }, (verdict, run) => tell({ verdict, run } satisfies WalkNotice)),
    notStarted: (unit) => ({ status: 'incomplete', reason: 'interrupted', stats: { seed: unit.seed, runs: 0, steps: 0, distinct: 0, seconds: 0 } }),
  };
}
