import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import epochSteps from '../../test/fixtures/epochSteps.ts';
import type { Model, ParamValues } from '../../spec/spec.ts';
import { checkModel } from './check.ts';
import type { CheckOptions } from './options.ts';
import type { CheckResult } from './result.ts';
import { simulate } from './simulate.ts';
import { replayTrace } from './replay.ts';
import { toItf } from '../../traces/itf/write.ts';
import { eventually } from '../../invariants/temporal.ts';
import { always, everyStep } from '../../invariants/property.ts';
import { Record } from 'immutable';
import { neighbourhoodGraph, reachableGraph } from './reachableGraph.ts';
import { traceGraph } from '../../traces/render/stateGraph.ts';

const label = (params: ParamValues) => ({ spec: 'epoch-steps', params });
const build = (params: ParamValues) => epochSteps.build({ top: 3, wrap: 2, reset: true, below: -1, packed: false, strict: false, ...params }) as Model<unknown>;
const source = (params: ParamValues) => ({ modulePath: fileURLToPath(new URL('../../test/fixtures/epochSteps.ts', import.meta.url)), params: { top: 3, wrap: 2, reset: true, below: -1, packed: false, strict: false, ...params } });
const check = (params: ParamValues, options: CheckOptions = {}, withSource = false) => checkModel(build(params), options, label(params), withSource ? source(params) : undefined);

/** The verdict, the counts and coverage, and the trace's steps with each state's epoch. */
function shape(r: CheckResult<unknown>) {
  return {
    status: r.status,
    kind: 'kind' in r ? r.kind : undefined,
    property: 'property' in r ? r.property : undefined,
    counts: [r.stats.distinct, r.stats.generated, r.stats.depth],
    coverage: r.stats.coverage.map((c) => [c.action, c.enabled, c.fired, c.newStates]),
    trace: 'trace' in r ? r.trace?.steps.map((s) => `${s.action ?? 'Init'}→${(s.state as { e: number }).e}`) : undefined,
  };
}

test('a step that takes the epoch back to a state reached before breaks EpochNeverDecreases: a shortest trace to the state before it, then the step', async () => {
  for (const packed of [false, true]) {
    const r = await check({ packed });
    assert.deepEqual(shape(r), {
      status: 'violation',
      kind: 'everyStep',
      property: 'EpochNeverDecreases',
      // (3, 0) is expanded first in level 3: Tick finds (3, 1), Rewrite changes nothing, Reset goes back to (1, 0).
      counts: [8, 19, 5],
      // The search stops inside Reset, as where a step throws: that action's counts are not taken.
      coverage: [
        ['Bump', 5, 5, 3],
        ['Tick', 6, 6, 4],
        ['Rewrite', 6, 6, 0],
        ['Reset', 0, 0, 0],
      ],
      trace: ['Init→0', 'Bump→1', 'Bump→2', 'Bump→3', 'Reset→1'],
    });
    // No invariant can see the bug: every state the reset reaches is one the model reaches without it.
    const fixed = await check({ packed, reset: false });
    assert.deepEqual([fixed.status, fixed.stats.distinct], ['holds', 8]);
  }
});

test('the search that records the graph for temporal properties as it goes stops at the same step, with the same counts and trace', async () => {
  const plain = await check({});
  const model = build({});
  const withTemporal = { ...model, properties: [...model.properties, eventually<unknown>('ReachesTop', 'the epoch reaches 3', (s) => (s as { e: number }).e === 3)] };
  assert.deepEqual(shape(await checkModel(withTemporal, {}, label({}))), shape(plain));
});

test('a step that changes nothing breaks no step property ([A]_vars), though A is false on it', async () => {
  // SomethingMoves is false on every Rewrite, which makes a new but equal state.
  for (const packed of [false, true]) {
    const r = await check({ packed, reset: false, strict: true });
    assert.deepEqual([r.status, r.stats.distinct], ['holds', 8]);
    // Reset breaks both; the first declared is the verdict.
    const both = await check({ packed, strict: true });
    assert.deepEqual([both.status, 'property' in both ? both.property : undefined], ['violation', 'EpochNeverDecreases']);
  }
});

test('the steps of states outside the CONSTRAINT are not taken: with the top epoch outside it, Reset never fires', async () => {
  const r = await check({ below: 2 });
  assert.equal(r.status, 'holds');
});

