import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Action, Model } from '../../../spec/spec.ts';
import { always, sometimes } from '../../../invariants/property.ts';
import { alwaysEventually, eventually, eventuallyAlways, leadsTo } from '../../../invariants/temporal.ts';
import type { Property } from '../../../invariants/property.ts';
import { checkModel, ConfigError } from '../check.ts';
import { FairCycleSearch } from './fairCycle.ts';
import { checkLiveness } from './checkLiveness.ts';
import { Expander } from '../expander.ts';
import type { Limits } from '../limits.ts';
import type { FairGraph } from './graph.ts';
import { replayTrace } from '../replay.ts';
import { toItf } from '../../../traces/itf/write.ts';
import type { Trace } from '../../../traces/trace.ts';
import type { CheckResult } from '../result.ts';
import { layout as L } from '../../../spec/layout/index.ts';

const label = { spec: 'tiny', params: {} };
const traceOf = <S>(r: CheckResult<S>): Trace<S> | undefined => ('trace' in r ? r.trace : undefined);
type Fairness = 'weak' | 'strong' | undefined;

/** A graph from `[from, to, fairKey]` edges (key -1: unfair) and per-key strength. */
function graph(n: number, edges: [number, number, number][], strong: number[]): FairGraph {
  const sorted = [...edges].sort((a, b) => a[0] - b[0]);
  const edgeStart = new Uint32Array(n + 1);
  for (const [u] of sorted) edgeStart[u + 1]!++;
  for (let u = 0; u < n; u++) edgeStart[u + 1]! += edgeStart[u]!;
  return {
    size: n,
    edgeStart,
    edgeTarget: Uint32Array.from(sorted.map((e) => e[1])),
    edgeFair: Int32Array.from(sorted.map((e) => e[2])),
    fairStrong: Uint8Array.from(strong),
  };
}

const all = () => true;

test('fair cycle search: an SCC where a weak key is enabled everywhere and never taken is rejected', () => {
  // 0 <-> 1 by unfair steps; key 0 (weak) leaves to 2 from both.
  const g = graph(3, [[0, 1, -1], [1, 0, -1], [0, 2, 0], [1, 2, 0]], [0]);
  const notTwo = (u: number) => u !== 2;
  assert.equal(new FairCycleSearch(g).find([0], notTwo), null);
  // Key 0 enabled only in state 1: weak fairness is satisfied by visiting 0, where it is disabled.
  const g2 = graph(3, [[0, 1, -1], [1, 0, -1], [1, 2, 0]], [0]);
  assert.deepEqual([...new FairCycleSearch(g2).find([0], notTwo)!].sort(), [0, 1]);
});

test('fair cycle search: strong fairness removes the states where a key is enabled and never taken, then looks again', () => {
  // 0 <-> 1 <-> 2 (weak key 1 on 0->1 and 1->0 ... all taken inside), strong key 0 enabled only at 2 (leaves to 3).
  const g = graph(4, [[0, 1, 1], [1, 0, 1], [1, 2, -1], [2, 1, -1], [2, 3, 0]], [1, 0]);
  const search = new FairCycleSearch(g);
  const found = search.find([0], (u) => u !== 3);
  assert.deepEqual([...found!].sort(), [0, 1]);
  assert.equal(search.stats.refinements, 1);
  // The same key weak: the whole SCC {0, 1, 2} is fair (the key is disabled at 0 and 1).
  const weak = graph(4, [[0, 1, 1], [1, 0, 1], [1, 2, -1], [2, 1, -1], [2, 3, 0]], [0, 0]);
  assert.deepEqual([...new FairCycleSearch(weak).find([0], (u) => u !== 3)!].sort(), [0, 1, 2]);
});

test('fair cycle search: a single state stutters only when no fair key is enabled in it', () => {
  assert.deepEqual([...new FairCycleSearch(graph(2, [[0, 1, -1]], [])).find([0], (u) => u === 0)!], [0]);
  assert.equal(new FairCycleSearch(graph(2, [[0, 1, 0]], [0])).find([0], (u) => u === 0), null);
  // Deep chains do not overflow the stack (Tarjan is iterative).
  const n = 200_000;
  const chain = graph(n, Array.from({ length: n - 1 }, (_, i) => [i, i + 1, 0] as [number, number, number]), [0]);
  assert.deepEqual([...new FairCycleSearch(chain).find([0], all)!], [n - 1]);
});

