import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isImmutable, isOrdered, isIndexed, isKeyed } from 'immutable';
import { layout as L, type Packed } from './index.ts';
import { View } from './views.ts';

// Each query runs on a packed state and on the same state as Immutable.js values (`toImmutable`): the
// answers must be equal, down to the kind of collection returned and the order of ordered ones.

const Node = L.ids('node', ['n1', 'n2', 'n3']);
const Entry = L.record('Entry', { epoch: L.int(0, 5), offset: L.int(0, 9) });
const State = L.record('State', {
  fetched: L.map(Node, L.int(0, 9)),
  voted: L.idSet(Node),
  log: L.list(Entry, 5),
  epochs: L.list(L.int(0, 9), 5),
  seen: L.set(Entry, 4),
  acks: L.bag(Node, 4),
});
type State = Packed<typeof State>;

const packed: State = State.from({
  fetched: { n1: 4, n2: 7, n3: 4 },
  voted: ['n3', 'n1'],
  log: [
    { epoch: 2, offset: 0 },
    { epoch: 1, offset: 1 },
    { epoch: 2, offset: 2 },
    { epoch: 3, offset: 3 },
  ],
  epochs: [3, 1, 4, 1, 5],
  seen: [
    { epoch: 3, offset: 1 },
    { epoch: 1, offset: 2 },
  ],
  acks: ['n2', 'n1', 'n2'],
});
const immutable = packed.toImmutable() as unknown as State;

/** A value as plain data, keeping what kind of collection it is (a view reads as its plain value). */
function plain(x: unknown): unknown {
  if (x instanceof View) return x.toJS();
  if (isImmutable(x) && typeof (x as { entrySeq?: unknown }).entrySeq === 'function') {
    const c = x as unknown as { entrySeq(): Iterable<[unknown, unknown]>; toArray(): unknown[] };
    const kind = `${isKeyed(x) ? 'keyed' : isIndexed(x) ? 'indexed' : 'set'}${isOrdered(x) ? ' ordered' : ''}`;
    const items = isKeyed(x) ? [...c.entrySeq()].map(([k, v]) => [plain(k), plain(v)]) : c.toArray().map(plain);
    // Unordered collections compare as sorted lists of their items.
    return { kind, items: isOrdered(x) ? items : items.map((i) => JSON.stringify(i)).sort() };
  }
  if (isImmutable(x)) return (x as unknown as { toJS(): unknown }).toJS();
  return x;
}

const byEpoch = (e: { epoch: number }) => e.epoch;
const descending = (a: number, b: number) => b - a;
const queries: [string, (s: State) => unknown][] = [
  ['map min', (s) => s.fetched.min()],
  ['map max', (s) => s.fetched.max()],
  ['map minBy', (s) => s.fetched.minBy((v, k) => v * 10 - Number(k.slice(1)))],
  ['map sort', (s) => s.fetched.sort()],
  ['map sortBy descending', (s) => s.fetched.sortBy((v) => v, descending)],
  ['map groupBy', (s) => s.fetched.groupBy((v) => v > 5)],
  ['map join', (s) => s.fetched.sort().join('/')],
  ['map toList', (s) => s.fetched.toList().sort()],
  ['id set min', (s) => s.voted.min()],
  ['id set max', (s) => s.voted.max()],
  ['id set sort', (s) => s.voted.sort()],
  ['id set groupBy', (s) => s.voted.groupBy((id) => id === 'n1')],
  ['id set toList', (s) => s.voted.toList().sort()],
  ['list min', (s) => s.epochs.min()],
  ['list max', (s) => s.epochs.max()],
  ['list max descending', (s) => s.epochs.max(descending)],
  ['list sort', (s) => s.epochs.sort()],
  ['list join', (s) => s.epochs.join(',')],
  ['list toSet', (s) => s.epochs.toSet()],
  ['record list minBy (the first of equals)', (s) => s.log.minBy(byEpoch)],
  ['record list maxBy (the first of equals)', (s) => s.log.maxBy(byEpoch)],
  ['record list sortBy (stable)', (s) => s.log.sortBy(byEpoch)],
  ['record list groupBy', (s) => s.log.groupBy(byEpoch)],
  ['record set minBy', (s) => s.seen.minBy((e) => e.offset)],
  ['record set sortBy', (s) => s.seen.sortBy((e) => e.offset)],
  ['record set groupBy', (s) => s.seen.groupBy((e) => e.epoch > 2)],
  ['bag sort', (s) => s.acks.sort()],
  ['bag groupBy', (s) => s.acks.groupBy((id) => id)],
  ['bag max', (s) => s.acks.max()],
  ['empty list min', (s) => s.log.clear().min()],
];

test('packed views answer min, max, minBy, maxBy, sort, sortBy, groupBy, join, toList, toSet as Immutable.js does', () => {
  for (const [name, query] of queries) {
    assert.deepEqual(plain(query(packed)), plain(query(immutable)), name);
  }
});

test('the queries leave the view unchanged and keep elements as views', () => {
  const before = packed.bytes.slice();
  const first = packed.log.sortBy(byEpoch).first();
  assert.ok(first instanceof View, 'a sorted list of records holds the views themselves');
  assert.deepEqual(first?.toJS(), { epoch: 1, offset: 1 });
  assert.deepEqual(packed.bytes, before);
  // A sorted list goes back into the layout: a list field takes any Immutable.js list of its elements.
  const sorted = packed.set('epochs', packed.epochs.sort());
  assert.deepEqual(sorted.epochs.toJS(), [1, 1, 3, 4, 5]);
});
