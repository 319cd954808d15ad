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
  assert.deepEqual(successorsOf(e, 0), [
    [1, 0],
    [3, 2],
  ]);
  assert.deepEqual(asked, [1, 2, 3]);
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
