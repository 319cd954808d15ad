import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import counters from '../../test/fixtures/boundedCounters.ts';
import { checkModel } from './check.ts';
import { simulate } from './simulate.ts';
import { replayTrace } from './replay.ts';
import { toItf } from '../../traces/itf/write.ts';

// The counts are TLC's on the same model (the TLA+ is in the fixture's comment), by TLC built from its public source.
const modulePath = fileURLToPath(new URL('../../test/fixtures/boundedCounters.ts', import.meta.url));
const label = { spec: 'bounded-counters', params: {} };
const FORMS = ['layout', 'immutable'] as const;

type Params = { n: number; k: number; tight: boolean; outsideInit: boolean; throwAt: number; steps: boolean; lastAtMost: number; stepProperty: 'none' | 'sum' | 'steps'; form: (typeof FORMS)[number]; layoutAtConstraint?: boolean };
const params = (form: Params['form'], more: Partial<Params> = {}): Params => ({ n: 5, k: 10, tight: false, outsideInit: false, throwAt: -1, steps: false, lastAtMost: -1, stepProperty: 'none', form, ...more });
const run = (p: Params, options: Parameters<typeof checkModel>[1] = {}) =>
  checkModel(counters.build(p), options, label, options.workers ? { modulePath, params: p } : undefined);
const stats = (r: Awaited<ReturnType<typeof run>>) => [r.status, r.stats.distinct, r.stats.generated, r.stats.depth];
/** Counter `i` along the counterexample. */
const counter = (r: Awaited<ReturnType<typeof run>>, form: Params['form'], i: number) =>
  ('trace' in r ? (r.trace?.steps ?? []) : []).map((s) => {
    const st = s.state as { x: { get(i: number): number } } & { get(i: number): number };
    return form === 'layout' ? st.x.get(i) : st.get(i);
  });
const firstCounter = (r: Awaited<ReturnType<typeof run>>, form: Params['form']) => counter(r, form, 0);
/**
 * Worker counts for the i-th case of a test: 2 and 3 with KMC_SLOW=1; else one of them, in turn, so each
 * count still meets each form (each worker thread loads the model: half a second a run).
 */
const workerCounts = (i: number) => (process.env.KMC_SLOW ? [2, 3] : [[2, 3][i % 2]!]);

test('a state outside the CONSTRAINT is checked but not counted, as in TLC (3,003 distinct, 25,026 generated, depth 11)', async () => {
  for (const form of FORMS) {
    assert.deepEqual(stats(await run(params(form))), ['holds', 3003, 25026, 11], form);
    // An initial state outside it is generated, not counted (TLC: 2 initial states generated, 1 distinct).
    assert.deepEqual(stats(await run(params(form, { outsideInit: true }))), ['holds', 3003, 25027, 11], form);
    const dfs = await run(params(form), { strategy: 'dfs' });
    assert.deepEqual([dfs.status, dfs.stats.distinct, dfs.stats.generated], ['holds', 3003, 25026], `${form} dfs`);
  }
});

test("a layout bounded at the CONSTRAINT's bound is a spec error that says the layout must hold one step past it", async () => {
  const r = await run(params('layout', { layoutAtConstraint: true }));
  assert.equal(r.status, 'error');
  assert.match(
    'message' in r ? r.message : '',
    /x\[0\]: 11 is out of bounds \(an integer in 0\.\.10\)\. This model has a CONSTRAINT: as in TLC, a successor outside it is still built and checked against the invariants before it is dropped, so the layout's bounds must hold one step past the constraint's bound/,
  );
});

