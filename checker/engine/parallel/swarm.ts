/**
 * Simulation with worker threads, as a swarm: each worker runs an independent simulation from its own
 * seed (its share of the runs). Every worker's walks depend on its seed alone, so whatever one of them
 * found is replayed, in one thread, by `kmc simulate --seed <its seed> --runs <its runs>`.
 *
 * The swarm's finding is the same on every run of one seed, however the threads are scheduled: the
 * first in the order (run, walk), see swarmOrder.ts.
 */
import { Worker } from 'node:worker_threads';
import type { Model } from '../../../spec/spec.ts';
import type { CheckLabel } from '../check.ts';
import { ConfigError } from '../check.ts';
import type { SimulationOptions } from '../simulate.ts';
import { VERDICT_GRACE_MS } from '../options.ts';
import { livenessRefusal } from '../liveness/checkLiveness.ts';
import type { ModelSource } from '../modelSource.ts';
import type { FromSwarmWorker, SwarmWorkerSetup, WalkOutcome } from './swarmProtocol.ts';
import type { WalkUnit } from './swarmWalk.ts';
import { SwarmOrder } from './swarmOrder.ts';

export interface SwarmOptions extends Pick<SimulationOptions, 'seed' | 'runs' | 'maxDepth' | 'deadlock' | 'timeLimitSeconds' | 'shouldStop' | 'onVerdict'> {
  readonly workers: number;
}

/** One worker's simulation: its seed, how many runs it was given, and how it ended. */
export interface SwarmWalk {
  readonly seed: number;
  readonly runs: number;
  readonly outcome: WalkOutcome;
}

export interface SwarmResult {
  readonly status: WalkOutcome['status'];
  /** Index in `walks` of the simulation whose outcome is the swarm's (a violation or an error), or null. */
  readonly winner: number | null;
  readonly walks: readonly SwarmWalk[];
  readonly seconds: number;
}

/** The seed of each worker: the first is the swarm's own, so one worker is the plain simulation. */
export function swarmSeeds(seed: number, workers: number): number[] {
  return Array.from({ length: workers }, (_, i) => (i === 0 ? seed >>> 0 : mixSeed(seed, i)));
}

/** The runs each worker does: `runs` shared out, the first ones taking one more when it does not divide. */
export function runsPerWorker(runs: number, workers: number): number[] {
  return Array.from({ length: workers }, (_, i) => Math.floor(runs / workers) + (i < runs % workers ? 1 : 0));
}