test('fair cycle search: a graph of 200,000 states asks as it goes whether to stop, and stops when told', () => {
  const n = 200_000;
  const ring = graph(n, Array.from({ length: n }, (_, i) => [i, (i + 1) % n, -1] as [number, number, number]), []);
  let asked = 0;
  const search = new FairCycleSearch(ring, () => {
    if (++asked === 3) throw new Error('a limit came');
  });
  assert.throws(() => search.find([0], all), /a limit came/);
  assert.equal(asked, 3);
  // Told nothing, it finds the ring, and the stop left no state marked as visited.
  assert.equal(search.find([0], all)!.length, n);
});

test('the liveness pass ends incomplete when a limit comes while it looks for fair cycles, and judges when none comes', async () => {
  // A ring of 100,000 states on which x never reaches -1: the exploration is asked nothing (lookDue),
  // so the limit is heard where the cycles are looked for.
  const n = 100_000;
  const ring: Model<number> = { init: () => [0], actions: [{ name: 'Step', next: (x) => (x + 1) % n }], properties: [eventually('Never', 'x reaches -1', (x: number) => x === -1)] };
  const limitsSaying = (reason: string | null) => ({ lookDue: () => false, exceeded: () => reason, shouldYield: () => false }) as unknown as Limits;
  const stopped = await checkLiveness(new Expander(ring, false), limitsSaying('timeLimit'), label);
  assert.deepEqual(stopped, { kind: 'incomplete', reason: 'timeLimit' });
  const judged = await checkLiveness(new Expander(ring, false), limitsSaying(null), label);
  assert.equal(judged.kind === 'violation' && judged.property.name, 'Never');
});

/**
 * x in 0..2 from 0. Spin toggles 0 <-> 1; Finish goes to 2 (from `finishFrom`). ◇(x = 2) is the property.
 */
function spinModel(spin: Fairness, finish: Fairness, finishFrom: number[], properties?: Property<number>[]): Model<number> {
  const actions: Action<number>[] = [
    { name: 'Spin', enabled: (x) => x < 2, next: (x) => 1 - x, ...(spin ? { fairness: spin } : {}) },
    { name: 'Finish', enabled: (x) => finishFrom.includes(x), next: () => 2, ...(finish ? { fairness: finish } : {}) },
  ];
  return { init: () => [0], actions, properties: properties ?? [eventually('Finishes', 'x reaches 2', (x: number) => x === 2)] };
}

test('◇P without fairness: the behaviour may stop before P (stuttering), a one-state lasso', async () => {
  const r = await checkModel(spinModel(undefined, undefined, [0, 1]), { deadlock: false }, label);
  assert.equal(r.status, 'violation');
  assert.equal(r.status === 'violation' && r.kind, 'liveness');
  assert.deepEqual(traceOf(r)?.steps.map((s) => s.state), [0]);
  assert.deepEqual(traceOf(r)?.loop, { index: 0 });
  assert.equal(r.stats.distinct, 3);
});

test('◇P: an unfair cycle is ignored once the action leaving it is weakly fair and enabled all along it', async () => {
  const r = await checkModel(spinModel('weak', 'weak', [0, 1]), { deadlock: false }, label);
  assert.equal(r.status, 'holds');
});