test('the step properties ask the CONSTRAINT nothing the search has not asked already: it runs once per successor, with them or without them', async () => {
  const counted = (withSteps: boolean) => {
    let calls = 0;
    const model = build({ below: 2 });
    const constraint = model.constraint!;
    return {
      model: { ...model, constraint: (s: unknown) => (calls++, constraint(s)), properties: model.properties.filter((p) => withSteps || p.kind !== 'everyStep') },
      calls: () => calls,
    };
  };
  const withSteps = counted(true);
  const without = counted(false);
  const a = await checkModel(withSteps.model, {}, label({ below: 2 }));
  const b = await checkModel(without.model, {}, label({ below: 2 }));
  assert.deepEqual([a.status, a.stats.distinct, a.stats.generated], [b.status, b.stats.distinct, b.stats.generated]);
  assert.equal(withSteps.calls(), without.calls());
});

test('worker threads and owners (threads, or objects here) stop at the step one thread stops at, with its counts, coverage and trace', async () => {
  // 31 epochs × 40 counter values: levels wide enough to be shared out from the first.
  for (const params of [{ packed: true, top: 30, wrap: 40, reset: true }, { packed: true, top: 30, wrap: 40, reset: false }] as ParamValues[]) {
    const one = shape(await check(params));
    assert.equal(one.status, params.reset === false ? 'holds' : 'violation');
    if (one.status === 'violation') assert.deepEqual(one.trace!.slice(-2), ['Bump→30', 'Reset→1']);
    const workers = await check(params, { workers: 2, ownerThreadsFromDepth: 1 }, true);
    assert.equal(workers.stats.workers, 2);
    assert.deepEqual(shape(workers), one, 'two worker threads');
    for (const owners of [1, 2, 3]) {
      assert.deepEqual(shape(await check(params, { owners }, true)), one, `${owners} owner threads`);
      assert.deepEqual(shape(await check(params, { owners })), one, `${owners} owners here`);
    }
  }
});

test('the depth-first search reports the step too, with a trace whose last step breaks it', async () => {
  const r = await check({ packed: true, top: 5, wrap: 3 }, { strategy: 'dfs', maxDepth: 100 });
  const s = shape(r);
  assert.deepEqual([s.status, s.kind, s.property, s.trace!.at(-1)], ['violation', 'everyStep', 'EpochNeverDecreases', 'Reset→1']);
  assert.match(s.trace!.at(-2)!, /→5$/);
});

test('simulation ends a walk at a step that breaks a step property, and replay reproduces a recorded one and no longer fits the fix', async () => {
  const walked = await simulate(build({}), { seed: 3, runs: 100, maxDepth: 50 }, label({}));
  assert.equal(walked.status, 'violation');
  if (walked.status !== 'violation') return;
  assert.deepEqual([walked.kind, walked.property, walked.trace.steps.at(-1)?.action, (walked.trace.steps.at(-1)?.state as { e: number }).e], ['everyStep', 'EpochNeverDecreases', 'Reset', 1]);
  // Shrunk to the shortest walk that breaks it: the Ticks and Rewrites the random walk took on the way are cut.
  assert.deepEqual(walked.trace.steps.map((s) => s.action ?? 'Init'), ['Init', 'Bump', 'Bump', 'Bump', 'Reset']);
  assert.ok(walked.shrunkFrom > 4, `shrunk from ${walked.shrunkFrom} steps`);
  const found = await check({});
  assert.ok('trace' in found && found.trace);
  const itf = toItf(found.trace);
  assert.deepEqual(replayTrace(build({}), itf), { kind: 'reproduced', step: 4, property: 'EpochNeverDecreases', recorded: 'EpochNeverDecreases' });
  const fixed = replayTrace(build({ reset: false }), itf);
  assert.equal(fixed.kind, 'diverged');
});

/** x climbs to 2; Drop takes 2 to -1, which breaks both the invariant x >= 0 and the step x' >= x. */
const climbAndDrop = (): Model<unknown> => {
  const X = Record({ x: 0 });
  type X = ReturnType<typeof X>;
  return {
    init: () => [X()],
    actions: [
      { name: 'Inc', enabled: (s: X) => s.x < 2, next: (s: X) => s.set('x', s.x + 1) },
      { name: 'Drop', enabled: (s: X) => s.x === 2, next: (s: X) => s.set('x', -1) },
    ],
    properties: [always<X>('NonNegative', 'x is never negative', (s) => s.x >= 0), everyStep<X>('NeverDown', 'x never goes down', (s, t) => t.x >= s.x)],
  } as unknown as Model<unknown>;
};

