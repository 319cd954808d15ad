/**
 * The bundled KRaft spec runs on packed states (its layout, layout.ts); kraftImmutable.ts runs the same
 * actions and properties on Immutable.js records. Both forms must reach the same states in the same
 * order: equal counts, depth and coverage, and the same counterexample, text for text, on every preset.
 * The quick presets run here in full; the rest to a depth here, and in full with KMC_SLOW=1 (npm run test:slow).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import kraft from './kraft.ts';
import kraftImmutable from './kraftImmutable.ts';
import { checkModel } from '../../checker/engine/check.ts';
import type { CheckResult } from '../../checker/engine/result.ts';
import { toItf } from '../../traces/itf/write.ts';
import { isPacked, LayoutError } from '../layout/index.ts';
import type { ParamValues } from '../spec.ts';
import type { KraftState } from './state.ts';

function paramsOf(preset: string): ParamValues {
  const p = kraft.presets.find((x) => x.name === preset)!;
  return { ...Object.fromEntries(kraft.params.map((d) => [d.name, d.default])), ...p.params } as ParamValues;
}

/** Checks a preset through the packed form (the bundled spec) and through the Immutable.js form. */
async function both(preset: string, maxDepth?: number): Promise<[CheckResult<KraftState>, CheckResult<KraftState>]> {
  const params = paramsOf(preset);
  const label = { spec: 'kraft', preset, params };
  const options = { deadlock: false, ...(maxDepth === undefined ? {} : { maxDepth }) };
  const packed = await checkModel(kraft.build(params), options, label);
  const immutable = await checkModel(kraftImmutable.build(params), options, label);
  return [packed, immutable];
}

function assertSameRun(packed: CheckResult<KraftState>, immutable: CheckResult<KraftState>): void {
  assert.equal(packed.status, immutable.status);
  assert.equal(packed.stats.distinct, immutable.stats.distinct);
  assert.equal(packed.stats.generated, immutable.stats.generated);
  assert.equal(packed.stats.depth, immutable.stats.depth);
  assert.deepEqual(packed.stats.coverage, immutable.stats.coverage);
  const tp = packed.status === 'violation' ? packed.trace : undefined;
  const ti = immutable.status === 'violation' ? immutable.trace : undefined;
  assert.equal(tp === undefined, ti === undefined);
  if (tp === undefined || ti === undefined) return;
  assert.deepEqual(
    tp.steps.map((s) => s.action),
    ti.steps.map((s) => s.action),
  );
  // Parameters, states, narration and a lasso's loop, as the trace files show them: the same text.
  assert.equal(JSON.stringify(toItf(tp), null, 2), JSON.stringify(toItf(ti), null, 2));
  assert.ok(isPacked(tp.steps[0]!.state), 'the bundled spec runs on packed states');
  assert.ok(!isPacked(ti.steps[0]!.state), 'the Immutable spec runs on Immutable states');
}

/** Each preset's distinct states, exhaustively, as kraft.test.ts, liveness.test.ts and the CI baseline pin them. */
const DISTINCT: Readonly<Record<string, number>> = {
  'kraft-16281': 252,
  'kraft-fixed-leaderid': 8474,
  'kraft-fixed-prospective': 27199,
  'kraft-fixed-resigned-unattached': 32232,
  'kraft-shipped': 33729,
  'kraft-fixed-leaderid-message-loss': 26786,
  'kraft-fixed-leaderid-link-cut': 20606,
  'kraft-shipped-disk-loss': 42152,
  'kraft-shipped-live': 9080,
  'kraft-double-vote': 1172,
  'kraft-stuck-prospective': 7484,
  'kraft-nudge-live': 27199,
  'kraft-final-live': 32232,
  'kraft-bench': 116765,
  'kraft-deep-diverge': 136590,
  'kraft-deep-restart': 593434,
  'kraft-deep-4voters': 750816,
};
const QUICK = new Set(['kraft-16281', 'kraft-double-vote']);
/** How deep the fast tier cross-checks the other presets: a few hundred to 1,500 states each. */
const FAST_DEPTH = 5;

test('every KRaft preset is cross-checked here', () => {
  assert.deepEqual(kraft.presets.map((p) => p.name).sort(), Object.keys(DISTINCT).sort());
  assert.deepEqual(kraftImmutable.presets, kraft.presets);
  assert.deepEqual(kraftImmutable.params, kraft.params);
});

for (const [preset, distinct] of Object.entries(DISTINCT)) {
  // The deep presets (600,000+ states) take minutes in the Immutable form: they are cross-checked to a
  // depth below, and run in full in their packed form by kmc ci and spec/kraft/kraft.test.ts.
  const slow = preset.startsWith('kraft-deep-') ? 'cross-checked to a depth; in full only in the packed form' : !QUICK.has(preset) && !process.env.KMC_SLOW && 'set KMC_SLOW=1';
  test(`${preset}: the packed and Immutable forms give the same counts and traces (${distinct} states)`, { skip: slow }, async () => {
    const [p, i] = await both(preset);
    assertSameRun(p, i);
    assert.equal(p.stats.distinct, distinct);
    const expect = kraft.presets.find((x) => x.name === preset)!.expect;
    assert.equal(p.status === 'violation' ? p.property : 'holds', expect.verdict === 'holds' ? 'holds' : expect.property);
  });
  if (!QUICK.has(preset)) {
    test(`${preset} to depth ${FAST_DEPTH}: the packed and Immutable forms give the same counts and coverage`, async () => {
      const [p, i] = await both(preset, FAST_DEPTH);
      assertSameRun(p, i);
      assert.equal(p.status === 'incomplete' && p.reason, 'maxDepth');
      assert.ok(p.stats.distinct > 100, `${preset}: ${p.stats.distinct} states to depth ${FAST_DEPTH}`);
    });
  }
}

test('kraft-16281: the packed counterexample ends in the JIRA state', async () => {
  const params = paramsOf('kraft-16281');
  const r = await checkModel(kraft.build(params), { deadlock: false }, { spec: 'kraft', preset: 'kraft-16281', params });
  const end = r.status === 'violation' ? r.trace!.steps.at(-1)!.state.replicas.get('r1')! : undefined;
  assert.equal(end?.illegal, 'transitionToFollower(epoch=1, leader=r1): the leader is the local replica');
});

test('a KRaft value outside its layout is a spec error naming the field, the value and the bound', () => {
  const s = [...kraft.build(paramsOf('kraft-16281')).init()][0]!;
  assert.ok(isPacked(s), 'the bundled spec starts from a packed state');
  assert.throws(
    () => s.setIn(['replicas', 'r2', 'epoch'], 3),
    (e: unknown) => e instanceof LayoutError && e.path === 'replicas.r2.epoch' && e.value === 3 && e.bound === 'an integer in 0..2',
  );
  assert.throws(() => s.set('restarts', 2), /restarts: 2 is out of bounds \(an integer in 0\.\.1\)/);
  assert.throws(() => s.setIn(['replicas', 'r4'], null), /replicas\.r4: "r4" is out of bounds \(a key of one of voter: r1, r2, r3\)/);
});
