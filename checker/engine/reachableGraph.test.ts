import { test } from 'node:test';
import assert from 'node:assert/strict';
import twoPhase from '../../spec/twophase/twoPhase.ts';
import { toItf, type ItfTrace } from '../../traces/itf/write.ts';
import { checkModel } from './check.ts';
import { neighbourhoodGraph, overlayTrace, reachableGraph, replayItf } from './reachableGraph.ts';
import counters from '../../test/fixtures/boundedCounters.ts';
import { UserError } from '../run/userError.ts';

const buggy = { rm: 3, bug: 'tmCommitEarly' };
async function twoPhaseTrace(): Promise<ItfTrace> {
  const r = await checkModel(twoPhase.build(buggy), {}, { spec: 'twophase', params: buggy });
  assert.ok(r.status === 'violation' && r.trace, `expected a violation with a trace, got ${r.status}`);
  return toItf(r.trace);
}

test('replaying an ITF trace finds the model states it recorded', async () => {
  const itf = await twoPhaseTrace();
  const states = replayItf(twoPhase.build(buggy), itf);
  assert.equal(states.length, 6);
  assert.equal(states[5]!.rmState.get('r1'), 'committed');
  assert.equal(states[5]!.rmState.get('r2'), 'aborted');
});

test('a trace that does not fit the model is refused, naming the step', async () => {
  const itf = await twoPhaseTrace();
  // Under the correct protocol the TM cannot commit after one Prepared: step 3 has no matching successor.
  assert.throws(
    () => replayItf(twoPhase.build({ rm: 3, bug: 'none' }), itf),
    (e: unknown) => e instanceof UserError && /step 3 \(TMCommit\) is not a successor of step 2/.test(e.message) && /--spec/.test(e.message),
  );
  const tampered = structuredClone(itf) as unknown as { states: { tmState: string }[] };
  tampered.states[0]!.tmState = 'committed';
  assert.throws(() => replayItf(twoPhase.build(buggy), tampered as unknown as ItfTrace), /no initial state of the model equals step 0/);
});

test('the neighbourhood grows hop by hop, marking the other violating states', async () => {
  const itf = await twoPhaseTrace();
  const model = twoPhase.build(buggy);
  const seen = [0, 1, 2, 3].map((hops) => {
    const g = neighbourhoodGraph(model, itf, hops);
    return [hops, g.order, g.size, g.filterNodes((_, a) => a.violates !== undefined).length, g.filterEdges((_, e) => e.onTrace).length];
  });
  // [hops, states, transitions, violating states, trace transitions]
  assert.deepEqual(seen, [
    [0, 6, 5, 1, 5],
    [1, 31, 32, 2, 5],
    [2, 84, 160, 7, 5],
    [3, 158, 390, 11, 5],
  ]);
  const g = neighbourhoodGraph(model, itf, 1);
  // Off-trace states remember the trace state they branch from, and one hop out they are not expanded.
  const off = g.filterNodes((_, a) => !a.onTrace);
  assert.equal(off.length, 25);
  assert.ok(off.every((k) => g.getNodeAttribute(k, 'depth') === 1 && g.getNodeAttribute(g.getNodeAttribute(k, 'parent')!, 'onTrace')), 'each off-trace state is one step from its trace state');
  assert.ok(off.every((k) => g.getNodeAttribute(k, 'frontier') === true), 'off-trace states are not expanded');
});

test('the whole reachable graph of two-phase commit with 3 RMs has TLC’s 288 states', async () => {
  const model = twoPhase.build({ rm: 3, bug: 'none' });
  const g = reachableGraph(model, { spec: 'twophase' });
  const check = await checkModel(model, {}, { spec: 'twophase', params: { rm: 3 } });
  assert.equal(g.order, 288);
  assert.equal(check.stats.distinct, 288);
  // Every generated successor is one edge; the checker also counts the initial state as generated.
  assert.equal(g.size, 1145);
  assert.equal(check.stats.generated, 1146);
  assert.equal(g.filterNodes((_, a) => a.initial).length, 1);
  assert.equal(g.filterNodes((_, a) => a.violates !== undefined).length, 0);
});