test("a successor that breaks an invariant is that invariant's violation, before the step that reached it: every engine and simulate", async () => {
  const label2 = { spec: 'climb', params: {} };
  for (const options of [{}, { strategy: 'dfs', maxDepth: 10 }] as CheckOptions[]) {
    const r = await checkModel(climbAndDrop(), options, label2);
    assert.deepEqual([r.status, 'kind' in r ? r.kind : null, 'property' in r ? r.property : null], ['violation', 'always', 'NonNegative'], JSON.stringify(options));
  }
  const walked = await simulate(climbAndDrop(), { seed: 1, runs: 10, maxDepth: 10 }, label2);
  assert.deepEqual([walked.status, 'kind' in walked ? walked.kind : null], ['violation', 'always']);
});

test('code that only reads the graph does not stop at a bad step: pictures of the neighbourhood and the reachable graph, a replayed deadlock, a shrunk deadlock', async () => {
  const found = await check({});
  assert.ok('trace' in found && found.trace);
  const itf = toItf(found.trace);
  // The picture of the counterexample and its neighbours: the last state is marked as reached by the bad step.
  const around = neighbourhoodGraph(build({}), itf, 1);
  // The trace's four states and the neighbours (0, 1), (2, 1), (3, 1); the last state, where the trace ends, is not expanded.
  assert.equal(around.order, 7);
  assert.equal(traceGraph(itf).findNode((_, a) => a.violates !== undefined) !== undefined && traceGraph(itf).someNode((_, a) => a.byStep === true), true);
  assert.equal(reachableGraph(build({}), { spec: 'epoch-steps' }).order, 8);
  // A deadlock recorded where Drop is disabled, replayed on a model where a bad step leaves that state.
  const Y = Record({ y: 0 });
  type Y = ReturnType<typeof Y>;
  const upTo2 = (drop: boolean) =>
    ({
      init: () => [Y()],
      actions: [
        { name: 'Up', enabled: (s: Y) => s.y < 2, next: (s: Y) => s.set('y', s.y + 1) },
        ...(drop ? [{ name: 'Restart', enabled: (s: Y) => s.y === 2, next: (s: Y) => s.set('y', 0) }] : []),
      ],
      properties: [everyStep<Y>('NeverDown', 'y never goes down', (s, t) => t.y >= s.y)],
    }) as unknown as Model<unknown>;
  const deadlocked = await checkModel(upTo2(false), {}, { spec: 'up', params: {} });
  assert.ok(deadlocked.status === 'violation' && deadlocked.kind === 'deadlock' && deadlocked.trace);
  assert.deepEqual(replayTrace(upTo2(true), toItf(deadlocked.trace)).kind, 'fits');
  // Simulation: a walk that deadlocks is shrunk without stopping at the bad step of a state it passes.
  for (let seed = 1; seed <= 6; seed++) {
    const r = await simulate(upTo2(false), { seed, runs: 5, maxDepth: 10 }, { spec: 'up', params: {} });
    assert.deepEqual([r.status, 'kind' in r ? r.kind : null], ['violation', 'deadlock'], `seed ${seed}`);
  }
});

test("replay checks a lasso's closing step against the step properties: the step back is found before the temporal verdict", async () => {
  const Z = Record({ x: 0 });
  type Z = ReturnType<typeof Z>;
  const flip = (withStep: boolean) =>
    ({
      init: () => [Z()],
      actions: [{ name: 'Flip', fairness: 'weak', next: (s: Z) => s.set('x', 1 - s.x) }],
      properties: [eventually<Z>('ReachesTwo', 'x reaches 2', (s) => s.x === 2), ...(withStep ? [everyStep<Z>('NeverDown', 'x never goes down', (s, t) => t.x >= s.x)] : [])],
    }) as unknown as Model<unknown>;
  const lasso = await checkModel(flip(false), {}, { spec: 'flip', params: {} });
  assert.ok(lasso.status === 'violation' && lasso.kind === 'liveness' && lasso.trace);
  const itf = toItf(lasso.trace);
  assert.deepEqual(replayTrace(flip(false), itf), { kind: 'reproduced', step: 1, property: 'ReachesTwo', recorded: 'ReachesTwo', loop: 0 });
  // With the step property, the step back from 1 to 0 that closes the loop breaks it.
  assert.deepEqual(replayTrace(flip(true), itf), { kind: 'reproduced', step: 2, property: 'NeverDown', recorded: 'ReachesTwo' });
  const search = await checkModel(flip(true), {}, { spec: 'flip', params: {} });
  assert.deepEqual([search.status, 'property' in search ? search.property : null], ['violation', 'NeverDown']);
});
