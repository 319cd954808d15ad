/**
 * The project's own gate: `ci/kmc.suite.yaml` covers every preset of every bundled spec, every check
 * keeps its expected verdict, and no state space drifts from `ci/kmc.baseline.json`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { loadSpec } from '../cli/loadSpec.ts';
import { BUNDLED_NAMES } from '../cli/registry.ts';
import { driftText } from './format.ts';
import { loadSuite } from './loadSuite.ts';
import { runCi } from './runCi.ts';
import { summaryText } from './summaryText.ts';

const SUITE = fileURLToPath(new URL('../../ci/kmc.suite.yaml', import.meta.url));

let run: ReturnType<typeof runCi> | undefined;
const result = () => (run ??= runCi({ suitePath: SUITE, lanes: Math.min(2, availableParallelism()) }));

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

test('every check of the default suite keeps its expected verdict within its budget', async (t) => {
  const r = await result();
  const table = summaryText(r).replace(/\x1b\[[0-9;]*m/g, '');
  t.diagnostic(`default suite: ${r.run.outcomes.length} checks in ${r.run.seconds.toFixed(1)} s on ${r.run.lanes} lanes`);
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
