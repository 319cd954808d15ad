import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Expander, SpecError } from './expander.ts';
import type { Action, Model } from '../../spec/spec.ts';

/** A model of one state, 0, whose only action is `action` (successors add its parameter `d`). */
function oneAction(action: Action<number, { d: number }>): Expander<number> {
  const model: Model<number> = { init: () => [0], actions: [action], properties: [] };
  return new Expander(model, false);
}

function successorsOf(e: Expander<number>, s: number): [number, number][] {
  const out: [number, number][] = [];
  e.successors(s, (t, _a, _p, ordinal) => out.push([t, ordinal]));
  return out;
}

function busyFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/** Expands `s` once (the determinism probe, tested below, makes it twice), then makes no more expansions twice. */
function pastTheProbes(e: Expander<number>, s: number): void {
  successorsOf(e, s);
  e.stopProbing();
}

test('a guard declared with the state alone is asked once per state, and holds for every choice', () => {
  let asked = 0;
  const e = oneAction({
    name: 'Step',
    params: () => [{ d: 1 }, { d: 2 }, { d: 3 }],
    enabled: (s) => {
      asked++;
      return s < 10;
    },
    next: (s, { d }) => s + d,
  });
  pastTheProbes(e, 10);
  asked = 0;
  assert.deepEqual(successorsOf(e, 0), [
    [1, 0],
    [2, 1],
    [3, 2],
  ]);
  assert.equal(asked, 1);
  assert.deepEqual(successorsOf(e, 10), []);
  assert.equal(asked, 2);
  assert.deepEqual([...e.enabledCount], [1]);
  assert.deepEqual([...e.firedCount], [3]);
});

test('a guard that takes the parameters is asked for each choice', () => {
  const asked: number[] = [];
  const e = oneAction({
    name: 'Step',
    params: () => [{ d: 1 }, { d: 2 }, { d: 3 }],
    enabled: (_s, { d }) => {
      asked.push(d);
      return d !== 2;
    },
    next: (s, { d }) => s + d,
  });
  pastTheProbes(e, 5);
  asked.length = 0;
  assert.deepEqual(successorsOf(e, 0), [
    [1, 0],
    [3, 2],
  ]);
  assert.deepEqual(asked, [1, 2, 3]);
});

test('init() is called twice each time its states are asked for: initial states that differ are an error, each time', () => {
  let seed = 0;
  const random = new Expander<number>({ init: () => [seed++ % 3], actions: [], properties: [] }, false);
  for (let i = 0; i < 2; i++) assert.throws(() => random.initialStates(), (e: Error) => e instanceof SpecError && /^the spec is not deterministic: init\(\), called twice, gave two different lists/.test(e.message));
  let calls = 0;
  const fine = new Expander<number>({ init: () => (calls++, [7, 8]), actions: [], properties: [] }, false);
  assert.deepEqual(fine.initialStates(), [7, 8]);
  assert.deepEqual(fine.initialStates(), [7, 8]);
  assert.equal(calls, 4, 'twice each time');
  // A random init() whose first two calls happen to agree is caught at a later ask: it once went unprobed from then on.
  const draws = [0, 0, 1, 2];
  const lucky = new Expander<number>({ init: () => [draws.shift()!], actions: [], properties: [] }, false);
  assert.deepEqual(lucky.initialStates(), [0]);
  assert.throws(() => lucky.initialStates(), /init\(\), called twice, gave two different lists/);
});

