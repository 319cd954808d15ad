/**
 * The liveness verdict held to TLA+'s definitions on random graphs (test/fixtures/randomLivenessSpec.ts;
 * states as numbers, and as records declared with a layout),
 * judged here without the checker's code: a property fails iff some set C of states, strongly connected
 * by its own steps (or one state, which may stutter for ever), reachable where the property lets a
 * failing behaviour go (for ◇□P: anywhere, C holding a ¬P state), admits a fair behaviour that stays in
 * C and visits all of it. Under a CONSTRAINT and an ACTION_CONSTRAINT, as TLC has them, the states and
 * steps are the model's (no node cut off, and no step ruled out, is taken or in C), but a step out of the
 * model still enables its key, unless it goes back to the same node.
 * For every fairness
 * key K, with a step "enabling" or "taking" K only when it changes the state (`<<A>>_vars`):
 * - WF: if K is enabled in every state of C, some step of K goes from C to C;
 * - SF: if K is enabled in some state of C, some step of K goes from C to C.
 * The graphs have at most six states, so every subset is tried. With two properties, the one reported is
 * the first that fails. A counterexample the checker reports is judged here too: its steps are edges, its
 * loop closes, the property fails on it and its cycle is fair.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { type LiveGraph, type LiveProperty, liveGraph, liveModel } from '../../../test/fixtures/randomLivenessSpec.ts';
import { checkModel } from '../check.ts';
import { replayTrace } from '../replay.ts';
import { toItf } from '../../../traces/itf/write.ts';
import type { ActionParams } from '../../../spec/spec.ts';

const modulePath = fileURLToPath(new URL('../../../test/fixtures/randomLivenessSpec.ts', import.meta.url));

interface Step {
  readonly from: number;
  readonly to: number;
  /** Its fairness key, or null where the step is never owed. */
  readonly key: string | null;
  /** A step of the model: to a node within the CONSTRAINT, and within the ACTION_CONSTRAINT. */
  readonly inModel: boolean;
}

function keyOf(g: LiveGraph, action: number, from: number, params: ActionParams): string | null {
  const a = g.actions[action]!;
  if (a.fairness === 'none' || !a.fairIn.has(from)) return null;
  const { to, i } = params as { to: number; i: number };
  return a.grouping === 'action' ? a.name : a.grouping === 'target' ? `${a.name}>${to}` : `${a.name}(${to},${i})`;
}

function stepsOf(g: LiveGraph): Step[] {
  const steps: Step[] = [];
  const inModel = (from: number, to: number) => !g.cut.has(to) && !g.forbidden.has(`${from}>${to}`);
  g.actions.forEach((a, action) => a.targets.forEach((ts, from) => ts.forEach((to, i) => steps.push({ from, to, key: keyOf(g, action, from, { to, i }), inModel: inModel(from, to) }))));
  return steps;
}

const strongKey = (g: LiveGraph, key: string) => g.actions.find((a) => key.startsWith(a.name))!.fairness === 'strong';

function reach(from: Iterable<number>, steps: readonly Step[], allowed: (u: number) => boolean): Set<number> {
  const seen = new Set([...from].filter(allowed));
  const queue = [...seen];
  while (queue.length > 0) {
    const u = queue.pop()!;
    for (const s of steps) if (s.inModel && s.from === u && allowed(s.to) && !seen.has(s.to)) (seen.add(s.to), queue.push(s.to));
  }
  return seen;
}

/** Whether a behaviour that stays in `c` for ever, visiting all of it and taking every step inside it, is fair. */
function fairIn(g: LiveGraph, steps: readonly Step[], c: ReadonlySet<number>): boolean {
  const moving = steps.filter((s) => s.key !== null && s.from !== s.to);
  for (const key of new Set(moving.map((s) => s.key!))) {
    const enabledAt = [...c].filter((u) => moving.some((s) => s.key === key && s.from === u));
    const taken = moving.some((s) => s.key === key && s.inModel && c.has(s.from) && c.has(s.to));
    const owed = strongKey(g, key) ? enabledAt.length > 0 : enabledAt.length === c.size;
    if (owed && !taken) return false;
  }
  return true;
}

