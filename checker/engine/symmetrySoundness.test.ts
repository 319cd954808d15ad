import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Record, Set } from 'immutable';
import { layout as L } from '../../spec/layout/index.ts';
import { always } from '../../invariants/property.ts';
import type { Model } from '../../spec/spec.ts';
import { checkModel, ConfigError } from './check.ts';

// Two brokers vote once each; a counter counts the votes and may be bumped once more after both voted.
// The invariant `count < 3` fails: vote, vote, bump. Renaming values instead of ids would rename the
// counter when it equals an id and merge states that differ, hiding the violation.

const label = { spec: 'ids', params: {} };

function immutableModel<Id extends string | number>(ids: readonly [Id, Id]) {
  type Fields = { count: number; voted: Set<Id> };
  type S = Record<Fields> & Readonly<Fields>;
  const State = Record<Fields>({ count: 0, voted: Set<Id>() });
  const model: Model<S> = {
    init: () => [State() as S],
    actions: [
      {
        name: 'Vote',
        params: () => ids.map((id) => ({ id })),
        enabled: (s, { id }) => !s.voted.has(id),
        next: (s, { id }) => s.set('voted', s.voted.add(id)).set('count', s.count + 1) as S,
      },
      { name: 'Bump', enabled: (s) => s.voted.size === 2 && s.count < 3, next: (s) => s.set('count', s.count + 1) as S },
    ],
    properties: [always<S>('CountBelow3', 'the counter stays below 3', (s) => s.count < 3, { symmetric: true })],
    symmetry: [ids],
  };
  return model;
}

test('symmetry on a spec without a layout refuses number ids, naming the ids and the layout alternative', async () => {
  await assert.rejects(
    checkModel(immutableModel([1, 2]), { symmetry: true, deadlock: false }, label),
    (e: unknown) =>
      e instanceof ConfigError &&
      /these ids are numbers: 1, 2, and an epoch, offset or counter equal to one of them would be renamed too/.test(e.message) &&
      /declare a layout whose L\.ids domain holds them \(docs\/layouts\.md\)/.test(e.message),
  );
  // Without --symmetry the same model checks, and fails.
  const plain = await checkModel(immutableModel([1, 2]), { deadlock: false }, label);
  assert.equal(plain.status, 'violation');
});

test('symmetry on a spec without a layout, with string ids, still finds the violation', async () => {
  const plain = await checkModel(immutableModel(['b1', 'b2']), { deadlock: false }, label);
  const reduced = await checkModel(immutableModel(['b1', 'b2']), { symmetry: true, deadlock: false }, label);
  // Without symmetry: {}, {b1}, {b2}, {b1,b2} with count 2, then count 3 (the violation) = 5 states.
  // With it, {b1} and {b2} are one class: 4 states. The violating state is reached either way.
  assert.equal(plain.status, 'violation');
  assert.equal(reduced.status, 'violation');
  assert.equal(plain.stats.distinct, 5);
  assert.equal(reduced.stats.distinct, 4);
  assert.equal(reduced.status === 'violation' && reduced.trace!.steps.map((s) => s.action).join(' '), 'Init Vote Vote Bump');
});

test('symmetry on a layout with number ids renames only the ids: the same violation is found', async () => {
  const Id = L.ids('broker', [1, 2]);
  const State = L.record('State', { count: L.int(0, 3), voted: L.idSet(Id) });
  type S = ReturnType<typeof State.from>;
  const model: Model<S> = {
    layout: State,
    init: () => [State.from({ count: 0, voted: [] })],
    actions: [
      { name: 'Vote', params: () => [{ id: 1 }, { id: 2 }], enabled: (s, { id }) => !s.voted.has(id), next: (s, { id }) => s.set('voted', s.voted.add(id)).set('count', s.count + 1) },
      { name: 'Bump', enabled: (s) => s.voted.size === 2 && s.count < 3, next: (s) => s.set('count', s.count + 1) },
    ],
    properties: [always<S>('CountBelow3', 'the counter stays below 3', (s) => s.count < 3, { symmetric: true })],
    symmetry: [[1, 2]],
  };
  const plain = await checkModel(model, { deadlock: false }, label);
  const reduced = await checkModel(model, { symmetry: true, deadlock: false }, label);
  // The same 5 and 4 states as the string-id form above: counts 1 and 2 equal the ids and are not renamed.
  assert.equal(plain.status, 'violation');
  assert.equal(reduced.status, 'violation');
  assert.equal(plain.stats.distinct, 5);
  assert.equal(reduced.stats.distinct, 4);
});
