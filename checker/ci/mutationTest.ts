/**
 * `kmc ci --mutate`: the suite's self-test. For each check that must hold, every mutant (one action
 * disabled, or one guard dropped) is checked under a small budget. A mutant is killed when some property
 * fails, the spec throws (a dropped guard let an effect run where it was never meant to) or a deadlock
 * appears; it survives when everything still holds. Then, per invariant (and per step property), each
 * mutant killed by something else is checked against that property alone, so the report can say which
 * mutants each catches and which survive it. A property that no mutant violates is probably vacuous.
 */
import type { Model } from '../../spec/spec.ts';
import { prepareCheck } from '../run/runCheck.ts';
import type { CheckReport } from '../run/report.ts';
import type { Job, JobResult } from './job.ts';
import { describeMutation, mutationsOf, type Mutation } from './mutate.ts';
import type { CheckOutcome } from './outcome.ts';
import { type ClusterTarget, runJobs } from './pool.ts';
import { jobOf } from './runSuite.ts';
import type { SuiteCheck } from './suite.ts';

export interface MutationBudget {
  /** Distinct states per mutant (never more than the check's own budget). */
  readonly mutantStates: number;
  /** Seconds per mutant (never more than the check's own budget). */
  readonly mutantSeconds: number;
  /** Seconds for the whole self-test; mutants not started by then are reported as not run. */
  readonly totalSeconds: number;
}

export const DEFAULT_MUTATION_BUDGET: MutationBudget = { mutantStates: 200_000, mutantSeconds: 20, totalSeconds: 120 };

export type Fate =
  | { readonly kind: 'killed'; readonly by: string; readonly how: 'always' | 'everyStep' | 'deadlock' | 'sometimes' | 'liveness' }
  | { readonly kind: 'error'; readonly message: string }
  | { readonly kind: 'survived' }
  | { readonly kind: 'unknown'; readonly reason: string };

export interface MutantResult {
  readonly check: string;
  readonly mutation: Mutation;
  readonly label: string;
  readonly fate: Fate;
}

export interface InvariantResult {
  readonly check: string;
  /** The invariant's name, or a step property's (`step`). */
  readonly invariant: string;
  readonly step?: true;
  readonly description: string;
  /** The check is bounded: surviving means no violation within its bound. */
  readonly bounded: boolean;
  /** Mutants that violate this invariant. */
  readonly killedBy: readonly string[];
  /** Mutants that keep this invariant true (on every state explored, to completion or to the bound). */
  readonly survivors: readonly string[];
  /** Mutants whose effect on this invariant is unknown (budget, not run, or the spec threw first). */
  readonly unknown: readonly string[];
}

export interface MutationReport {
  readonly budget: MutationBudget;
  readonly mutants: readonly MutantResult[];
  readonly invariants: readonly InvariantResult[];
  /** Checks not mutated, and why. */
  readonly skipped: readonly { readonly check: string; readonly reason: string }[];
  readonly seconds: number;
  /** True when the total budget ran out before every mutant was checked. */
  readonly truncated: boolean;
}

interface Subject {
  readonly check: SuiteCheck;
  readonly model: Model<unknown>;
  readonly mutations: readonly Mutation[];
  readonly baseDistinct: number;
}