function stronglyConnected(c: ReadonlySet<number>, steps: readonly Step[]): boolean {
  if (c.size === 1) return true; // one state may stutter for ever
  const inside = steps.filter((s) => s.inModel && c.has(s.from) && c.has(s.to) && s.from !== s.to);
  const first = [...c][0]!;
  const forward = reach([first], inside, (u) => c.has(u));
  const backward = reach([first], inside.map((s) => ({ ...s, from: s.to, to: s.from })), (u) => c.has(u));
  return forward.size === c.size && backward.size === c.size;
}

/** Where a behaviour failing the property may be once it fails for ever, and from where it gets there. */
function failingRegion(g: LiveGraph, lp: LiveProperty, steps: readonly Step[]): { allowed: (u: number) => boolean; region: Set<number> } {
  const inModel = (u: number) => !g.cut.has(u);
  const reachable = reach(g.inits, steps, inModel);
  const notP = (u: number) => inModel(u) && !lp.p.has(u);
  const notQ = (u: number) => inModel(u) && !lp.q.has(u);
  if (lp.kind === 'eventually') return { allowed: notP, region: reach(g.inits, steps, notP) };
  if (lp.kind === 'alwaysEventually') return { allowed: notP, region: [...reachable].filter(notP).reduce((r, u) => r.add(u), new Set<number>()) };
  if (lp.kind === 'eventuallyAlways') return { allowed: inModel, region: reachable };
  return { allowed: notQ, region: reach([...reachable].filter((u) => lp.p.has(u) && notQ(u)), steps, notQ) };
}

/** TLA+'s verdict: does a fair behaviour fail the property? */
function fails(g: LiveGraph, lp: LiveProperty): boolean {
  const steps = stepsOf(g);
  const region = [...failingRegion(g, lp, steps).region];
  for (let mask = 1; mask < 1 << region.length; mask++) {
    const c = new Set(region.filter((_, k) => mask & (1 << k)));
    if (lp.kind === 'eventuallyAlways' && [...c].every((u) => lp.p.has(u))) continue;
    if (stronglyConnected(c, steps) && fairIn(g, steps, c)) return true;
  }
  return false;
}

/** Checks a reported lasso against the graph: its steps, its loop, the property failing on it, its cycle fair. */
function judgeCounterexample(g: LiveGraph, lp: LiveProperty, trace: { steps: readonly { action: string; params: ActionParams; state: unknown }[]; loop?: { index: number; action?: string; params?: ActionParams } }): void {
  const states = trace.steps.map((s) => (typeof s.state === 'number' ? s.state : (s.state as { at: number }).at));
  assert.ok(g.inits.includes(states[0]!), `the lasso starts at an initial state (${states[0]})`);
  assert.ok(states.every((u) => !g.cut.has(u)), 'the lasso stays in the model');
  const actionIndex = (name: string) => g.actions.findIndex((a) => a.name === name);
  const moves = trace.steps.slice(1).map((s, k) => {
    const a = actionIndex(s.action);
    const { to, i } = s.params as { to: number; i: number };
    assert.equal(g.actions[a]?.targets[states[k]!]?.[i], to, `step ${k + 1} (${s.action} ${to}) is an edge of the graph`);
    assert.equal(states[k + 1], to);
    assert.ok(!g.forbidden.has(`${states[k]}>${to}`), `step ${k + 1} is within the ACTION_CONSTRAINT`);
    return { from: states[k]!, to, key: keyOf(g, a, states[k]!, s.params) };
  });
  const loop = trace.loop!;
  assert.ok(loop !== undefined, 'a liveness counterexample has a loop');
  const cycle = moves.slice(loop.index);
  if (loop.action !== undefined) {
    const a = actionIndex(loop.action);
    const { to, i } = loop.params as { to: number; i: number };
    const last = states[states.length - 1]!;
    assert.equal(g.actions[a]?.targets[last]?.[i], to, 'the closing step is an edge of the graph');
    assert.equal(to, states[loop.index], 'the closing step leads back to the loop');
    assert.ok(!g.forbidden.has(`${last}>${to}`), 'the closing step is within the ACTION_CONSTRAINT');
    cycle.push({ from: last, to, key: keyOf(g, a, last, loop.params!) });
  } else assert.equal(loop.index, states.length - 1, 'a stuttering loop is the last state');
  const cycleStates = states.slice(loop.index);
  const failing = (u: number) => !(lp.kind === 'leadsTo' ? lp.q : lp.p).has(u);
  if (lp.kind === 'eventuallyAlways') assert.ok(cycleStates.some(failing), '◇□P: the cycle comes back to a ¬P state');
  else assert.ok(cycleStates.every(failing), 'the property fails all along the cycle');
  if (lp.kind === 'eventually') assert.ok(states.every(failing), '◇P: no state of the lasso satisfies P');
  if (lp.kind === 'leadsTo') {
    const lastP = states.map((u) => lp.p.has(u)).lastIndexOf(true);
    assert.ok(lastP >= 0 && states.slice(lastP).every(failing), 'P ~> Q: a P-state with no Q-state after it');
  }
  // The cycle's own steps: a key it owes is one enabled (by a step that moves) in every cycle state (WF) or in one (SF).
  const steps = stepsOf(g).filter((s) => s.key !== null && s.from !== s.to);
  const taken = new Set(cycle.filter((m) => m.key !== null && m.from !== m.to).map((m) => m.key));
  for (const key of new Set(steps.map((s) => s.key!))) {
    const enabled = cycleStates.filter((u) => steps.some((s) => s.key === key && s.from === u)).length;
    const owed = strongKey(g, key) ? enabled > 0 : enabled === cycleStates.length;
    assert.ok(!owed || taken.has(key), `the cycle is fair: ${key} is owed and taken`);
  }
}

