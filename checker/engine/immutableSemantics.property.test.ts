/**
 * The states of a spec over Immutable.js are the values Immutable.is tells apart, however the spec builds
 * them. Random models (test/fixtures/randomImmutableSpec.ts: message Records of four classes, a Map, a
 * List) are searched by the checker and by a plain breadth-first search that tells states apart by
 * Immutable.js's equality (test/fixtures/plainSearch.ts). Distinct states, generated states, depth and
 * each action's coverage (the states it had a step in, its steps, the new states it found first) must agree: breadth-first and depth-first, under a VIEW, under SYMMETRY (the plain search then keeps one state
 * of each pair that differ by a renaming of the brokers), and under a CONSTRAINT and an ACTION_CONSTRAINT.
 * Where an invariant breaks or a state deadlocks, the search stops where the plain
 * search stops, with a counterexample as short as the shortest path there.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { List } from 'immutable';
import randomImmutable, { type State } from '../../test/fixtures/randomImmutableSpec.ts';
import { always } from '../../invariants/property.ts';
import { checkModel } from './check.ts';
import { countsOf, plainSearch, stoppedPast, swapIds } from '../../test/fixtures/plainSearch.ts';

const label = { spec: 'random-immutable', params: {} };
const models = fc.record({ seed: fc.integer({ min: 0, max: 2 ** 31 }), steps: fc.integer({ min: 1, max: 8 }), maxNet: fc.integer({ min: 1, max: 3 }), big: fc.boolean() });

test('random specs over Records, Sets, Maps and Lists: the checker counts the states Immutable.is tells apart, breadth-first and depth-first', async () => {
  await fc.assert(
    fc.asyncProperty(models, async (params) => {
      const expected = plainSearch(randomImmutable.build(params), { coverage: true });
      const r = await checkModel(randomImmutable.build(params), stoppedPast(expected), label);
      assert.equal(r.status, 'holds');
      assert.deepEqual(countsOf(r, true), expected, JSON.stringify(params));
      const dfs = await checkModel(randomImmutable.build(params), { ...stoppedPast(expected), strategy: 'dfs' }, label);
      assert.deepEqual([dfs.stats.distinct, dfs.stats.generated], [expected.distinct, expected.generated], `DFS: ${JSON.stringify(params)}`);
    }),
    { seed: 5, numRuns: process.env.KMC_SLOW ? 1000 : 120 },
  );
});

test('random specs under a VIEW and under SYMMETRY: the checker counts what a plain search counts with the same equality', async () => {
  await fc.assert(
    fc.asyncProperty(models, async (params) => {
      // A VIEW without the log: states that differ only there are one.
      const withoutLog = (s: State) => s.set('log', List<number>());
      const viewExpected = plainSearch(randomImmutable.build(params), { key: withoutLog, coverage: true });
      const viewed = await checkModel({ ...randomImmutable.build(params), view: withoutLog }, stoppedPast(viewExpected), label);
      assert.deepEqual(countsOf(viewed, true), viewExpected, `VIEW: ${JSON.stringify(params)}`);
      const symmetryExpected = plainSearch(randomImmutable.build(params), { renamed: (k) => swapIds(k, 'b1', 'b2'), coverage: true });
      const symmetric = await checkModel(randomImmutable.build(params), { ...stoppedPast(symmetryExpected), symmetry: true }, label);
      assert.deepEqual(countsOf(symmetric, true), symmetryExpected, `SYMMETRY: ${JSON.stringify(params)}`);
    }),
    { seed: 5, numRuns: process.env.KMC_SLOW ? 1000 : 120 },
  );
});

/**
 * The model under a CONSTRAINT and an ACTION_CONSTRAINT: two leaders are outside the model; no message is
 * sent while the log holds an entry, and no entry is appended while a message is out, so no order of steps
 * reaches a state with both.
 */
