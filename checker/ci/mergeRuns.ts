/**
 * `kmc ci --merge`: the slices of a sharded run (`--shard 1/N` … `--shard N/N`) combined into the result
 * the whole suite run at once would give: every check once, in suite order; drift and missing baseline
 * entries of every slice; the stale entries of the whole; the same exit code. The reports are then
 * written from it as from any run. Slices of different runs, a slice given twice or a missing slice are
 * refused: a merged report that silently leaves checks out would pass a gate it should fail.
 */
import { UserError } from '../run/userError.ts';
import type { Drift } from './baseline.ts';
import type { DiffOutcome } from './diffEntry.ts';
import { ciExitCode, type CiResult, type ShardInfo } from './gate.ts';
import type { MutationReport } from './mutationTest.ts';
import type { CheckOutcome } from './outcome.ts';

export interface Slice {
  /** Where the slice was read from, for messages. */
  readonly from: string;
  readonly result: CiResult;
}

export function mergeRuns(slices: readonly Slice[]): CiResult {
  if (slices.length === 0) throw new UserError('--merge takes the output folders of the slices (kmc ci --merge out-1 out-2 …).');
  const infos = slices.map((s) => {
    if (!s.result.shard) throw new UserError(`${s.from} is not a slice of a sharded run (it was run without --shard I/N); merge only the slices of one run.`);
    return s.result.shard;
  });
  const first = infos[0]!;
  const firstRun = slices[0]!.result.run;
  slices.forEach((s, i) => {
    const info = infos[i]!;
    const same = info.count === first.count && s.result.run.suite.path === firstRun.suite.path && sameList(info.checks, first.checks) && sameList(info.diffs, first.diffs);
    if (!same) {
      throw new UserError(
        `${s.from} is slice ${info.index}/${info.count} of ${info.checks.length} checks of ${s.result.run.suite.path}, but ${slices[0]!.from} is slice ${first.index}/${first.count} of ${first.checks.length} checks of ${firstRun.suite.path}: merge only the slices of one run.`,
      );
    }
  });
  for (let index = 1; index <= first.count; index++) {
    const at = slices.filter((_, i) => infos[i]!.index === index).map((s) => s.from);
    if (at.length > 1) throw new UserError(`Slice ${index}/${first.count} is given twice (${at.join(', ')}).`);
    if (at.length === 0) {
      throw new UserError(`Slice ${index}/${first.count} is missing: the merged report would leave its checks out. Give the output folder of every slice (${slices.length} of ${first.count} given).`);
    }
  }

  const byOrder = <T>(names: readonly string[], items: readonly T[], nameOf: (t: T) => string): T[] => {
    const rank = new Map(names.map((n, i) => [n, i]));
    return [...items].sort((a, b) => (rank.get(nameOf(a)) ?? Infinity) - (rank.get(nameOf(b)) ?? Infinity));
  };
  const all = <T>(pick: (r: CiResult) => readonly T[] | undefined): T[] => slices.flatMap((s) => pick(s.result) ?? []);
  const outcomes = byOrder(first.checks, all((r) => r.run.outcomes), (o: CheckOutcome) => o.check.name);
  const diffs = byOrder(first.diffs, all((r) => r.diffs), (d: DiffOutcome) => d.diff.name);
  const drifts = byOrder(first.checks, all((r) => r.drift.drifts), (d: Drift) => d.check);
  const missing = byOrder(first.checks, all((r) => r.drift.missing), (n: string) => n);
  const drift = { baselineFound: slices.every((s) => s.result.drift.baselineFound), drifts, missing, stale: [...first.stale] };
  // Drift is excused only when every slice excused it: one slice run with --allow-drift (or recording a
  // baseline) says nothing of another slice's drift. `kmc ci --merge --allow-drift` excuses all of it.
  const driftAllowed = slices.every((s) => s.result.driftAllowed);
  const baselineUpdated = slices.some((s) => s.result.baselineUpdated);
  const mutations = slices.flatMap((s) => (s.result.mutation ? [s.result.mutation] : []));
  const mutation = mutations.length > 0 ? mergeMutation(first, mutations) : undefined;
  return {
    run: {
      suite: { ...firstRun.suite, checks: outcomes.map((o) => o.check), ...(diffs.length > 0 ? { diffs: diffs.map((d) => d.diff) } : {}) },
      outcomes,
      // The slices ran side by side: the merged run took as long as its slowest slice, on all their lanes.
      seconds: Math.max(...slices.map((s) => s.result.run.seconds)),
      lanes: slices.reduce((n, s) => n + s.result.run.lanes, 0),
    },
    drift,
    driftAllowed,
    baselineUpdated,
    ...(mutation ? { mutation } : {}),
    files: Object.assign({}, ...slices.map((s) => s.result.files)) as CiResult['files'],
    ...(diffs.length > 0 ? { diffs } : {}),
    exitCode: ciExitCode(outcomes, diffs, drift, driftAllowed),
  };
}

function mergeMutation(info: ShardInfo, reports: readonly MutationReport[]): MutationReport {
  const rank = new Map(info.checks.map((n, i) => [n, i]));
  const order = <T extends { readonly check: string }>(xs: T[]) => xs.sort((a, b) => (rank.get(a.check) ?? Infinity) - (rank.get(b.check) ?? Infinity));
  return {
    budget: reports[0]!.budget,
    mutants: order(reports.flatMap((m) => m.mutants)),
    invariants: order(reports.flatMap((m) => m.invariants)),
    skipped: order(reports.flatMap((m) => m.skipped)),
    seconds: Math.max(...reports.map((m) => m.seconds)),
    truncated: reports.some((m) => m.truncated),
  };
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
