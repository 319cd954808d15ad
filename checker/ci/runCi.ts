/**
 * A whole `kmc ci` run as one function: load and validate the suite, run its checks, compare with the
 * baseline (or rewrite it), write counterexamples of failing checks, optionally run the mutation
 * self-test, and decide the exit code. The command only adds printing and report files around it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { renderText } from '../../traces/text.ts';
import { UserError, choices } from '../run/userError.ts';
import { compareWithBaseline, readBaseline, updatedBaseline, writeBaseline } from './baseline.ts';
import { ciExitCode, type CiResult, type ShardInfo } from './gate.ts';
import { loadSuite } from './loadSuite.ts';
import { mutationTest, type MutationBudget } from './mutationTest.ts';
import type { CheckOutcome } from './outcome.ts';
import type { ClusterTarget } from './pool.ts';
import { runSuite } from './runSuite.ts';
import { runSuiteDiff, type DiffOutcome } from './diffEntry.ts';
import type { Suite } from './suite.ts';

export interface CiRequest {
  readonly suitePath: string;
  /** Checks at once; default the machine's cores. */
  readonly lanes?: number;
  /** Run the checks and mutants on `kmc worker` processes instead (design diffs stay on this machine). */
  readonly cluster?: ClusterTarget;
  /** Run only these checks (names, `*` matches any text). */
  readonly only?: readonly string[];
  /** Run the I-th of N deterministic slices of the suite (checks I, I+N, I+2N, … in suite order; I from 1). */
  readonly shard?: { readonly index: number; readonly count: number };
  readonly baselinePath?: string;
  readonly updateBaseline?: boolean;
  /** Overrides every check's tolerance. */
  readonly tolerance?: number;
  readonly allowDrift?: boolean;
  /** Folder for the counterexamples (`.itf.json` and `.txt`) of failing checks. */
  readonly outDir?: string;
  readonly mutate?: MutationBudget;
  readonly shouldStop?: () => boolean;
  readonly onOutcome?: (o: CheckOutcome) => void;
  readonly onMutationProgress?: (done: number, total: number) => void;
}

export async function runCi(req: CiRequest): Promise<CiResult> {
  const whole = narrow(await loadSuite(req.suitePath), { ...req, shard: undefined });
  const suite = req.shard ? slice(whole, req.shard) : whole;
  // Read the baseline before running, so a malformed one fails fast.
  const baseline = readBaseline(suite.baselinePath);
  const run = await runSuite(suite, {
    costOf: (c) => baseline?.checks[c.name]?.distinct,
    ...(req.lanes !== undefined ? { lanes: req.lanes } : {}),
    ...(req.cluster ? { cluster: req.cluster } : {}),
    ...(req.shouldStop ? { shouldStop: req.shouldStop } : {}),
    ...(req.onOutcome ? { onOutcome: req.onOutcome } : {}),
  });
  const diffs: DiffOutcome[] = [];
  for (const d of suite.diffs ?? []) diffs.push(await runSuiteDiff(d, req.shouldStop));
  const compared = compareWithBaseline(run.outcomes, baseline);
  // With --only, the other checks' entries are not stale: they were just not run.
  const partial = req.only !== undefined || req.shard !== undefined;
  const drift = partial ? { ...compared, stale: [] } : compared;
  const shard: ShardInfo | undefined = req.shard && {
    ...req.shard,
    checks: whole.checks.map((c) => c.name),
    diffs: (whole.diffs ?? []).map((d) => d.name),
    stale: req.only !== undefined || !baseline ? [] : Object.keys(baseline.checks).filter((n) => !whole.checks.some((c) => c.name === n)),
  };
  const baselineUpdated = req.updateBaseline ?? false;
  if (baselineUpdated) {
    // A filtered run keeps the entries of the checks it did not run.
    const kept = partial ? Object.fromEntries(Object.entries(baseline?.checks ?? {}).filter(([n]) => !suite.checks.some((c) => c.name === n))) : {};
    const next = updatedBaseline(run.outcomes, baseline);
    writeBaseline(suite.baselinePath, { ...next, checks: sortByName({ ...kept, ...next.checks }) });
  }
  const files = req.outDir ? writeCounterexamples(run.outcomes, resolve(req.outDir)) : {};
  const driftAllowed = (req.allowDrift ?? false) || baselineUpdated;
  const mutation = req.mutate
    ? await mutationTest(run.outcomes, req.mutate, {
        lanes: req.lanes ?? availableParallelism(),
        ...(req.cluster ? { cluster: req.cluster } : {}),
        ...(req.shouldStop ? { shouldStop: req.shouldStop } : {}),
        ...(req.onMutationProgress ? { onProgress: req.onMutationProgress } : {}),
      })
    : undefined;
  return {
    run,
    drift,
    driftAllowed,
    baselineUpdated,
    ...(mutation ? { mutation } : {}),
    files,
    ...(diffs.length > 0 ? { diffs } : {}),
    ...(shard ? { shard } : {}),
    exitCode: ciExitCode(run.outcomes, diffs, drift, driftAllowed),
  };
}