function constrained(params: Parameters<typeof randomImmutable.build>[0]) {
  const model = randomImmutable.build(params);
  const base = [...model.init()][0]!.net.size;
  return {
    ...model,
    constraint: (s: State) => !(s.roles.get('b1') === 'leader' && s.roles.get('b2') === 'leader'),
    actionConstraint: (s: State, t: State) => !(t.net.size > s.net.size && s.log.size > 0) && !(t.log.size > s.log.size && t.net.size > base),
  };
}

test('random specs under a CONSTRAINT and an ACTION_CONSTRAINT: the checker keeps what a plain search keeps', async () => {
  await fc.assert(
    fc.asyncProperty(models, async (params) => {
      const expected = plainSearch(constrained(params), { coverage: true });
      const r = await checkModel(constrained(params), stoppedPast(expected), label);
      assert.deepEqual(countsOf(r, true), expected, JSON.stringify(params));
    }),
    { seed: 5, numRuns: process.env.KMC_SLOW ? 2000 : 100 },
  );
});

test('random specs with an invariant, with and without constraints: the checker stops at the state a plain search stops at, with the counts there and a shortest counterexample', async () => {
  let broken = 0;
  let brokenOutside = 0;
  await fc.assert(
    fc.asyncProperty(models, fc.boolean(), async (params, withConstraints) => {
      // Two leaders are outside the CONSTRAINT: a state with them is checked, never kept.
      const bad = (s: State) => (s.roles.get('b2') === 'follower' && s.log.size === 2) || (s.roles.get('b1') === 'leader' && s.roles.get('b2') === 'leader');
      const model = () => ({ ...(withConstraints ? constrained(params) : randomImmutable.build(params)), properties: [always<State>('NoFullLogAtFollower', 'b2 follows with a full log, or two lead', (s) => !bad(s))] });
      const expected = plainSearch(model(), { bad });
      if (expected.badOutside) brokenOutside++;
      const r = await checkModel(model(), stoppedPast(expected), label);
      if (expected.badAt === undefined) {
        assert.equal(r.status, 'holds', JSON.stringify(params));
        assert.deepEqual(countsOf(r), expected, JSON.stringify(params));
        return;
      }
      broken++;
      assert.equal(r.status, 'violation', JSON.stringify(params));
      assert.equal(r.status === 'violation' && r.property, 'NoFullLogAtFollower');
      assert.deepEqual([r.stats.distinct, r.stats.generated], [expected.distinct, expected.generated], JSON.stringify(params));
      assert.equal(r.status === 'violation' && r.trace?.steps.length, expected.badAt + 1, JSON.stringify(params));
    }),
    { seed: 5, numRuns: process.env.KMC_SLOW ? 1000 : 120 },
  );
  assert.ok(broken > 10, `only ${broken} of the random specs broke the invariant`);
  assert.ok(brokenOutside > 0, 'no random spec broke the invariant outside its constraints');
});

test('random specs checked for deadlock: the checker stops at the state a plain search stops at, with the counts there and a shortest counterexample', async () => {
  let deadlocked = 0;
  await fc.assert(
    fc.asyncProperty(models, async (params) => {
      const expected = plainSearch(randomImmutable.build(params), { deadlock: true });
      const r = await checkModel(randomImmutable.build(params), { ...stoppedPast(expected), deadlock: true }, label);
      if (expected.deadlockAt === undefined) {
        assert.equal(r.status, 'holds', JSON.stringify(params));
        assert.deepEqual(countsOf(r), expected, JSON.stringify(params));
        return;
      }
      deadlocked++;
      assert.equal(r.status === 'violation' && r.kind, 'deadlock', JSON.stringify(params));
      assert.deepEqual([r.stats.distinct, r.stats.generated], [expected.distinct, expected.generated], JSON.stringify(params));
      assert.equal(r.status === 'violation' && r.trace?.steps.length, expected.deadlockAt + 1, JSON.stringify(params));
    }),
    { seed: 5, numRuns: process.env.KMC_SLOW ? 1000 : 120 },
  );
  assert.ok(deadlocked > 10, `only ${deadlocked} of the random specs deadlocked`);
});