test('◇P: weak and strong fairness differ when the exit is enabled only now and then', async () => {
  const weak = await checkModel(spinModel('weak', 'weak', [1]), { deadlock: false }, label);
  assert.equal(weak.status, 'violation');
  // The lasso: 0 -Spin-> 1, then Spin back to step 0 for ever; Finish is enabled only at 1.
  assert.deepEqual(traceOf(weak)?.steps.map((s) => [s.action, s.state]), [['Init', 0], ['Spin', 1]]);
  assert.deepEqual(traceOf(weak)?.loop, { index: 0, action: 'Spin', params: {} });
  const itf = toItf(traceOf(weak)!);
  assert.equal(itf.loop, 0);
  assert.deepEqual(itf['#meta'].loopStep, { action: 'Spin', params: {} });
  assert.deepEqual(replayTrace(spinModel('weak', 'weak', [1]), itf), { kind: 'reproduced', step: 1, property: 'Finishes', recorded: 'Finishes', loop: 0 });
  // Under strong fairness the same lasso is not fair: replay says so, and the check holds.
  const strongModel = spinModel('weak', 'strong', [1]);
  const replayed = replayTrace(strongModel, itf);
  assert.equal(replayed.kind, 'diverged');
  assert.match(replayed.kind === 'diverged' ? replayed.reason : '', /the loop is not fair: Finish is never taken on it although it is enabled on it \(strong fairness\)/);
  assert.equal((await checkModel(strongModel, { deadlock: false }, label)).status, 'holds');
});

test('P ~> Q: stem to the P-state, then the stuck state repeats', async () => {
  // 0 -Request-> 1 -Grant-> 2 -Reset-> 0; Grant unfair: after a request nothing forces the grant.
  const model = (grant: Fairness): Model<number> => ({
    init: () => [0],
    actions: [
      { name: 'Request', enabled: (x) => x === 0, next: () => 1, fairness: 'weak' },
      { name: 'Grant', enabled: (x) => x === 1, next: () => 2, ...(grant ? { fairness: grant } : {}) },
      { name: 'Reset', enabled: (x) => x === 2, next: () => 0, fairness: 'weak' },
    ],
    properties: [always('Small', 'x <= 2', (x: number) => x <= 2), leadsTo('Granted', 'a request is granted', (x: number) => x === 1, (x: number) => x === 2)],
  });
  const r = await checkModel(model(undefined), {}, label);
  assert.equal(r.status === 'violation' && r.property, 'Granted');
  assert.deepEqual(traceOf(r)?.steps.map((s) => s.action), ['Init', 'Request']);
  assert.deepEqual(traceOf(r)?.loop, { index: 1 });
  assert.equal(replayTrace(model(undefined), toItf(traceOf(r)!)).kind, 'reproduced');
  assert.equal((await checkModel(model('weak'), {}, label)).status, 'holds');
});

test('□◇P: a fair cycle that avoids P for ever', async () => {
  // 0 <-> 1 by Spin (weak); Visit 0 -> 3 -> 0 goes through P (x = 3) but is unfair.
  const model: Model<number> = {
    init: () => [0],
    actions: [
      { name: 'Spin', enabled: (x) => x < 2, next: (x) => 1 - x, fairness: 'weak' },
      { name: 'Visit', enabled: (x) => x === 0, next: () => 3 },
      { name: 'Back', enabled: (x) => x === 3, next: () => 0, fairness: 'weak' },
    ],
    properties: [alwaysEventually('VisitsThree', 'x is 3 again and again', (x: number) => x === 3)],
  };
  const r = await checkModel(model, {}, label);
  assert.equal(r.status === 'violation' && r.property, 'VisitsThree');
  assert.deepEqual(traceOf(r)?.steps.map((s) => s.state), [0, 1]);
  assert.deepEqual(traceOf(r)?.loop, { index: 0, action: 'Spin', params: {} });
});

