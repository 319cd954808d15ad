/**
 * The project's own gate: `ci/kmc.suite.yaml` covers every preset of every bundled spec, every check
 * keeps its expected verdict, and no state space drifts from `ci/kmc.baseline.json`.
 *
 * Each preset is searched once per `npm test`: the checks whose preset a spec's own test already
 * searches, and pins, are listed in PINNED_BY and run here only with KMC_SLOW=1 (`npm run check` runs
 * them all). What ties them to the suite instead is checked without a search: the pinning test names
 * the preset and the distinct-state count the baseline records, and the suite expects the verdict the
 * preset states. A few more checks, bounded searches that take seconds, run here only with KMC_SLOW=1 too
 * (SLOW_ONLY): a spec test checks their preset to a depth in the fast tier.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readBaseline } from './baseline.ts';
import { loadSpec } from '../run/loadSpec.ts';
import { BUNDLED_NAMES } from '../run/registry.ts';
import { driftText } from './format.ts';
import { loadSuite } from './loadSuite.ts';
import { runCi } from './runCi.ts';
import { summaryText } from './summaryText.ts';

const SUITE = fileURLToPath(new URL('../../ci/kmc.suite.yaml', import.meta.url));
const BASELINE = fileURLToPath(new URL('../../ci/kmc.baseline.json', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Checks of the default suite whose preset a spec's own test searches exhaustively and pins. */
const PINNED_BY: Readonly<Record<string, string>> = {
  'twophase/rm5': 'checker/ci/runCi.test.ts',
  'kraft/kraft-double-vote': 'spec/kraft/kraft.test.ts',
  'kraft/kraft-fixed-leaderid': 'spec/kraft/kraft.test.ts',
  'kraft/kraft-fixed-leaderid-link-cut': 'spec/kraft/kraft.test.ts',
  'kraft/kraft-fixed-leaderid-message-loss': 'spec/kraft/kraft.test.ts',
  'kraft/kraft-fixed-prospective': 'spec/kraft/kraft.test.ts',
  'kraft/kraft-fixed-resigned-unattached': 'spec/kraft/kraft.test.ts',
  'kraft/kraft-shipped': 'spec/kraft/kraft.test.ts',
  'kraft/kraft-shipped-disk-loss': 'spec/kraft/kraft.test.ts',
  'kraft/kraft-stuck-prospective': 'spec/kraft/liveness.test.ts',
  'kraft/kraft-nudge-live': 'spec/kraft/liveness.test.ts',
  'kraft/kraft-final-live': 'spec/kraft/liveness.test.ts',
  'kraft/kraft-shipped-live': 'spec/kraft/liveness.test.ts',
  'kraft/kraft-bench': 'spec/kraft/kraft.test.ts',
  'kraft/kraft-deep-diverge': 'spec/kraft/kraft.test.ts',
  'kraft/kraft-deep-restart': 'spec/kraft/kraft.test.ts',
  'kraft/kraft-deep-4voters': 'spec/kraft/kraft.test.ts',
  'lifecycle/ce4-current-wins': 'spec/lifecycle/lifecycle.test.ts',
  'lifecycle/controlled-shutdown-leader': 'spec/lifecycle/lifecycle.test.ts',
  'lifecycle/ce5-pending-checked': 'spec/lifecycle/lifecycle.test.ts',
  'lifecycle/ce6-stale-ignored': 'spec/lifecycle/lifecycle.test.ts',
  'lifecycle/ce7-failover-extends': 'spec/lifecycle/lifecycle.test.ts',
  'lifecycle/controlled-shutdown-failover-restored': 'spec/lifecycle/lifecycle.test.ts',
  'lifecycle/cluster-start': 'spec/lifecycle/lifecycle.test.ts',
  'lifecycle/leader-fails': 'spec/lifecycle/lifecycle.test.ts',
  'lifecycle/kip631-final': 'spec/lifecycle/lifecycle.test.ts',
  'lifecycle/kip903-broker-epochs': 'spec/lifecycle/lifecycle.test.ts',
  'replication/elr': 'spec/replication/replication.test.ts',
  'replication/elr-incarnation-unclean': 'spec/replication/replication.test.ts',
  'replication/elr-2-partitions': 'spec/replication/replication.test.ts',
  'replication/elr-incarnation-unclean-2-partitions': 'spec/replication/replication.test.ts',
  'replication/balanced-recovery-manager': 'spec/replication/replication.test.ts',
  'replication/balanced-empty': 'spec/replication/replication.test.ts',
  'replication/diverging-logs': 'spec/replication/replication.test.ts',
  'replication/diverging-pre-elr': 'spec/replication/replication.test.ts',
  'replication/diverging-deep': 'spec/replication/replication.test.ts',
  'replication/replication-live': 'spec/replication/liveness.test.ts',
  'replication/replication-bench': 'checker/cli/cli.test.ts',
};
/** Bounded checks of the default suite run here only with KMC_SLOW=1, and the spec test that checks their preset to a depth. */
const SLOW_ONLY: Readonly<Record<string, string>> = {};
const SLOW = Boolean(process.env.KMC_SLOW);
const fastTierSkips = (name: string) => name in PINNED_BY || name in SLOW_ONLY;