/** A 32-bit finaliser (murmur3's) over the seed and the worker's index: nearby seeds give unrelated seeds. */
function mixSeed(seed: number, i: number): number {
  let h = (seed ^ Math.imul(i, 0x9e3779b9)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** The swarm's walks: each its seed and share of the runs, with the simulation's bounds. */
export function walkUnits(options: Omit<SwarmOptions, 'shouldStop' | 'onVerdict'>, params: CheckLabel['params'], label: CheckLabel): WalkUnit[] {
  const n = Math.min(options.workers, options.runs);
  const seeds = swarmSeeds(options.seed, n);
  const runs = runsPerWorker(options.runs, n);
  return seeds.map((seed, i) => ({
    params,
    label,
    seed,
    runs: runs[i]!,
    maxDepth: options.maxDepth,
    ...(options.deadlock !== undefined ? { deadlock: options.deadlock } : {}),
    ...(options.timeLimitSeconds !== undefined ? { timeLimitSeconds: options.timeLimitSeconds } : {}),
  }));
}

/** How long a walk told to stop (its time limit, another's violation, Ctrl-C) has to report before the swarm ends without it. */
const STOP_GRACE_MS = 2000;

export async function simulateSwarm(model: Model<unknown>, source: ModelSource, options: SwarmOptions, label: CheckLabel): Promise<SwarmResult> {
  // The same refusal as a simulation in one thread, before any thread starts.
  const refusal = livenessRefusal(model, false);
  if (refusal !== null) throw new ConfigError(refusal);
  const startedAt = performance.now();
  const units = walkUnits(options, source.params, label);
  const n = units.length;
  const stop = new SharedArrayBuffer(4);
  const stopFlag = new Int32Array(stop);
  const order = new SwarmOrder(units.map((u) => u.runs));
  const outcomes: (WalkOutcome | undefined)[] = new Array(n).fill(undefined);
  /** The walks that said they found a violation (or an error) and are shrinking it or building its trace. */
  const verdicts: boolean[] = new Array<boolean>(n).fill(false);
  let winner: number | null = null;
  const workers: Worker[] = [];
  let poll: NodeJS.Timeout | undefined;
  const timers: NodeJS.Timeout[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      let pending = n;
      const finish = (i: number, outcome: WalkOutcome) => {
        if (outcomes[i] !== undefined) return;
        outcomes[i] = outcome;
        if (outcome.status === 'violation' || outcome.status === 'error') {
          if (winner === null) waitForEarlier();
          winner = order.winner(outcomes);
        }
        if (--pending === 0) resolve();
      };
      // The other walks get twice as long as the swarm has taken so far to reach the bounds a finding set
      // (a walk behind the others, or in a run of slow steps, may find one that comes first); one that
      // still has not reported then (a step of the spec that never returns) ends as a walk that ran
      // nothing, and the swarm reports what it has.
      const waitForEarlier = () => {
        const ms = Math.max(STOP_GRACE_MS, 2 * (performance.now() - startedAt));
        timers.push(setTimeout(() => giveUp('interrupted', false), ms));
        timers.push(setTimeout(() => giveUp('interrupted', true), ms + VERDICT_GRACE_MS));
      };
      // A walk told to stop reports within a step; one whose thread has not loaded the model cannot. Past
      // the grace, it ends as a walk that ran nothing, so the swarm never outlasts its limit or a Ctrl-C.
      // A walk with the only violation found so far gets VERDICT_GRACE_MS more to shrink it and rebuild its
      // trace, which with slow steps runs past the grace (`force` then ends it too).
      const giveUp = (reason: 'timeLimit' | 'interrupted', force: boolean) => {
        const seconds = (performance.now() - startedAt) / 1000;
        for (let i = 0; i < n; i++) {
          if (!force && verdicts[i] && (winner === null || order.before(i, winner))) continue;
          finish(i, { status: 'incomplete', reason, stats: { seed: units[i]!.seed, runs: 0, steps: 0, distinct: 0, seconds } });
        }
      };
      const giveUpAfter = (reason: 'timeLimit' | 'interrupted', ms: number) => {
        timers.push(setTimeout(() => giveUp(reason, false), ms));
        timers.push(setTimeout(() => giveUp(reason, true), ms + VERDICT_GRACE_MS));
      };
      let stopping = false;
      const stopAll = () => {
        Atomics.store(stopFlag, 0, 1);
        if (!stopping) giveUpAfter('interrupted', STOP_GRACE_MS);
        stopping = true;
      };
      if (options.timeLimitSeconds !== undefined) giveUpAfter('timeLimit', options.timeLimitSeconds * 1000 + STOP_GRACE_MS);
      for (let i = 0; i < n; i++) {
        const setup: SwarmWorkerSetup = { swarm: true, modulePath: source.modulePath, stop, bounds: order.runsBefore.buffer as SharedArrayBuffer, index: i, ...units[i]! };
        const w = new Worker(new URL('./workerEntry.mjs', import.meta.url), { workerData: setup });
        workers.push(w);
        w.on('message', (m: FromSwarmWorker) => {
          if (m.type === 'done') finish(i, m.outcome);
          else if (m.type === 'verdict') {
            // The launcher hears the finding that comes first so far: the one it reports if the run is cut short.
            if (order.found(i, m.run)) options.onVerdict?.(m.verdict);
            verdicts[i] = true;
          } else reject(new Error(`a simulation worker failed: ${m.message}`));
        });
        w.on('error', (e) => reject(new Error(`a simulation worker failed: ${e.message}`)));
        w.on('exit', (code) => {
          if (outcomes[i] === undefined) reject(new Error(`a simulation worker exited (code ${code}) without a result`));
        });
      }
      // Ctrl-C reaches this thread only: pass it on.
      if (options.shouldStop) poll = setInterval(() => options.shouldStop!() && stopAll(), 50);
    });
  } finally {
    if (poll) clearInterval(poll);
    for (const t of timers) clearTimeout(t);
    await Promise.all(workers.map((w) => w.terminate()));
  }
  const walks = outcomes.map((outcome, i) => ({ seed: units[i]!.seed, runs: units[i]!.runs, outcome: order.reported(i, outcome!, winner) }));
  const status: WalkOutcome['status'] =
    winner !== null ? walks[winner]!.outcome.status : walks.some((w) => w.outcome.status === 'incomplete') ? 'incomplete' : 'holds';
  return { status, winner, walks, seconds: (performance.now() - startedAt) / 1000 };
}

