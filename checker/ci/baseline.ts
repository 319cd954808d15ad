/**
 * The committed record of each check's size: distinct states, depth and counterexample length. Checks
 * are deterministic, so these numbers only move when the design moves; a change that silently halves
 * the state space usually means an action got disabled. `kmc ci --update-baseline` rewrites the file,
 * and the diff of that file in a pull request shows the reviewer what the change did to the search.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ParamValues } from '../../spec/spec.ts';
import type { CheckOutcome } from './outcome.ts';
import { InputFileError, readSourceFile, type Problem } from './sourceFile.ts';

export const BASELINE_VERSION = 1;

export interface BaselineEntry {
  readonly spec: string;
  readonly preset?: string;
  readonly params: ParamValues;
  /** `holds` or `violates <Property>`, as the check got it. */
  readonly verdict: string;
  readonly distinct: number;
  readonly depth: number;
  /** Steps of the counterexample (Init not counted); null when the check holds. */
  readonly counterexampleLength: number | null;
}

export interface Baseline {
  readonly version: number;
  readonly checks: Readonly<Record<string, BaselineEntry>>;
}

export type Metric = 'distinct' | 'depth' | 'counterexampleLength' | 'verdict';

export interface Drift {
  readonly check: string;
  readonly metric: Metric;
  readonly before: number | string | null;
  readonly after: number | string | null;
  /** Relative change (−0.5 = halved); null when not a number. */
  readonly change: number | null;
  readonly tolerance: number;
  /** The spec's parameters differ from those recorded: the drift may be the intended effect of that. */
  readonly paramsChanged: boolean;
}

export interface DriftReport {
  /** False when there is no baseline file: nothing to compare with. */
  readonly baselineFound: boolean;
  readonly drifts: readonly Drift[];
  /** Checks that completed but have no baseline entry yet. */
  readonly missing: readonly string[];
  /** Baseline entries for checks no longer in the suite. */
  readonly stale: readonly string[];
}

export const METRIC_NAMES: Readonly<Record<Metric, string>> = {
  distinct: 'distinct states',
  depth: 'depth',
  counterexampleLength: 'counterexample length',
  verdict: 'verdict',
};

export function readBaseline(path: string): Baseline | null {
  if (!existsSync(path)) return null;
  const src = readSourceFile(path, 'The baseline');
  const problems: Problem[] = [];
  const v = src.value as Record<string, unknown> | null;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw new InputFileError('The baseline', [src.problem([], 'a baseline is a JSON object with version and checks; regenerate it with kmc ci --update-baseline')]);
  }
  if (v.version !== BASELINE_VERSION) problems.push(src.problem(['version'], `this kmc reads baseline version ${BASELINE_VERSION}; regenerate it with kmc ci --update-baseline`));
  const checks = v.checks;
  if (typeof checks !== 'object' || checks === null || Array.isArray(checks)) {
    problems.push(src.problem(['checks'], 'checks must map each check name to its recorded numbers'));
  } else {
    for (const [name, e] of Object.entries(checks as Record<string, unknown>)) {
      const x = e as Record<string, unknown> | null;
      const numeric = (k: string, nullable: boolean) => {
        const n = x?.[k];
        if (!((nullable && n === null) || (typeof n === 'number' && Number.isSafeInteger(n) && n >= 0))) {
          problems.push(src.problem(['checks', name, k], `${k} must be a whole number${nullable ? ' or null' : ''}`));
        }
      };
      if (typeof x !== 'object' || x === null) {
        problems.push(src.problem(['checks', name], 'each entry records verdict, distinct, depth and counterexampleLength'));
        continue;
      }
      if (typeof x.verdict !== 'string') problems.push(src.problem(['checks', name, 'verdict'], 'verdict must be text (holds or violates <Property>)'));
      numeric('distinct', false);
      numeric('depth', false);
      numeric('counterexampleLength', true);
    }
  }
  if (problems.length > 0) throw new InputFileError('The baseline', problems);
  return v as unknown as Baseline;
}

/** The baseline entry a completed check would record; undefined when it did not complete. */
export function entryOf(o: CheckOutcome): BaselineEntry | undefined {
  const r = o.report;
  if (!r || o.kind === 'budget' || o.kind === 'error' || o.kind === 'skipped') return undefined;
  return {
    spec: r.spec,
    ...(r.preset !== null ? { preset: r.preset } : {}),
    params: r.params,
    verdict: o.got,
    distinct: r.distinct,
    depth: r.depth,
    counterexampleLength: r.traceLength !== null ? r.traceLength - 1 : null,
  };
}

/**
 * Compares the checks whose verdict matched with the baseline. Checks with a differing verdict are
 * reported as such, not as drift: one problem, said once.
 */
export function compareWithBaseline(outcomes: readonly CheckOutcome[], baseline: Baseline | null): DriftReport {
  if (!baseline) return { baselineFound: false, drifts: [], missing: [], stale: [] };
  const drifts: Drift[] = [];
  const missing: string[] = [];
  for (const o of outcomes) {
    if (o.kind !== 'pass') continue;
    const now = entryOf(o);
    if (!now) continue;
    const was = baseline.checks[o.check.name];
    if (!was) {
      missing.push(o.check.name);
      continue;
    }
    const tolerance = o.check.tolerance;
    const paramsChanged = JSON.stringify(sortKeys(was.params ?? {})) !== JSON.stringify(sortKeys(now.params));
    const base = { check: o.check.name, tolerance, paramsChanged };
    if (was.verdict !== now.verdict) drifts.push({ ...base, metric: 'verdict', before: was.verdict, after: now.verdict, change: null });
    for (const metric of ['distinct', 'depth', 'counterexampleLength'] as const) {
      const before = was[metric];
      const after = now[metric];
      if (before === after) continue;
      if (before === null || after === null) {
        drifts.push({ ...base, metric, before, after, change: null });
        continue;
      }
      const change = before === 0 ? Infinity : (after - before) / before;
      if (Math.abs(change) > tolerance) drifts.push({ ...base, metric, before, after, change });
    }
  }
  const names = new Set(outcomes.map((o) => o.check.name));
  const stale = Object.keys(baseline.checks).filter((n) => !names.has(n));
  return { baselineFound: true, drifts, missing, stale };
}

/**
 * The baseline after this run: completed checks whose verdict matched are recorded; a check that failed
 * or ran out of budget keeps its old entry (a wrong result is not a new normal); checks no longer in
 * the suite are dropped.
 */
export function updatedBaseline(outcomes: readonly CheckOutcome[], old: Baseline | null): Baseline {
  const checks: Record<string, BaselineEntry> = {};
  for (const o of [...outcomes].sort((a, b) => (a.check.name < b.check.name ? -1 : a.check.name > b.check.name ? 1 : 0))) {
    const entry = o.kind === 'pass' ? entryOf(o) : undefined;
    const kept = entry ?? old?.checks[o.check.name];
    if (kept) checks[o.check.name] = kept;
  }
  return { version: BASELINE_VERSION, checks };
}

export function writeBaseline(path: string, b: Baseline): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(sortKeys(b), null, 2)}\n`);
}

/** Stable key order, so the committed file diffs cleanly. */
function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}
