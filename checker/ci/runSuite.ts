/**
 * Runs every check of a suite, in parallel lanes, and says for each what its result means for the gate.
 * The outcome list is in suite order and depends only on the suite and the specs, never on timing
 * (except for checks that run out of a time budget).
 */
import { availableParallelism } from 'node:os';
import type { Job } from './job.ts';
import { classify, failedToRun, notRun, ranPastBudget, skippedOutcome, type CheckOutcome } from './outcome.ts';
import { type ClusterTarget, runJobs } from './pool.ts';
import type { Suite, SuiteCheck } from './suite.ts';

export interface RunOptions {
  /** Checks at once (this thread plus worker threads); default: the machine's cores. */
  readonly lanes?: number;
  readonly shouldStop?: () => boolean;
  /** Called as each check finishes, in finishing order (for a progress display). */
  readonly onOutcome?: (o: CheckOutcome) => void;
  /**
   * Expected cost of a check (e.g. its distinct states in the baseline); costly checks start first so
   * that no long check starts last and runs alone. Unknown costs count as the highest.
   */
  readonly costOf?: (check: SuiteCheck) => number | undefined;
  /** See `PoolOptions.workerDelayMs`. */
  readonly workerDelayMs?: number;
  /** Run the checks on `kmc worker` processes (`lanes` and `workerDelayMs` are then this machine's, unused). */
  readonly cluster?: ClusterTarget;
}

export interface SuiteRun {
  readonly suite: Suite;
  readonly outcomes: readonly CheckOutcome[];
  /** Wall-clock seconds of the whole run. */
  readonly seconds: number;
  /** Lanes that ran checks (1 when this thread finished before worker threads were worth starting; on a cluster, the workers). */
  readonly lanes: number;
}

export function jobOf(check: SuiteCheck): Job {
  return {
    specRef: check.specRef,
    ...(check.preset !== undefined ? { preset: check.preset } : {}),
    params: Object.entries(check.params).map(([k, v]) => `${k}=${String(v)}`),
    options: {
      ...(check.budget.timeSeconds !== undefined ? { timeLimitSeconds: check.budget.timeSeconds } : {}),
      ...(check.budget.maxStates !== undefined ? { maxStates: check.budget.maxStates } : {}),
      ...(check.budget.maxDepth !== undefined ? { maxDepth: check.budget.maxDepth } : {}),
      ...check.options,
      // Parallelism is across checks; each search stays on one thread.
      workers: 1,
    },
  };
}

export async function runSuite(suite: Suite, opts: RunOptions = {}): Promise<SuiteRun> {
  const started = performance.now();
  const lanes = opts.lanes ?? availableParallelism();
  const toRun = suite.checks.filter((c) => c.skip === undefined);
  const cost = toRun.map((c) => opts.costOf?.(c) ?? Infinity);
  const order = toRun.map((_, i) => i).sort((a, b) => (cost[a] === cost[b] ? a - b : cost[b]! > cost[a]! ? 1 : -1));
  const jobs = order.map((i) => jobOf(toRun[i]!));
  const byCheck = new Map<SuiteCheck, CheckOutcome>();
  const pool = await runJobs(jobs, {
    lanes,
    ...(opts.workerDelayMs !== undefined ? { workerDelayMs: opts.workerDelayMs } : {}),
    ...(opts.cluster ? { cluster: opts.cluster } : {}),
    ...(opts.shouldStop ? { shouldStop: opts.shouldStop, canStart: () => !opts.shouldStop!() } : {}),
    onResult: (j, r) => {
      const check = toRun[order[j]!]!;
      const o = r.ok ? classify(check, r.report, r.descriptions) : r.pastBudget ? ranPastBudget(check, r.message) : failedToRun(check, r.message);
      byCheck.set(check, o);
      opts.onOutcome?.(o);
    },
  });
  const outcomes = suite.checks.map((c) => (c.skip !== undefined ? skippedOutcome(c) : (byCheck.get(c) ?? notRun(c))));
  return { suite, outcomes, seconds: (performance.now() - started) / 1000, lanes: pool.lanesUsed };
}
