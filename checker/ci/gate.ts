/**
 * The gate's decision: one exit code for a run, and the record every report is written from.
 *
 * Exit codes, most serious first: 1 when a verdict differs from the suite's expectation, 3 when a spec
 * threw, 4 when a check ran out of budget, then 1 for state-space drift beyond the tolerance (0 with
 * `--allow-drift`, and drift never fails the run that records a new baseline). 0 when all matched.
 * A malformed suite or baseline exits 2 before anything runs.
 */
import { ExitCode } from '../run/exitCodes.ts';
import type { DriftReport } from './baseline.ts';
import type { MutationReport } from './mutationTest.ts';
import { VERDICT_KINDS, type CheckOutcome } from './outcome.ts';
import type { SuiteRun } from './runSuite.ts';
import type { DiffOutcome } from './diffEntry.ts';

/** What a slice of a sharded run (`--shard I/N`) needs to know about the whole, so slices can be merged. */
export interface ShardInfo {
  readonly index: number;
  readonly count: number;
  /** Every check of the whole suite (after `--only`), in suite order. */
  readonly checks: readonly string[];
  /** Every design diff of the whole suite (after `--only`), in suite order. */
  readonly diffs: readonly string[];
  /** The baseline entries the whole run would call stale (none with `--only`). */
  readonly stale: readonly string[];
}

export interface CiResult {
  readonly run: SuiteRun;
  readonly drift: DriftReport;
  /** Drift is reported but does not fail the run (`--allow-drift`, or the baseline was just rewritten). */
  readonly driftAllowed: boolean;
  /** The baseline file was rewritten by this run. */
  readonly baselineUpdated: boolean;
  readonly mutation?: MutationReport;
  /** Counterexample files written per check name (`--out`). */
  readonly files: Readonly<Record<string, readonly string[]>>;
  /** The suite's design diffs, each with whether B fixed and broke what the suite says. */
  readonly diffs?: readonly DiffOutcome[];
  /** Present when this run is one slice of a sharded run. */
  readonly shard?: ShardInfo;
  readonly exitCode: ExitCode;
}

/** The exit code of a whole run: a design diff that differs from the suite counts as a differing verdict. */
export function ciExitCode(outcomes: readonly CheckOutcome[], diffs: readonly DiffOutcome[], drift: DriftReport, driftAllowed: boolean): ExitCode {
  return diffs.some((d) => !d.pass) ? ExitCode.Violation : gateExitCode(outcomes, drift, driftAllowed);
}

export function gateExitCode(outcomes: readonly CheckOutcome[], drift: DriftReport, driftAllowed: boolean): ExitCode {
  if (outcomes.some((o) => VERDICT_KINDS.includes(o.kind))) return ExitCode.Violation;
  if (outcomes.some((o) => o.kind === 'error')) return ExitCode.SpecError;
  if (outcomes.some((o) => o.kind === 'budget')) return ExitCode.Incomplete;
  if (!driftAllowed && drift.drifts.length > 0) return ExitCode.Violation;
  return ExitCode.Holds;
}

/** Whether a check fails the gate on its own (its drift counted when drift is not allowed). */
export function checkFails(o: CheckOutcome, r: Pick<CiResult, 'drift' | 'driftAllowed'>): boolean {
  if (o.kind !== 'pass' && o.kind !== 'skipped') return true;
  return !r.driftAllowed && r.drift.drifts.some((d) => d.check === o.check.name);
}

/** "2 verdicts differ, 1 ran out of budget" — the headline of every report. */
export function headline(r: CiResult): string {
  const o = r.run.outcomes;
  const count = (k: CheckOutcome['kind'][]) => o.filter((x) => k.includes(x.kind)).length;
  const verdicts = count(['broken', 'fixed', 'changed']);
  const errors = count(['error']);
  const budget = count(['budget']);
  const skipped = count(['skipped']);
  const drifted = new Set(r.drift.drifts.map((d) => d.check)).size;
  const parts: string[] = [];
  if (verdicts) parts.push(`${verdicts} verdict${verdicts === 1 ? ' differs' : 's differ'} from the expectation`);
  if (errors) parts.push(`${errors} spec error${errors === 1 ? '' : 's'}`);
  if (budget) parts.push(`${budget} ran out of budget`);
  if (drifted) parts.push(`${drifted} drifted from the baseline${r.baselineUpdated ? ' (now recorded)' : r.driftAllowed ? ' (allowed)' : ''}`);
  const diffs = r.diffs ?? [];
  const diffsFailed = diffs.filter((d) => !d.pass).length;
  if (diffsFailed) parts.push(`${diffsFailed} of ${plural(diffs.length, 'design diff')} not as expected`);
  const ran = o.length - skipped;
  const passed = count(['pass']);
  const lead = parts.length === 0 ? `all ${ran} checks passed${diffs.length ? ` and ${plural(diffs.length, 'design diff')} as expected` : ''}` : `${passed} of ${ran} checks passed; ${parts.join(', ')}`;
  return `${lead}${skipped ? ` (${skipped} skipped)` : ''}`;
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