test('◇□P: a behaviour that comes back to a ¬P state for ever fails it, one that settles in P does not; □◇P is another property', async () => {
  // 0 (P) <-> 1 (¬P) by Flip: a behaviour may flip for ever, and then keeps coming back to 1.
  const settlesInP = eventuallyAlways('SettlesInP', 'x is not 1 from some point on', (x: number) => x !== 1);
  const flip = (fairness: Fairness, settle: boolean, properties = [alwaysEventually('OftenP', 'x is not 1 again and again', (x: number) => x !== 1), settlesInP]): Model<number> => ({
    init: () => [0],
    actions: [
      { name: 'Flip', enabled: (x) => x < 2, next: (x) => 1 - x, ...(fairness ? { fairness } : {}) },
      // Settle from 0 to 2, where nothing is enabled: P for good.
      ...(settle ? [{ name: 'Settle', enabled: (x: number) => x === 0, next: () => 2, fairness: 'strong' as const }] : []),
    ],
    properties,
  });
  // □◇P holds on the flipping behaviour, ◇□P does not: the lasso's cycle goes through the ¬P state.
  const r = await checkModel(flip('weak', false), { deadlock: false }, label);
  assert.equal(r.status === 'violation' && r.property, 'SettlesInP');
  assert.deepEqual(traceOf(r)?.steps.map((s) => [s.action, s.state]), [['Init', 0], ['Flip', 1]]);
  assert.deepEqual(traceOf(r)?.loop, { index: 0, action: 'Flip', params: {} });
  assert.deepEqual(replayTrace(flip('weak', false), toItf(traceOf(r)!)), { kind: 'reproduced', step: 1, property: 'SettlesInP', recorded: 'SettlesInP', loop: 0 });
  // Nothing fair: the behaviour may also stop in the ¬P state (□◇P fails there too, so it is left out).
  const unfair = await checkModel(flip(undefined, false, [settlesInP]), { deadlock: false }, label);
  assert.equal(unfair.status === 'violation' && unfair.property, 'SettlesInP');
  assert.deepEqual(traceOf(unfair)?.steps.map((s) => s.state), [0, 1]);
  assert.equal(replayTrace(flip(undefined, false, [settlesInP]), toItf(traceOf(unfair)!)).kind, 'reproduced');
  // Settle strongly fair: every fair behaviour ends in 2 and stays there, so ◇□P holds (and □◇P).
  assert.equal((await checkModel(flip('weak', true), { deadlock: false }, label)).status, 'holds');
  // A fair lasso that stays in P states is no counterexample to ◇□P: replay says the property holds on it.
  const stays = toItf({ ...traceOf(unfair)!, steps: traceOf(unfair)!.steps.slice(0, 1), loop: { index: 0 } });
  const replayed = replayTrace(flip(undefined, false, [settlesInP]), stays);
  assert.match(replayed.kind === 'diverged' ? replayed.reason : replayed.kind, /the loop is fair but SettlesInP holds on it/);
});

test('fairness per key: one obligation per voter differs from one for the whole action', async () => {
  // Toggle(a) flips a's flag for ever; Toggle(b) sets b's flag once. ◇(b set).
  const model = (fairnessKey?: (p: { v: unknown }) => string): Model<string> => ({
    init: () => ['--'],
    actions: [
      {
        name: 'Toggle',
        params: () => [{ v: 'a' }, { v: 'b' }],
        enabled: (s, { v }) => v === 'a' || s[1] === '-',
        next: (s, { v }) => (v === 'a' ? (s[0] === 'a' ? '-' : 'a') + s[1] : s[0] + 'b'),
        fairness: 'weak',
        ...(fairnessKey ? { fairnessKey } : {}),
      },
    ],
    properties: [eventually('BServed', 'b is served', (s: string) => s[1] === 'b')],
  });
  // Per parameter value (the default) or per voter: Toggle(b) stays enabled, so it must be taken.
  assert.equal((await checkModel(model(), {}, label)).status, 'holds');
  assert.equal((await checkModel(model(({ v }) => String(v)), {}, label)).status, 'holds');
  // One obligation for the whole action (WF_vars(\E v : Toggle(v))): toggling a for ever satisfies it.
  const r = await checkModel(model(() => 'any'), {}, label);
  assert.equal(r.status === 'violation' && r.property, 'BServed');
  assert.deepEqual(traceOf(r)?.steps.map((s) => s.state), ['--', 'a-']);
  assert.equal(traceOf(r)?.loop?.index, 0);
});