/**
 * Slice I of N: the checks, then the design diffs, dealt out in suite order (item k to slice k mod N),
 * so every check and diff runs in exactly one slice.
 */
function slice(suite: Suite, { index, count }: { readonly index: number; readonly count: number }): Suite {
  const mine = (k: number) => k % count === index - 1;
  const checks = suite.checks.filter((_, i) => mine(i));
  const diffs = (suite.diffs ?? []).filter((_, i) => mine(suite.checks.length + i));
  const { diffs: _all, ...rest } = suite;
  return { ...rest, checks, ...(diffs.length > 0 ? { diffs } : {}) };
}

function narrow(suite: Suite, req: CiRequest): Suite {
  let checks = suite.checks;
  if (req.only && req.only.length > 0) {
    const patterns = req.only.map((p) => ({ p, re: new RegExp(`^${p.split('*').map(escapeRegExp).join('.*')}$`) }));
    for (const { p, re } of patterns) {
      if (!checks.some((c) => re.test(c.name)) && !(suite.diffs ?? []).some((d) => re.test(d.name))) {
        throw new UserError(`--only ${p} matches no check of ${req.suitePath}; its checks are ${choices(checks.map((c) => c.name))}.`);
      }
    }
    checks = checks.filter((c) => patterns.some(({ re }) => re.test(c.name)));
    suite = { ...suite, diffs: (suite.diffs ?? []).filter((d) => patterns.some(({ re }) => re.test(d.name))) };
  }
  if (req.tolerance !== undefined) checks = checks.map((c) => ({ ...c, tolerance: req.tolerance! }));
  return { ...suite, checks, ...(req.baselinePath ? { baselinePath: resolve(req.baselinePath) } : {}) };
}

/** Writes `<check>.itf.json` and `<check>.txt` for every failing check that has a trace. */
export function writeCounterexamples(outcomes: readonly CheckOutcome[], dir: string): Record<string, string[]> {
  const files: Record<string, string[]> = {};
  /** File names given so far: two check names that come out the same (`a/b`, `a b`) get `-2`, `-3`, … */
  const taken = new Set<string>();
  for (const o of outcomes) {
    const trace = o.report?.trace;
    if (!trace || !['broken', 'changed', 'error'].includes(o.kind)) continue;
    mkdirSync(dir, { recursive: true });
    const name = o.check.name.replace(/[^A-Za-z0-9._=-]+/g, '_');
    let unique = name;
    for (let n = 2; taken.has(unique.toLowerCase()); n++) unique = `${name}-${n}`;
    taken.add(unique.toLowerCase());
    const base = join(dir, unique);
    writeFileSync(`${base}.itf.json`, `${JSON.stringify(trace, null, 2)}\n`);
    writeFileSync(`${base}.txt`, `${o.check.name}: ${o.message}\n\n${renderText(trace).replace(/\x1b\[[0-9;]*m/g, '')}\n`);
    files[o.check.name] = [`${base}.itf.json`, `${base}.txt`];
  }
  return files;
}

function sortByName<T>(o: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
