import { test } from 'node:test';
import assert from 'node:assert/strict';
import { changedPaths, diffFields, flattenState, setDelta } from './fields.ts';
import { formatValue } from './value.ts';

const broker = (epoch: number, isr: string[]) => ({ epoch, isr: { '#set': isr }, leader: { tag: 'Some', value: 'b1' } });
const before = { brokers: { '#map': [['b1', broker(1, ['b1', 'b2'])], ['b2', broker(1, ['b1'])]] }, hwm: 3 } as const;
const after = { brokers: { '#map': [['b1', broker(2, ['b1'])], ['b2', broker(1, ['b1'])]] }, hwm: 3 } as const;

test('records and maps open into fields; sets, options and scalars stay whole', () => {
  assert.deepEqual(
    flattenState(before as never).map((f) => f.path),
    ['brokers[b1].epoch', 'brokers[b1].isr', 'brokers[b1].leader', 'brokers[b2].epoch', 'brokers[b2].isr', 'brokers[b2].leader', 'hwm'],
  );
});

test('a step changes exactly the fields that differ, with the old value and a set delta', () => {
  assert.deepEqual(changedPaths(before as never, after as never), ['brokers[b1].epoch', 'brokers[b1].isr']);
  const rows = diffFields(before as never, after as never);
  assert.deepEqual(rows[0], { path: 'brokers[b1].epoch', value: '2', was: '1', change: 'changed' });
  assert.deepEqual(rows[1], { path: 'brokers[b1].isr', value: '{"b1"}', was: '{"b1", "b2"}', change: 'changed', delta: '− "b2"' });
  assert.equal(rows[2]!.change, undefined);
  assert.equal(changedPaths(undefined, after as never).length, 0, 'the initial state has nothing to compare with');
});

test('fields that appear or disappear are marked added or removed, in state order', () => {
  const a = { m: { '#map': [['x', 1], ['y', 2]] } };
  const b = { m: { '#map': [['x', 1], ['z', 3]] } };
  assert.deepEqual(diffFields(a as never, b as never), [
    { path: 'm[x]', value: '1' },
    { path: 'm[y]', was: '2', change: 'removed' },
    { path: 'm[z]', value: '3', change: 'added' },
  ]);
});

test('set delta lists additions then removals; not a set gives undefined', () => {
  assert.equal(setDelta({ '#set': ['a', 'b'] }, { '#set': ['b', 'c', 'd'] }), '+ "c", + "d", − "a"');
  assert.equal(setDelta(1, 2), undefined);
});

test('values print as TLA+ text', () => {
  assert.equal(formatValue({ '#map': [['r1', 'working']] }), '[r1 |-> "working"]');
  assert.equal(formatValue({ '#map': [[1, true]] }), '(1 :> TRUE)');
  assert.equal(formatValue({ tag: 'None', value: { '#tup': [] } }), 'None');
  assert.equal(formatValue({ tag: 'Some', value: 3 }), 'Some(3)');
  assert.equal(formatValue([1, { '#bigint': '9007199254740993' }]), '<<1, 9007199254740993>>');
  assert.equal(formatValue({ type: 'Commit', rm: 'r1' }), '[type |-> "Commit", rm |-> "r1"]');
});

test('sequences of entities open by position; sequences of small values stay whole', () => {
  const broker = (hw: number) => ({ running: true, hw, log: [{ epoch: 1, value: 1 }], view: { tag: 'None', value: { '#tup': [] } } });
  assert.deepEqual(changedPaths({ brokers: [broker(0), broker(0)] } as never, { brokers: [broker(0), broker(1)] } as never), ['brokers[1].hw']);
  assert.deepEqual(changedPaths({ log: [{ epoch: 1, value: 1 }] } as never, { log: [{ epoch: 1, value: 1 }, { epoch: 2, value: 2 }] } as never), ['log']);
});