test('fairWhen: an action owed only in some states (WF of a sub-action) differs from one owed everywhere', async () => {
  // Spin toggles 0 <-> 1 (fair); Finish is enabled in 0 and 1 and goes to 2. Owed only in state 1, the
  // cycle 0 <-> 1 still owes it (enabled-and-owed in 1 only, but weak fairness needs it owed all along:
  // it is not, so the cycle is fair and ◇(x = 2) fails). Owed in both, the cycle is unfair and it holds.
  const model = (fairWhen?: (x: number) => boolean): Model<number> => ({
    init: () => [0],
    actions: [
      { name: 'Spin', enabled: (x) => x < 2, next: (x) => 1 - x, fairness: 'weak' },
      { name: 'Finish', enabled: (x) => x < 2, next: () => 2, fairness: 'weak', ...(fairWhen ? { fairWhen } : {}) },
    ],
    properties: [eventually('Finishes', 'x reaches 2', (x: number) => x === 2)],
  });
  assert.equal((await checkModel(model(), { deadlock: false }, label)).status, 'holds');
  const r = await checkModel(model((x) => x === 1), { deadlock: false }, label);
  assert.equal(r.status === 'violation' && r.kind, 'liveness');
  assert.deepEqual(traceOf(r)!.steps.map((st) => st.state), [0, 1]);
  assert.equal(traceOf(r)!.loop?.index, 0);
  // The lasso replays, and replay judges it by the same owed-when rule.
  const replayed = replayTrace(model((x) => x === 1), toItf(traceOf(r)!));
  assert.equal(replayed.kind, 'reproduced');
  // Owed nowhere on the cycle: Finish never forced, even with strong fairness.
  const strong: Model<number> = { ...model(() => false), actions: model(() => false).actions.map((a) => (a.name === 'Finish' ? { ...a, fairness: 'strong' as const } : a)) };
  assert.equal((await checkModel(strong, { deadlock: false }, label)).status, 'violation');
});

/** x in 0..1 from 0; Go, weakly fair as one obligation, goes from 0 to each of `targets` (0 itself among them: a step that changes nothing). */
function loopModel(targets: number[]): Model<number> {
  return {
    init: () => [0],
    actions: [
      { name: 'Go', params: (x: number) => (x === 0 ? targets.map((to) => ({ to })) : []), next: (_x: number, { to }: { to: number }) => to, fairness: 'weak', fairnessKey: () => 'one' } as Action<number, { to: number }>,
    ],
    properties: [eventually('Reaches1', 'x reaches 1', (x: number) => x === 1)],
  };
}

test("a step back to the same state neither enables its fairness nor pays it (TLA+'s <<A>>_vars)", async () => {
  // Go to 1 is enabled at 0 for ever unless taken: looping on Go to 0 does not discharge it.
  assert.equal((await checkModel(loopModel([0, 1]), { deadlock: false }, label)).status, 'holds');
  // With the loop alone nothing fair is enabled at 0: the behaviour may stay there, and the lasso stutters.
  const alone = await checkModel(loopModel([0]), { deadlock: false }, label);
  assert.equal(alone.status, 'violation');
  assert.deepEqual(traceOf(alone)?.steps.map((s) => s.state), [0]);
  assert.deepEqual(traceOf(alone)?.loop, { index: 0 });
  // A lasso that loops on Go to 0 while Go to 1 is enabled is not fair, replayed or walked.
  const looping: Trace<number> = {
    spec: 'tiny',
    params: {},
    steps: [{ index: 0, action: 'Init', params: {}, state: 0 }],
    verdict: { kind: 'liveness', property: 'Reaches1', description: 'x reaches 1' },
    loop: { index: 0, action: 'Go', params: { to: 0 } },
  };
  assert.equal(replayTrace(loopModel([0]), toItf(looping)).kind, 'reproduced');
  const replayed = replayTrace(loopModel([0, 1]), toItf(looping));
  assert.equal(replayed.kind, 'diverged');
  assert.match(replayed.kind === 'diverged' ? replayed.reason : '', /the loop is not fair: Go\[one\] is never taken on it although it is enabled all along it \(weak fairness\)/);
  const { simulate } = await import('../simulate.ts');
  assert.equal((await simulate(loopModel([0, 1]), { seed: 1, runs: 20, maxDepth: 10, deadlock: false }, label)).status, 'holds');
  assert.equal((await simulate(loopModel([0]), { seed: 1, runs: 20, maxDepth: 10, deadlock: false }, label)).status, 'violation');
});

