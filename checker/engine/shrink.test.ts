import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Record } from 'immutable';
import type { Model } from '../../spec/spec.ts';
import { always, everyStep } from '../../invariants/property.ts';
import { Expander } from './expander.ts';
import { Limits } from './limits.ts';
import { shrink } from './shrink.ts';

const State = Record({ a: false, k: 0, b: false, c: 0 });
type State = ReturnType<typeof State>;

/**
 * SetA, two Ticks, SetB, then Bump breaks NoBump. Without SetA the same walk still ends in Bump, but
 * breaks BImpliesA on the way, at SetB: a search stops there, with BImpliesA.
 */
const model: Model<State> = {
  init: () => [State()],
  actions: [
    { name: 'SetA', enabled: (s) => !s.a && s.k === 0, next: (s) => s.set('a', true) },
    { name: 'Tick', enabled: (s) => s.k < 2, next: (s) => s.set('k', s.k + 1) },
    { name: 'SetB', enabled: (s) => s.k === 2 && !s.b, next: (s) => s.set('b', true) },
    { name: 'Bump', enabled: (s) => s.b && s.c === 0, next: (s) => s.set('c', 1) },
  ],
  properties: [always('BImpliesA', 'b only after a', (s: State) => !s.b || s.a), always('NoBump', 'c stays 0', (s: State) => s.c === 0)],
};

test('shrinking keeps only walks that reach the target violation first: a cut that breaks another invariant on the way is no counterexample of it', async () => {
  const expander = new Expander(model, false);
  const step = (action: number) => ({ action, params: {} });
  // A longer walk than needed: an extra Tick tried while k is 2 is skipped on replay, and can go.
  const walk = { init: 0, steps: [step(0), step(1), step(1), step(1), step(2), step(3)] };
  const { walk: shrunk } = await shrink(expander, walk, { kind: 'always', invariant: 1 }, new Limits({}));
  assert.deepEqual(
    shrunk.steps.map((s) => model.actions[s.action]!.name),
    ['SetA', 'Tick', 'Tick', 'SetB', 'Bump'],
  );
});

test('shrinking keeps no walk that breaks a step property on the way to the target', async () => {
  // The same walk, with "b only after a" as a step property: SetB without a before it breaks it at that step.
  const stepModel: Model<State> = { ...model, properties: [everyStep('SetBAfterA', 'b is set only once a is', (s: State, t: State) => s.b || !t.b || t.a), model.properties[1]!] };
  const expander = new Expander(stepModel, false);
  const step = (action: number) => ({ action, params: {} });
  const walk = { init: 0, steps: [step(0), step(1), step(1), step(1), step(2), step(3)] };
  const { walk: shrunk } = await shrink(expander, walk, { kind: 'always', invariant: 0 }, new Limits({}));
  assert.deepEqual(
    shrunk.steps.map((s) => stepModel.actions[s.action]!.name),
    ['SetA', 'Tick', 'Tick', 'SetB', 'Bump'],
  );
});