test('an invariant that fails only outside the CONSTRAINT is found there, with the trace TLC prints', async () => {
  for (const form of FORMS) {
    const r = await run(params(form, { tight: true }));
    assert.equal(r.status, 'violation');
    assert.equal('property' in r && r.property, 'Bounded');
    // TLC: x[0] counts up from 0 to 11; 16,447 states generated, 3,003 distinct states found, depth 11. TLC
    // stops at the successor that breaks the invariant: those its parent would have given after it are
    // neither generated nor found.
    assert.deepEqual(firstCounter(r, form), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], form);
    assert.deepEqual([r.stats.distinct, r.stats.generated, r.stats.depth], [3003, 16447, 11], form);
    // An initial state outside it that breaks the invariant is the whole counterexample.
    const init = await run(params(form, { tight: true, outsideInit: true }));
    assert.equal(init.status, 'violation');
    assert.deepEqual(firstCounter(init, form), [11], form);
    assert.equal(init.stats.distinct, 1, form);
    const dfs = await run(params(form, { tight: true }), { strategy: 'dfs' });
    assert.equal(dfs.status, 'violation', `${form} dfs`);
    assert.equal(firstCounter(dfs, form).at(-1), 11, `${form} dfs`);
  }
});

test('worker threads cut the model off where one thread does: the same counts, coverage and counterexample (2 or 3 workers a case; KMC_SLOW=1: both)', async () => {
  for (const [f, form] of FORMS.entries()) {
    for (const tight of [false, true]) {
      const one = await run(params(form, { tight }));
      for (const workers of workerCounts(f + Number(tight))) {
        const many = await run(params(form, { tight }), { workers, ownerThreadsFromDepth: 1 });
        const what = `${form} tight=${tight} workers=${workers}`;
        // Worker threads share out packed states only: the Immutable.js form is searched in one thread.
        assert.equal(many.stats.workers, form === 'layout' ? workers : 1, what);
        assert.deepEqual(stats(many), stats(one), what);
        assert.deepEqual(many.stats.coverage, one.stats.coverage, what);
        assert.deepEqual(firstCounter(many, form), firstCounter(one, form), what);
      }
    }
  }
});

test('a CONSTRAINT that throws is reported as such, at the state whose successor it was judging, whatever the number of workers (2 or 3 a form; KMC_SLOW=1: both)', async () => {
  for (const [f, form] of FORMS.entries()) {
    const one = await run(params(form, { throwAt: 6 }));
    assert.equal(one.status, 'error', form);
    assert.match('message' in one ? one.message : '', /constraint\(\) threw: a sum of 6/, form);
    assert.deepEqual(firstCounter(one, form), [0, 1, 2, 3, 4, 5], form);
    for (const workers of workerCounts(f)) {
      const many = await run(params(form, { throwAt: 6 }), { workers, ownerThreadsFromDepth: 1 });
      assert.equal('message' in many && many.message, 'message' in one && one.message, `${form} workers=${workers}`);
      assert.deepEqual(stats(many), stats(one), `${form} workers=${workers}`);
      assert.deepEqual(many.stats.coverage, one.stats.coverage, `${form} workers=${workers}`);
      assert.deepEqual(firstCounter(many, form), firstCounter(one, form), `${form} workers=${workers}`);
    }
  }
});

test('a step outside the ACTION_CONSTRAINT leads out of the model, though the state it reaches may be reached again by a step inside it (TLC: 2,883 distinct, 24,138 generated, depth 12), with 2 or 3 workers a case (KMC_SLOW=1: both)', async () => {
  for (const [f, form] of FORMS.entries()) {
    const one = await run(params(form, { steps: true }));
    assert.deepEqual(stats(one), ['holds', 2883, 24138, 12], form);
    const dfs = await run(params(form, { steps: true }), { strategy: 'dfs' });
    assert.deepEqual([dfs.status, dfs.stats.distinct, dfs.stats.generated], ['holds', 2883, 24138], `${form} dfs`);
    // TLC: LastBounded (x[4] <= 2) fails at once on the state the first forbidden step reaches; 135 states
    // generated, 55 distinct states found, depth 4.
    const bad = await run(params(form, { steps: true, lastAtMost: 2 }));
    assert.equal(bad.status, 'violation', form);
    assert.deepEqual(counter(bad, form, 4), [0, 1, 2, 3], form);
    assert.deepEqual([bad.stats.distinct, bad.stats.generated, bad.stats.depth], [55, 135, 4], form);
    const cases: [Params, Awaited<ReturnType<typeof run>>][] = [
      [params(form, { steps: true }), one],
      [params(form, { steps: true, lastAtMost: 2 }), bad],
    ];
    for (const [c, [p, r]] of cases.entries()) {
      for (const workers of workerCounts(f + c)) {
        const many = await run(p, { workers, ownerThreadsFromDepth: 1 });
        const what = `${form} lastAtMost=${p.lastAtMost} workers=${workers}`;
        assert.deepEqual(stats(many), stats(r), what);
        assert.deepEqual(many.stats.coverage, r.stats.coverage, what);
        assert.deepEqual(counter(many, form, 4), counter(r, form, 4), what);
      }
    }
  }
});