export async function mutationTest(
  outcomes: readonly CheckOutcome[],
  budget: MutationBudget,
  opts: { lanes: number; cluster?: ClusterTarget; shouldStop?: () => boolean; onProgress?: (done: number, total: number) => void },
): Promise<MutationReport> {
  const started = performance.now();
  const deadline = started + budget.totalSeconds * 1000;
  const outOfTime = () => performance.now() > deadline || (opts.shouldStop?.() ?? false);
  const skipped: { check: string; reason: string }[] = [];
  const subjects: Subject[] = [];
  for (const o of outcomes) {
    const c = o.check;
    if (c.expect.verdict !== 'holds') skipped.push({ check: c.name, reason: 'expected to violate a property: mutants of a broken design say nothing' });
    else if (o.kind !== 'pass') skipped.push({ check: c.name, reason: `the check itself did not pass (${o.got})` });
    else {
      const p = await prepareCheck({ spec: c.specRef, ...(c.preset !== undefined ? { preset: c.preset } : {}), params: jobOf(c).params });
      subjects.push({ check: c, model: p.model, mutations: mutationsOf(p.model), baseDistinct: o.report?.distinct ?? 0 });
    }
  }

  // Pass 1: every mutant with every property.
  const first = subjects.flatMap((s) => s.mutations.map((m) => ({ s, m })));
  const firstJobs = first.map(({ s, m }) => mutantJob(s, m, budget));
  let done = 0;
  const pool = { lanes: opts.lanes, cluster: opts.cluster, canStart: () => !outOfTime(), shouldStop: outOfTime };
  const { results: firstResults } = await runJobs(firstJobs, { ...pool, onResult: () => opts.onProgress?.(++done, firstJobs.length) });
  const mutants: MutantResult[] = first.map(({ s, m }, i) => ({ check: s.check.name, mutation: m, label: describeMutation(m), fate: fateOf(firstResults[i], s.check) }));

  // Pass 2: each invariant against each mutant some other property killed first. Invariants nothing has
  // killed yet go first: whether they can fail at all is the question that matters most.
  // Step properties too: like an invariant, one that no mutant breaks says little.
  const invariants = subjects.flatMap((s) =>
    s.model.properties
      .filter((p) => p.kind === 'always' || p.kind === 'everyStep')
      .map((p) => ({ s, name: p.name, description: p.description, ...(p.kind === 'everyStep' ? { step: true as const } : {}) })),
  );
  const firstFate = new Map(first.map(({ s, m }, i) => [key(s.check.name, m), mutants[i]!.fate]));
  const killedInFirst = (inv: { s: Subject; name: string }) =>
    inv.s.mutations.some((m) => {
      const f = firstFate.get(key(inv.s.check.name, m));
      return f?.kind === 'killed' && f.by === inv.name;
    });
  const second = invariants
    .map((inv, order) => ({ inv, order, eager: killedInFirst(inv) ? 1 : 0 }))
    .sort((a, b) => a.eager - b.eager || a.order - b.order)
    .flatMap(({ inv }) =>
      inv.s.mutations
        .filter((m) => {
          const f = firstFate.get(key(inv.s.check.name, m))!;
          return f.kind === 'killed' && f.by !== inv.name;
        })
        .map((m) => ({ inv, m })),
    );
  const secondJobs = second.map(({ inv, m }) => ({ ...mutantJob(inv.s, m, budget), onlyProperty: inv.name }));
  const { results: secondResults } = await runJobs(secondJobs, pool);
  const secondFate = new Map(second.map(({ inv, m }, i) => [key(inv.s.check.name, m, inv.name), fateOf(secondResults[i], inv.s.check)]));

  const invariantResults: InvariantResult[] = invariants.map((inv) => {
    const killedBy: string[] = [];
    const survivors: string[] = [];
    const unknown: string[] = [];
    for (const m of inv.s.mutations) {
      const f1 = firstFate.get(key(inv.s.check.name, m))!;
      const f = f1.kind === 'killed' && f1.by !== inv.name ? secondFate.get(key(inv.s.check.name, m, inv.name))! : f1;
      const label = describeMutation(m);
      if (f.kind === 'killed' && f.by === inv.name) killedBy.push(label);
      else if (f.kind === 'survived') survivors.push(label);
      else unknown.push(label);
    }
    return { check: inv.s.check.name, invariant: inv.name, ...(inv.step ? { step: true as const } : {}), description: inv.description, bounded: inv.s.check.bounded, killedBy, survivors, unknown };
  });
  const truncated = [...firstResults, ...secondResults].some((r) => r === undefined) || mutants.some((m) => m.fate.kind === 'unknown' && m.fate.reason === 'interrupted');
  return { budget, mutants, invariants: invariantResults, skipped, seconds: (performance.now() - started) / 1000, truncated };
}

function key(check: string, m: Mutation, invariant = ''): string {
  return `${check}\u0000${m.kind}\u0000${m.index}\u0000${invariant}`;
}

function mutantJob(s: Subject, m: Mutation, budget: MutationBudget): Job {
  const base = jobOf(s.check);
  // A mutant may explore a little more than the original; a blow-up far past it is not worth waiting for.
  const states = Math.min(budget.mutantStates, s.check.budget.maxStates ?? Infinity, Math.max(1000, s.baseDistinct * 4));
  const seconds = Math.min(budget.mutantSeconds, s.check.budget.timeSeconds ?? Infinity);
  return { ...base, options: { ...base.options, maxStates: states, timeLimitSeconds: seconds }, mutation: m };
}

/** What a mutant's check says of it: a property killed it, the spec threw, it survived, or nobody knows. */
export function fateOf(r: JobResult | undefined, check: SuiteCheck): Fate {
  if (!r) return { kind: 'unknown', reason: 'not run (total budget spent)' };
  // The check did not run to a verdict (a step that never returned, ended by the watchdog; kmc itself
  // failing): nothing says the mutant was noticed, so it is not counted killed.
  if (!r.ok) return { kind: 'unknown', reason: r.message };
  const rep: CheckReport = r.report;
  switch (rep.status) {
    case 'holds':
      return { kind: 'survived' };
    case 'violation':
      return { kind: 'killed', by: rep.property ?? '?', how: rep.kind ?? 'always' };
    case 'error':
      return { kind: 'error', message: rep.message ?? '' };
    case 'incomplete':
      // Within a bounded check's own bound, no violation is as good as holding.
      if (check.bounded && (rep.reason === 'maxStates' || rep.reason === 'maxDepth') && withinCheckBound(rep, check)) return { kind: 'survived' };
      return { kind: 'unknown', reason: rep.reason === 'interrupted' ? 'interrupted' : `${rep.reason} budget` };
  }
}

function withinCheckBound(rep: CheckReport, check: SuiteCheck): boolean {
  return rep.reason === 'maxDepth' || (check.budget.maxStates !== undefined && rep.distinct >= check.budget.maxStates);
}

export function describeFate(f: Fate): string {
  switch (f.kind) {
    case 'killed':
      return f.how === 'deadlock' ? 'killed by Deadlock' : f.how === 'sometimes' ? `killed by ${f.by} (never reached)` : `killed by ${f.by}`;
    case 'error':
      return 'killed by error (the spec threw)';
    case 'survived':
      return 'SURVIVED';
    case 'unknown':
      return `unknown (${f.reason})`;
  }
}
