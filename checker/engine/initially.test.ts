/**
 * `initially(P)`, TLC's PROPERTY of a state predicate: checked on each initial state (after its invariants,
 * in or out of the CONSTRAINT), never on a later one, with the same verdict, counts and trace in every engine.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Model } from '../../spec/spec.ts';
import { always, initially } from '../../invariants/property.ts';
import { layout as L } from '../../spec/layout/index.ts';
import { checkModel } from './check.ts';
import { simulate } from './simulate.ts';
import { replayTrace } from './replay.ts';
import { toItf } from '../../traces/itf/write.ts';

const label = { spec: 'starts', params: {} };
const Counter = L.record('Counter', { n: L.int(0, 20) });
type Counter = { readonly n: number };
const at = (n: number) => Counter.from({ n }) as Counter;

/** A counter from each of `starts`, up by one to 10; it must start below 3. */
const model = (starts: number[], constrained = false): Model<Counter> => ({
  layout: Counter,
  init: () => starts.map(at),
  actions: [{ name: 'Inc', enabled: (s) => s.n < 10, next: (s) => at(s.n + 1) }],
  properties: [always('Bounded', 'the counter stays below 100', (s: Counter) => s.n < 100), initially('StartsSmall', 'the counter starts below 3', (s: Counter) => s.n < 3)],
  ...(constrained ? { constraint: (s: Counter) => s.n <= 4 } : {}),
});

test('initially: the initial state that breaks it is the counterexample, in every engine; a later state is not asked', async () => {
  // Every state from 3 on breaks StartsSmall, but none of them starts a behaviour: it holds.
  assert.deepEqual(
    await Promise.all([{}, { strategy: 'dfs' as const }, { owners: 2 }].map(async (o) => (await checkModel(model([0]), { ...o, deadlock: false }, label)).status)),
    ['holds', 'holds', 'holds'],
  );
  for (const constrained of [false, true]) {
    for (const options of [{}, { strategy: 'dfs' as const }, { owners: 2 }]) {
      const what = `${JSON.stringify(options)}${constrained ? ', 5 outside the CONSTRAINT' : ''}`;
      const r = await checkModel(model([0, 5], constrained), { ...options, deadlock: false }, label);
      assert.deepEqual([r.status, 'property' in r && r.property, 'kind' in r && r.kind], ['violation', 'StartsSmall', 'always'], what);
      const trace = 'trace' in r ? r.trace! : assert.fail(what);
      assert.deepEqual(trace.steps.map((s) => [s.action, s.state.n]), [['Init', 5]], what);
      // As TLC: the initial states up to the one that breaks it (generated), the one before it kept (depth
      // first, the first initial state's successors come before the second).
      if (options.strategy === undefined) assert.deepEqual([r.stats.generated, r.stats.distinct], [2, constrained ? 1 : 2], what);
      assert.deepEqual(replayTrace(model([0, 5], constrained), toItf(trace)), { kind: 'reproduced', step: 0, property: 'StartsSmall', recorded: 'StartsSmall' }, what);
    }
  }
  const walked = await simulate(model([0, 5]), { seed: 1, runs: 10, maxDepth: 5, deadlock: false }, label);
  assert.deepEqual([walked.status, 'property' in walked && walked.property], ['violation', 'StartsSmall']);
  assert.equal((await simulate(model([0]), { seed: 1, runs: 10, maxDepth: 20, deadlock: false }, label)).status, 'holds');
});