let run: ReturnType<typeof runCi> | undefined;
const result = async () => {
  const names = (await loadSuite(SUITE)).checks.map((c) => c.name);
  return (run ??= runCi({ suitePath: SUITE, lanes: Math.min(2, availableParallelism()), ...(SLOW ? {} : { only: names.filter((n) => !fastTierSkips(n)) }) }));
};

test('the default suite has one check per preset of every bundled spec', async (t) => {
  const suite = await loadSuite(SUITE);
  const listed = new Set(suite.checks.map((c) => `${c.spec} ${c.preset ?? ''}`));
  const missing: string[] = [];
  for (const name of BUNDLED_NAMES) {
    const loaded = await loadSpec(name).catch((e: Error) => e);
    if (loaded instanceof Error) {
      t.diagnostic(`${name} is not loadable yet: ${loaded.message}`);
      continue;
    }
    for (const p of loaded.definition.presets) if (!listed.has(`${name} ${p.name}`)) missing.push(`${name} --preset ${p.name}`);
  }
  assert.deepEqual(missing, [], `add these to ci/kmc.suite.yaml (kmc ci --init other.yaml writes the checks to copy):\n${missing.join('\n')}`);
});

test('a check left to its spec test: that test names the preset and the baseline\'s state count; the suite expects the preset\'s verdict', async () => {
  const suite = await loadSuite(SUITE);
  const baseline = readBaseline(BASELINE)!;
  const problems: string[] = [];
  for (const [name, file] of Object.entries(PINNED_BY)) {
    const check = suite.checks.find((c) => c.name === name);
    if (!check) {
      problems.push(`${name} is no check of the default suite`);
      continue;
    }
    const text = readFileSync(join(ROOT, file), 'utf8');
    const distinct = baseline.checks[name]!.distinct;
    const written = [String(distinct), distinct.toLocaleString('en-US'), String(distinct).replace(/\B(?=(\d{3})+(?!\d))/g, '_')];
    if (!new RegExp(`'${check.preset}'|preset: ${check.preset}\\b`).test(text)) problems.push(`${file} does not name the preset '${check.preset}' of ${name}`);
    if (!written.some((w) => new RegExp(`\\b${w}\\b`).test(text))) problems.push(`${file} does not pin the ${distinct} distinct states the baseline records for ${name}`);
    const preset = (await loadSpec(check.spec)).definition.presets.find((p) => p.name === check.preset)!;
    assert.deepEqual(check.expect, preset.expect, `${name}: the suite expects what the preset states`);
    assert.equal(check.bounded, false, `${name}: a bounded check is not an exhaustive search`);
  }
  assert.deepEqual(problems, []);
});

test('a check run only in the slow tier: its spec test checks the preset to a depth in the fast tier', async () => {
  const suite = await loadSuite(SUITE);
  for (const [name, file] of Object.entries(SLOW_ONLY)) {
    const check = suite.checks.find((c) => c.name === name);
    assert.ok(check, `${name} is a check of the default suite`);
    assert.ok(!(name in PINNED_BY), name);
    assert.match(readFileSync(join(ROOT, file), 'utf8'), new RegExp(`preset: '${check.preset}', depth: \\d+`), `${file} checks ${check.preset} to a depth`);
  }
});

test('the baseline has one entry per check of the default suite, run here or not', async () => {
  const suite = await loadSuite(SUITE);
  assert.deepEqual(Object.keys(readBaseline(BASELINE)!.checks).sort(), suite.checks.map((c) => c.name).sort());
});

test('every check of the default suite keeps its expected verdict within its budget', async (t) => {
  const r = await result();
  const table = summaryText(r).replace(/\x1b\[[0-9;]*m/g, '');
  if (!SLOW) assert.equal(r.run.outcomes.length, (await loadSuite(SUITE)).checks.filter((c) => !fastTierSkips(c.name)).length);
  const skipped = Object.keys(PINNED_BY).length + Object.keys(SLOW_ONLY).length;
  t.diagnostic(`default suite: ${r.run.outcomes.length} checks${SLOW ? '' : ` (KMC_SLOW=1 for the ${skipped} its spec tests pin or check to a depth)`} in ${r.run.seconds.toFixed(1)} s on ${r.run.lanes} lanes`);
  const wrong = r.run.outcomes.filter((o) => o.kind !== 'pass').map((o) => `${o.check.name}: expected ${o.expected}, got ${o.got}: ${o.message}`);
  assert.deepEqual(wrong, [], table);
});

test('no check of the default suite drifts from the committed baseline', async () => {
  const r = await result();
  const drifts = r.drift.drifts.map((d) => `${d.check}: ${driftText(d)}`);
  const why = 'if the change is intended, run `npx kmc ci --update-baseline` and commit ci/kmc.baseline.json';
  assert.equal(r.drift.baselineFound, true, why);
  assert.deepEqual(drifts, [], why);
  assert.deepEqual(r.drift.missing, [], why);
  assert.deepEqual(r.drift.stale, [], why);
});