test("under a CONSTRAINT, as in TLC: a step out of the model is in no behaviour but still enables its action's fairness, in every engine, with TLC's warning", async () => {
  // 0 -Go-> 1 -Back-> 0, with 1 outside the CONSTRAINT: from 0 every step leaves the model.
  const State = L.record('Boundary', { x: L.int(0, 1) });
  type Boundary = { readonly x: number };
  const at = (x: number) => State.from({ x }) as Boundary;
  const model = (go: Fairness): Model<Boundary> => ({
    layout: State,
    init: () => [at(0)],
    actions: [
      { name: 'Go', enabled: (s) => s.x === 0, next: () => at(1), ...(go ? { fairness: go } : {}) },
      { name: 'Back', enabled: (s) => s.x === 1, next: () => at(0), fairness: 'weak' },
    ],
    constraint: (s) => s.x === 0,
    properties: [eventually('ReachesOne', 'x is 1 some time (never in the model)', (s: Boundary) => s.x === 1)],
  });
  for (const options of [{}, { strategy: 'dfs' as const }, { owners: 2 }]) {
    const warnings: string[] = [];
    // Go unfair: the behaviour may stop at 0, where nothing fair is enabled; the step to 1 is no step of it.
    const stops = await checkModel(model(undefined), { ...options, deadlock: false, onWarning: (w) => warnings.push(w) }, label);
    assert.equal(stops.status === 'violation' && stops.property, 'ReachesOne', JSON.stringify(options));
    assert.deepEqual(traceOf(stops)?.steps.map((s) => s.state.x), [0]);
    assert.deepEqual(traceOf(stops)?.loop, { index: 0 });
    // Go weakly fair: enabled at 0 for ever (by a step out of the model) and never taken in it, so no
    // behaviour of the model is fair and ◇P holds there, as TLC finds.
    assert.equal((await checkModel(model('weak'), { ...options, deadlock: false }, label)).status, 'holds', JSON.stringify(options));
    assert.deepEqual(warnings, [
      'the temporal properties ReachesOne are checked on the behaviours within a CONSTRAINT, as TLC checks them: a behaviour the constraints cut short is not one of them, and one may stop for ever in a state whose steps all leave the model, unless a fair action is enabled there (a step out of the model still counts as enabled)',
    ]);
  }
  // A simulated walk leaves the model at its first step; the behaviour it stands for may stop at 0 only while Go is unfair.
  const { simulate } = await import('../simulate.ts');
  const walked = await simulate(model(undefined), { seed: 1, runs: 5, maxDepth: 5, deadlock: false }, label);
  assert.deepEqual([walked.status, 'trace' in walked && walked.trace?.loop], ['violation', { index: 0 }]);
  assert.equal((await simulate(model('weak'), { seed: 1, runs: 5, maxDepth: 5, deadlock: false }, label)).status, 'holds');
});

test('replay: a lasso whose closing step the ACTION_CONSTRAINT rules out is no behaviour of the model', async () => {
  // 0 <-> 1, both steps weakly fair; ◇□(x = 0) fails on the flipping behaviour.
  const flip = (closingAllowed: boolean): Model<number> => ({
    init: () => [0],
    actions: [{ name: 'Flip', next: (x) => 1 - x, fairness: 'weak' }],
    ...(closingAllowed ? {} : { actionConstraint: (x: number, y: number) => !(x === 1 && y === 0) }),
    properties: [eventuallyAlways('SettlesAtZero', 'x is 0 from some point on', (x: number) => x === 0)],
  });
  const r = await checkModel(flip(true), { deadlock: false }, label);
  assert.deepEqual(traceOf(r)?.loop, { index: 0, action: 'Flip', params: {} });
  const replayed = replayTrace(flip(false), toItf(traceOf(r)!));
  assert.match(replayed.kind === 'diverged' ? replayed.reason : replayed.kind, /the step that closes the loop leaves the model \(it is outside the ACTION_CONSTRAINT\)/);
  // Under that constraint the model stops at 1 for ever, where Flip is enabled only by a step out of it: unfair, so the property holds.
  assert.equal((await checkModel(flip(false), { deadlock: false }, label)).status, 'holds');
});