test('expansions are made twice while the probes are cheap, then one in 1,024: successors that differ are an error naming the action, and coverage counts one expansion', () => {
  // Random from the `from`-th call of the effect on; each of the first `slow` calls takes 15 ms.
  const randomFrom = (from: number, slow = 0) => {
    let calls = 0;
    const next = (s: number, { d }: { d: number }) => {
      if (++calls <= slow) busyFor(15);
      return calls >= from ? s + d + Math.random() : s + d;
    };
    return oneAction({ name: 'Jump', params: () => [{ d: 1 }, { d: 2 }], next });
  };
  const notDeterministic = /^the spec is not deterministic: one state, expanded twice, gave two different lists of successors \(the first difference is its successor 1, by Jump\)/;
  assert.throws(() => successorsOf(randomFrom(1), 0), (e: Error) => e instanceof SpecError && notDeterministic.test(e.message));
  // Only the second run of the first expansion differs, at its second successor.
  assert.throws(() => successorsOf(randomFrom(4), 0), (e: Error) => /the first difference is its successor 2, by Jump/.test(e.message));
  // Random from the 5th call: the second expansion is made twice, and its runs differ.
  assert.throws(() => {
    const second = randomFrom(5);
    successorsOf(second, 0);
    successorsOf(second, 1);
  }, (e: Error) => notDeterministic.test(e.message));
  // Random from the 401st call: the first 100 expansions (4 calls each, a few milliseconds, where 50 are allowed) agree with themselves, and the next is made twice.
  const later = randomFrom(401);
  for (let i = 0; i < 100; i++) successorsOf(later, i);
  assert.throws(() => successorsOf(later, 0), (e: Error) => notDeterministic.test(e.message));
  // The first expansion's probe takes 60 ms, past 50 ms and a hundredth of the time so far: the next 1,023 are made once, random as they are; the 1,025th is made twice.
  const slowProbe = randomFrom(5, 4);
  for (let i = 0; i < 1024; i++) successorsOf(slowProbe, i);
  assert.deepEqual([...slowProbe.enabledCount], [1024]);
  assert.deepEqual([...slowProbe.firedCount], [2048]);
  assert.throws(() => successorsOf(slowProbe, 0), (e: Error) => notDeterministic.test(e.message));
  // No successor the first time, some the second.
  let once = 0;
  const appearing = oneAction({ name: 'Jump', params: () => (once++ === 0 ? [] : [{ d: 1 }]), next: (s, { d }) => s + d });
  assert.throws(() => successorsOf(appearing, 0), (e: Error) => notDeterministic.test(e.message));
  // A deterministic model: the probe changes nothing it visits or counts.
  const fine = randomFrom(Infinity);
  assert.deepEqual(successorsOf(fine, 0), [
    [1, 0],
    [2, 1],
  ]);
  assert.deepEqual([[...fine.enabledCount], [...fine.firedCount]], [[1], [2]]);
});

test('a guard of length 1 that can still read the parameters is asked for each choice', () => {
  const guards: Action<number, { d: number }>['enabled'][] = [
    (_s, p = { d: 0 }) => p.d !== 2,
    (_s, ...rest) => rest[0]!.d !== 2,
    function (this: unknown, _s: number) {
      // eslint-disable-next-line prefer-rest-params
      return (arguments[1] as { d: number }).d !== 2;
    },
  ];
  for (const enabled of guards) {
    assert.equal(enabled!.length, 1);
    const e = oneAction({ name: 'Step', params: () => [{ d: 1 }, { d: 2 }, { d: 3 }], enabled, next: (s, { d }) => s + d });
    assert.deepEqual(successorsOf(e, 0), [
      [1, 0],
      [3, 2],
    ]);
  }
});

test('a guard of the state alone is not asked when there is no choice, and its error names the first choice', () => {
  let asked = 0;
  const none = oneAction({ name: 'Step', params: () => [], enabled: () => (asked++, true), next: (s) => s });
  assert.deepEqual(successorsOf(none, 0), []);
  assert.equal(asked, 0);
  const throws = oneAction({
    name: 'Step',
    params: () => [{ d: 7 }, { d: 8 }],
    enabled: (s) => {
      if (s === 0) throw new Error('no guard at 0');
      return true;
    },
    next: (s) => s,
  });
  assert.throws(
    () => successorsOf(throws, 0),
    (e: unknown) => e instanceof SpecError && e.phase === 'enabled' && e.message === 'Step(d=7): guard threw: no guard at 0',
  );
});

test('a guard false once, at its 100th call, on a grid of 256 states: the search says the spec is not deterministic, instead of a verdict', async () => {
  const { checkModel } = await import('./check.ts');
  let calls = 0;
  const model: Model<number> = {
    init: () => [0],
    actions: [
      { name: 'IncA', enabled: (s) => (s & 15) < 15 && ++calls !== 100, next: (s) => s + 1 },
      { name: 'IncB', enabled: (s) => s >> 4 < 15, next: (s) => s + 16 },
    ],
    properties: [],
  };
  // The 100th call falls in the 50th expansion or so: with the first expansion alone made twice, the
  // search ended `holds`, one step short of the generated count of the spec without the flip.
  const r = await checkModel(model, { deadlock: false }, { spec: 'grid', params: {} });
  assert.equal(r.status, 'error');
  assert.match(r.status === 'error' ? r.message : '', /not deterministic: one state, expanded twice, gave two different lists of successors \(the first difference is its successor 1, by IncA\)/);
});