const label = (seed: number) => ({ spec: 'random-liveness', params: { seed } });
const seeds = fc.integer({ min: 0, max: 2 ** 31 });
const graphs = fc.record({ seed: seeds, packed: fc.boolean() });

test('random graphs: the liveness verdict is TLA+\'s, and each counterexample is a fair lasso on which the property fails', async () => {
  let violations = 0;
  let holds = 0;
  await fc.assert(
    fc.asyncProperty(graphs, async ({ seed, packed }) => {
      const g = liveGraph(seed);
      const r = await checkModel(liveModel(g, packed), { deadlock: false }, label(seed));
      // The first property that fails, in the order the spec declares them.
      const failed = g.properties.find((lp) => fails(g, lp));
      const what = `seed ${seed}${packed ? ', packed' : ''}`;
      assert.equal(r.status, failed ? 'violation' : 'holds', what);
      if (r.status !== 'violation') return void holds++;
      violations++;
      assert.equal(r.property, failed!.name, what);
      judgeCounterexample(g, failed!, r.trace! as never);
      assert.equal(replayTrace(liveModel(g, packed), toItf(r.trace!)).kind, 'reproduced');
    }),
    { seed: 3, numRuns: process.env.KMC_SLOW ? 1500 : 300 },
  );
  // Both verdicts come up often enough for the property to mean something.
  assert.ok(violations > 40 && holds > 40, `${violations} violations, ${holds} holds`);
});

test('random graphs: depth-first, and with 2 worker threads, the liveness pass of its own gives the same verdict and lasso', async () => {
  await fc.assert(
    fc.asyncProperty(graphs, async ({ seed, packed }) => {
      const g = liveGraph(seed);
      const one = await checkModel(liveModel(g, packed), { deadlock: false }, label(seed));
      const dfs = await checkModel(liveModel(g, packed), { deadlock: false, strategy: 'dfs' }, label(seed));
      const workers = await checkModel(liveModel(g, packed), { deadlock: false, workers: 2, ownerThreadsFromDepth: 1 }, label(seed), { modulePath, params: { seed, packed } });
      for (const r of [dfs, workers]) {
        assert.equal(r.status, one.status, `seed ${seed}`);
        if (r.status !== 'violation' || one.status !== 'violation') continue;
        assert.equal(r.property, one.property, `seed ${seed}`);
        judgeCounterexample(g, g.properties.find((lp) => lp.name === r.property)!, r.trace! as never);
      }
    }),
    { seed: 5, numRuns: process.env.KMC_SLOW ? 30 : 6 },
  );
});