test('liveness refuses symmetry and a VIEW, saying why', async () => {
  const m = spinModel('weak', 'weak', [1]);
  await assert.rejects(checkModel({ ...m, symmetry: [[0, 1]] }, { symmetry: true }, label), (e: Error) => {
    assert.ok(e instanceof ConfigError, `expected a ConfigError, got ${String(e)}`);
    assert.match(e.message, /symmetry reduction cannot be used with the temporal properties Finishes: a cycle in the reduced graph may join states that are permutations of each other/);
    return true;
  });
  await assert.rejects(checkModel({ ...m, view: (x) => x % 2 }, {}, label), /declares a VIEW, which cannot be used with the temporal properties Finishes/);
});

test('bounded liveness in simulation: a walk that returns to a state on it closes a lasso, reported when fair and failing', async () => {
  const { simulate } = await import('../simulate.ts');
  const weak = await simulate(spinModel('weak', 'weak', [1]), { seed: 7, runs: 50, maxDepth: 20, deadlock: false }, label);
  assert.equal(weak.status, 'violation');
  assert.equal(weak.status === 'violation' && weak.kind, 'liveness');
  assert.equal(weak.status === 'violation' && weak.property, 'Finishes');
  const trace = weak.status === 'violation' ? weak.trace : undefined;
  assert.deepEqual(trace?.steps.map((s) => s.state), [0, 1]);
  assert.deepEqual(trace?.loop, { index: 0, action: 'Spin', params: {} });
  assert.equal(replayTrace(spinModel('weak', 'weak', [1]), toItf(trace!)).kind, 'reproduced');
  // Under strong fairness for Finish no loop of a walk is fair: nothing is reported.
  const strong = await simulate(spinModel('weak', 'strong', [1]), { seed: 7, runs: 50, maxDepth: 20, deadlock: false }, label);
  assert.equal(strong.status, 'holds');
});

test('a lasso as text says where it repeats forever', async () => {
  const { renderText } = await import('../../../traces/text.ts');
  const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');
  const cycle = await checkModel(spinModel('weak', 'weak', [1]), { deadlock: false }, label);
  assert.deepEqual(plain(renderText(toItf(traceOf(cycle)!))).split('\n').slice(-2), [
    'Spin leads back to step 0: repeats forever from step 0',
    'Temporal property Finishes violated: x reaches 2',
  ]);
  const stutter = await checkModel(spinModel(undefined, undefined, [0, 1]), { deadlock: false }, label);
  assert.deepEqual(plain(renderText(toItf(traceOf(stutter)!))).split('\n').slice(-2), [
    'The state of step 0 stays forever (stuttering: nothing fair is left to do)',
    'Temporal property Finishes violated: x reaches 2',
  ]);
});

test('a witness never reached does not excuse the temporal properties: they are checked, and a fair behaviour that breaks one is the verdict, naming the witness too', async () => {
  const never = sometimes('ReachesThree', 'x reaches 3', (x: number) => x === 3);
  const broken = await checkModel(spinModel(undefined, undefined, [0, 1], [eventually('Finishes', 'x reaches 2', (x: number) => x === 2), never]), { deadlock: false }, label);
  assert.equal(broken.status === 'violation' && broken.kind, 'liveness');
  assert.equal(broken.status === 'violation' && broken.property, 'Finishes');
  assert.deepEqual(broken.status === 'violation' && broken.unreached, ['ReachesThree']);
  // With the temporal property holding, the unreached witness is the verdict, as before.
  const vacuous = await checkModel(spinModel('weak', 'weak', [0, 1], [eventually('Finishes', 'x reaches 2', (x: number) => x === 2), never]), { deadlock: false }, label);
  assert.equal(vacuous.status === 'violation' && vacuous.kind, 'sometimes');
  assert.deepEqual(vacuous.status === 'violation' && vacuous.unreached, ['ReachesThree']);
});