test('the reachable graph of a model with constraints expands the states the check counts, and draws the ones cut off', async () => {
  for (const steps of [false, true]) {
    const model = counters.build({ n: 3, k: 4, tight: false, outsideInit: false, throwAt: -1, steps, lastAtMost: -1, form: 'immutable' });
    const g = reachableGraph(model, { spec: 'bounded-counters' });
    const check = await checkModel(model, {}, { spec: 'bounded-counters', params: {} });
    const inside = g.filterNodes((_, a) => a.frontier !== true);
    assert.equal(inside.length, check.stats.distinct, `steps=${steps}`);
    // Each state the check counts has all its successors drawn: one edge per successor it generated.
    const edgesOut = inside.reduce((n, k) => n + g.outDegree(k), 0);
    assert.equal(edgesOut + 1, check.stats.generated, `steps=${steps}`);
    assert.ok(g.order > inside.length, 'states cut off are drawn too');
  }
});

test('the neighbourhood of a trace expands only states of the model: none outside the constraint, none reached only by a ruled-out step', async () => {
  // [ACTION_CONSTRAINT on, counters, bound K, LastBounded bound]: the counterexample runs the last counter up.
  for (const [steps, n, k, last] of [[false, 3, 2, 1], [true, 3, 5, 3]] as const) {
    const params = { n, k, tight: false, outsideInit: false, throwAt: -1, steps, lastAtMost: last, form: 'layout' };
    const model = counters.build(params);
    const r = await checkModel(model, {}, { spec: 'bounded-counters', params });
    assert.ok(r.status === 'violation' && r.trace, `steps=${steps}`);
    const hops = 3;
    const g = neighbourhoodGraph(model, toItf(r.trace), hops);
    const x = (key: string) => (g.getNodeAttribute(key, 'vars') as { x: { '#bigint': string }[] }).x.map((v) => Number(v['#bigint']));
    const inConstraint = (key: string) => x(key).reduce((a, v) => a + v, 0) <= k;
    const stepAllowed = (from: string, to: string) => !steps || !(x(from)[0] === 0 && x(to)[n - 1]! > 2);
    const expanded = (key: string) => g.outDegree(key) > 0;
    // A state off the trace is expanded exactly when it is a state of the model reached by an allowed step
    // from an expanded state, fewer than `hops` steps out, and breaks no invariant.
    let cutOff = 0;
    g.forEachNode((key, a) => {
      if (a.onTrace) return;
      const reachedInModel = g.inNeighbors(key).some((from) => expanded(from) && stepAllowed(from, key));
      const shouldExpand = a.depth < hops && a.violates === undefined && inConstraint(key) && reachedInModel;
      assert.equal(expanded(key), shouldExpand, `steps=${steps}: state ${JSON.stringify(x(key))} at depth ${a.depth}`);
      assert.equal(a.frontier === true, !shouldExpand, `steps=${steps}: state ${JSON.stringify(x(key))} frontier`);
      if (a.depth < hops && a.violates === undefined && !shouldExpand) cutOff++;
    });
    assert.ok(cutOff > 0, `steps=${steps}: some state inside the hops is cut off by the ${steps ? 'ACTION_CONSTRAINT' : 'CONSTRAINT'}`);
  }
});

test('the counterexample drawn on the reachable graph of the buggy model', async () => {
  const model = twoPhase.build(buggy);
  const g = reachableGraph(model, { spec: 'twophase' });
  overlayTrace(g, model, await twoPhaseTrace());
  assert.deepEqual(g.filterNodes((_, a) => a.onTrace).map((k) => g.getNodeAttribute(k, 'steps')), [[0], [1], [2], [3], [4], [5]]);
  assert.deepEqual(g.filterEdges((_, e) => e.onTrace).map((k) => g.getEdgeAttribute(k, 'step')), [1, 2, 3, 4, 5]);
  assert.equal(g.getAttribute('verdict')?.property, 'TCConsistent');
});

test('graphs too big to draw are refused politely, saying how to narrow them', async () => {
  assert.throws(
    () => reachableGraph(twoPhase.build({ rm: 5, bug: 'none' }), { spec: 'twophase', title: 'twophase · rm=5' }),
    (e: unknown) =>
      e instanceof UserError &&
      e.message.startsWith('Not drawing the reachable state graph of twophase · rm=5: it has more than 500 states') &&
      /--param/.test(e.message) &&
      /--neighbourhood 1/.test(e.message) &&
      /--max-graph-states N/.test(e.message),
  );
  const itf = await twoPhaseTrace();
  assert.throws(
    () => neighbourhoodGraph(twoPhase.build(buggy), itf, 3, { maxStates: 100 }),
    (e: unknown) => e instanceof UserError && /more than 100 states/.test(e.message) && /fewer hops \(--neighbourhood 2\)/.test(e.message),
  );
});
