import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NumberFrontier } from './frontier.ts';
import { checkModel } from './check.ts';
import { always } from '../../invariants/property.ts';
import type { Model } from '../../spec/spec.ts';

test('a number frontier gives back its states and ids in order, through growth and reset', () => {
  const f = new NumberFrontier<unknown>();
  const n = 5000;
  for (let i = 0; i < n; i++) f.push(i === 7 ? -0 : i * 1024 + 0.5 * (i % 3), null, 10 * i);
  // A state of another type is kept as it is, in its place.
  f.push('odd', null, 1);
  f.push(2 ** 40, null, 2);
  assert.equal(f.length, n + 2);
  for (let i = 0; i < n; i++) {
    const s = f.peekState();
    if (i === 7) assert.equal(s, -0, 'a -0 state keeps its sign');
    else assert.equal(s, i * 1024 + 0.5 * (i % 3));
    assert.equal(f.peekId(), 10 * i);
    f.shift();
  }
  assert.equal(f.peekState(), 'odd');
  f.shift();
  assert.equal(f.peekState(), 2 ** 40);
  assert.equal(f.peekId(), 2);
  f.shift();
  assert.equal(f.remaining, 0);
  f.reset();
  assert.equal(f.length, 0);
  f.push(3, null, 4);
  assert.equal(f.peekState(), 3);
  assert.equal(f.peekId(), 4);
});

test('a counterexample through number states is the shortest one', async () => {
  // From 1: double or add 3; 40 is bad. Every shortest path takes five steps (1 → 4 → 7 → 10 → 20 → 40 too);
  // BFS, which tries Double first at every state, finds 1 → 2 → 5 → 10 → 20 → 40.
  const model: Model<number> = {
    init: () => [1],
    actions: [
      { name: 'Double', enabled: (s) => s < 100, next: (s) => 2 * s },
      { name: 'AddThree', enabled: (s) => s < 100, next: (s) => s + 3 },
    ],
    properties: [always<number>('Not40', '40 is never reached', (s) => s !== 40)],
  };
  const r = await checkModel(model, {}, { spec: 'numbers', params: {} });
  assert.equal(r.status, 'violation');
  const steps = r.status === 'violation' ? r.trace!.steps : [];
  assert.deepEqual(steps.map((s) => s.state), [1, 2, 5, 10, 20, 40]);
  // TLC on the same model (Next == Double \/ AddThree) stops at 40, before 20's other successor (23) is
  // generated: 22 states generated, 18 distinct states found, depth 6.
  assert.deepEqual([r.stats.distinct, r.stats.generated, r.stats.depth], [18, 22, 6]);
  assert.deepEqual(steps.map((s) => s.action), ['Init', 'Double', 'AddThree', 'Double', 'Double', 'Double']);
});