test('a simulated walk ends at the first state outside the CONSTRAINT, once it is checked', async () => {
  for (const form of FORMS) {
    // Walks of 40 steps would sum to 12 and break `Bounded` (at most 11) if they went on past the constraint.
    const holds = await simulate(counters.build(params(form)), { seed: 1, runs: 30, maxDepth: 40 }, label);
    assert.equal(holds.status, 'holds', form);
    const breaks = await simulate(counters.build(params(form, { tight: true })), { seed: 1, runs: 30, maxDepth: 40 }, label);
    assert.equal(breaks.status, 'violation', form);
  }
});

test('a step property is checked on a step that leaves the CONSTRAINT or the ACTION_CONSTRAINT too, as TLC checks an action PROPERTY: found where the invariant of the same bound is, in every engine', async () => {
  for (const [f, form] of FORMS.entries()) {
    // [][Sum(x') <= K]_x breaks only on a step out of the CONSTRAINT: the successor where the invariant
    // Sum(x) <= K (`tight`) breaks, with the counts TLC gives there (above).
    const sum = params(form, { stepProperty: 'sum' });
    const one = await run(sum);
    assert.deepEqual([one.status, 'kind' in one && one.kind, 'property' in one && one.property], ['violation', 'everyStep', 'SumStep'], form);
    assert.deepEqual(firstCounter(one, form), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], form);
    assert.deepEqual([one.stats.distinct, one.stats.generated, one.stats.depth], [3003, 16447, 11], form);
    const replayed = replayTrace(counters.build(sum), toItf('trace' in one && one.trace ? one.trace : assert.fail(`${form}: no trace`)));
    assert.deepEqual([replayed.kind, 'property' in replayed && replayed.property, 'step' in replayed && replayed.step], ['reproduced', 'SumStep', 11], form);
    const dfs = await run(sum, { strategy: 'dfs' });
    assert.deepEqual([dfs.status, 'property' in dfs && dfs.property], ['violation', 'SumStep'], `${form} dfs`);
    for (const workers of workerCounts(f)) {
      const many = await run(sum, { workers, ownerThreadsFromDepth: 1 });
      assert.deepEqual([...stats(many), 'property' in many && many.property], [...stats(one), 'SumStep'], `${form} workers=${workers}`);
      assert.deepEqual(firstCounter(many, form), firstCounter(one, form), `${form} workers=${workers}`);
    }
    const walked = await simulate(counters.build(sum), { seed: 1, runs: 30, maxDepth: 40 }, label);
    assert.deepEqual([walked.status, 'property' in walked && walked.property], ['violation', 'SumStep'], `${form} simulate`);
    // [][Steps]_x breaks only on a step out of the ACTION_CONSTRAINT: the first such step is where LastBounded
    // (x[4] <= 2) breaks above, with TLC's counts there.
    const steps = await run(params(form, { steps: true, stepProperty: 'steps' }));
    assert.deepEqual([steps.status, 'property' in steps && steps.property], ['violation', 'AllowedStep'], form);
    assert.deepEqual(counter(steps, form, 4), [0, 1, 2, 3], form);
    assert.deepEqual([steps.stats.distinct, steps.stats.generated, steps.stats.depth], [55, 135, 4], form);
  }
});
