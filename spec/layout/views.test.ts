import { test } from 'node:test';
import assert from 'node:assert/strict';
import { List, Map as IMap, Record as IRecord, Set as ISet, is } from 'immutable';
import { layout as L, LayoutError, type Packed } from './index.ts';

const Node = L.ids('node', ['n1', 'n2', 'n3']);
const Entry = L.record('Entry', { epoch: L.int(0, 3), value: L.option(L.enumOf(['a', 'b'])) });
const Msg = L.variant('Msg', 'type', {
  Vote: { from: Node, epoch: L.int(0, 3) },
  Fetch: { from: Node, offset: L.int(0, 7), entry: L.option(Entry) },
});
const Replica = L.record('Replica', { epoch: L.int(0, 3), votes: L.idSet(Node), log: L.list(Entry, 3), leader: L.option(Node) });
const State = L.record('State', {
  replicas: L.map(Node, Replica),
  inflight: L.partialMap(Node, Msg),
  net: L.set(Msg, 4),
  acks: L.bag(Node, 3),
  round: L.int(0, 300),
  done: L.bool(),
});
type State = Packed<typeof State>;

const emptyReplica = { epoch: 0, votes: [], log: [], leader: null };
const init: State = State.from({
  replicas: { n1: emptyReplica, n2: emptyReplica, n3: emptyReplica },
  inflight: {},
  net: [],
  acks: [],
  round: 0,
  done: false,
});

function errorOf(f: () => unknown): LayoutError {
  try {
    f();
  } catch (e) {
    if (e instanceof LayoutError) return e;
    throw e;
  }
  assert.fail('expected a LayoutError');
}

test('the layout is fixed-width: scalars by their range, maps one slot per key, sets a count and max slots', () => {
  assert.equal(L.int(0, 255).width, 1);
  assert.equal(L.int(0, 256).width, 2);
  assert.equal(L.int(-5, 70000).width, 4);
  assert.equal(L.option(L.int(0, 255)).width, 2, 'null takes code 0, so 256 values + null need two bytes');
  assert.equal(L.option(L.int(0, 254)).width, 1);
  assert.equal(Entry.width, 2);
  assert.equal(Replica.width, 1 + 1 + (1 + 3 * 2) + 1);
  assert.equal(Msg.width, 1 + 1 + 1 + 1 + Entry.width, 'tag + the widest case (Fetch)');
  assert.equal(State.width, 3 * Replica.width + 3 * (1 + Msg.width) + (1 + 4 * Msg.width) + (1 + 3) + 2 + 1);
  assert.equal(init.bytes.length, State.width);
  assert.ok(init.bytes.every((b) => b === 0), 'the zero value of every type is all zero bytes');
});

test('record views: getters, get, getIn, has, toObject, iteration', () => {
  const s = init.setIn(['replicas', 'n2', 'epoch'], 2).set('round', 260);
  assert.equal(s.round, 260);
  assert.equal(s.get('round'), 260);
  assert.equal(s.done, false);
  assert.equal(s.replicas.get('n2').epoch, 2);
  assert.equal(s.getIn(['replicas', 'n2', 'epoch']), 2);
  assert.equal(s.getIn(['replicas', 'n9', 'epoch'], 'none'), 'none');
  assert.equal(s.getIn(['replicas', 'n2', 'leader']), null);
  assert.equal(s.get('nope' as 'round'), undefined);
  assert.ok(s.has('done') && !s.has('nope'), 'has knows the fields and nothing else');
  assert.deepEqual(Object.keys(s.toObject()), ['replicas', 'inflight', 'net', 'acks', 'round', 'done']);
  assert.deepEqual([...s].map(([k]) => k), ['replicas', 'inflight', 'net', 'acks', 'round', 'done']);
  assert.ok(s.hasIn(['replicas', 'n1']) && !s.hasIn(['replicas', 'n1', 'nope']), 'hasIn finds replicas.n1 and not replicas.n1.nope');
});

test('record writes: set, setIn, update, updateIn, merge, remove each copy once and leave the original alone', () => {
  const before = Uint8Array.from(init.bytes);
  const a = init.set('round', 7);
  const b = init.setIn(['replicas', 'n3', 'log'], [{ epoch: 1, value: 'a' }]);
  const c = init.update('round', (r: number) => r + 1);
  const d = init.updateIn(['replicas', 'n1', 'epoch'], (e: number) => e + 3);
  const e = init.merge({ round: 9, done: true });
  assert.deepEqual(init.bytes, before, 'views are immutable');
  assert.equal(a.round, 7);
  assert.equal(b.replicas.get('n3').log.size, 1);
  assert.equal(b.getIn(['replicas', 'n3', 'log', 0, 'value']), 'a');
  assert.equal(c.round, 1);
  assert.equal(d.replicas.get('n1').epoch, 3);
  assert.deepEqual([e.round, e.done], [9, true]);
  assert.equal(e.remove('round').round, 0, 'remove resets a field to its zero value, as Record.remove resets to the default');
  assert.equal(init.updateIn(['round'], (r: number) => r), init, 'an update that changes nothing returns the same view');
  // setIn through a list appends at its end and through a partial map adds the key.
  const f = init.setIn(['replicas', 'n1', 'log', 0], { epoch: 2 }).setIn(['inflight', 'n2'], { type: 'Vote', from: 'n1', epoch: 1 });
  assert.equal(f.replicas.get('n1').log.get(0)!.epoch, 2);
  assert.equal(f.inflight.get('n2')!.type, 'Vote');
  assert.equal(f.updateIn(['inflight', 'n3'], 'absent', (m: unknown) => m), f, 'notSetValue for an absent key');
});

test('record toImmutable has the layout name and field order; toJS is plain', () => {
  const s = init.setIn(['replicas', 'n1', 'votes'], ['n2', 'n1']).set('net', [{ type: 'Vote', from: 'n3', epoch: 2 }]);
  const imm = s.toImmutable() as IRecord<Record<string, unknown>>;
  assert.equal(IRecord.getDescriptiveName(imm), 'State');
  assert.deepEqual(Object.keys(imm.toObject()), ['replicas', 'inflight', 'net', 'acks', 'round', 'done']);
  const n1 = (imm.get('replicas') as IMap<string, IRecord<Record<string, unknown>>>).get('n1')!;
  assert.equal(IRecord.getDescriptiveName(n1), 'Replica');
  assert.ok(is(n1.get('votes'), ISet(['n1', 'n2'])), `an idSet becomes a Set of its ids, got ${String(n1.get('votes'))}`);
  const msg = (imm.get('net') as ISet<IRecord<Record<string, unknown>>>).first()!;
  assert.deepEqual(msg.toObject(), { type: 'Vote', from: 'n3', epoch: 2 });
  assert.deepEqual(s.toJS(), {
    replicas: {
      n1: { epoch: 0, votes: ['n1', 'n2'], log: [], leader: null },
      n2: { epoch: 0, votes: [], log: [], leader: null },
      n3: { epoch: 0, votes: [], log: [], leader: null },
    },
    inflight: {},
    net: [{ type: 'Vote', from: 'n3', epoch: 2 }],
    acks: [],
    round: 0,
    done: false,
  });
  // Immutable values are accepted as input and give the same bytes.
  assert.ok(is(State.from(imm as never), s), 'the Immutable value gives back the same state');
});

test('total map views: get, has, set, update, size, keys/values/entries, predicates, filter, map', () => {
  const r = init.replicas.set('n2', { epoch: 3, votes: ['n2'], log: [], leader: 'n2' }).update('n3', (x) => x.set('epoch', 1));
  assert.equal(r.size, 3);
  assert.ok(r.has('n1') && !r.has('n9' as 'n1'), 'has knows the ids of the domain and nothing else');
  assert.equal(r.get('n9' as 'n1', 'dflt' as never), 'dflt');
  assert.deepEqual([...r.keys()], ['n1', 'n2', 'n3']);
  assert.deepEqual([...r.values()].map((x) => x.epoch), [0, 3, 1]);
  assert.deepEqual([...r].map(([k, x]) => `${k}:${x.epoch}`), ['n1:0', 'n2:3', 'n3:1']);
  assert.equal(r.count((x) => x.epoch > 0), 2);
  assert.ok(r.some((x) => x.leader === 'n2') && !r.every((x) => x.epoch > 0), 'some finds the replica led by n2; not every epoch is above 0');
  assert.equal(r.find((x) => x.epoch === 1)!.epoch, 1);
  assert.equal(r.findKey((x) => x.epoch === 3), 'n2');
  assert.equal(r.reduce((acc, x) => acc + x.epoch, 0), 4);
  const seen: string[] = [];
  assert.equal(r.forEach((_x, k) => (seen.push(k), k !== 'n2')), 2, 'forEach stops at false');
  assert.deepEqual(seen, ['n1', 'n2']);
  assert.deepEqual([...(r.filter((x) => x.epoch > 0) as IMap<string, unknown>).keys()], ['n2', 'n3']);
  assert.ok(is(r.map((x) => x.epoch), IMap({ n1: 0, n2: 3, n3: 1 })), `map gives ${String(r.map((x) => x.epoch))}`);
  assert.ok(r.includes(r.get('n2')), 'includes finds a value of the map');
  assert.throws(() => r.delete('n1'), /total map over one of node.*cannot lose a key/);
  assert.equal(errorOf(() => State.from({ ...init.toJS() as object, replicas: { n1: emptyReplica } })).path, 'replicas.n2');
});

test('partial map views: absent keys, delete, filter keeps the layout', () => {
  const m = init.inflight.set('n3', { type: 'Fetch', from: 'n1', offset: 5, entry: { epoch: 1, value: 'b' } }).set('n1', { type: 'Vote', from: 'n2', epoch: 0 });
  assert.equal(m.size, 2);
  assert.ok(!m.has('n2') && m.get('n2') === undefined, 'a key never set is absent');
  assert.deepEqual([...m.keys()], ['n1', 'n3']);
  assert.equal(m.delete('n1').size, 1);
  assert.equal(m.delete('n2'), m);
  const f = m.filter((x) => x.type === 'Fetch');
  assert.deepEqual([...(f as typeof m).keys()], ['n3']);
  assert.equal(f.constructor, m.constructor);
  const fetch = m.get('n3')!;
  assert.equal(fetch.type, 'Fetch');
  if (fetch.type === 'Fetch') assert.equal(fetch.entry!.value, 'b');
  assert.ok(m.delete('n1').delete('n3').equals(init.inflight), 'deleting every key gives back the empty map');
});

test('idSet views: bit per id, set algebra, iteration in domain order', () => {
  const v = init.replicas.get('n1').votes.add('n3').add('n1');
  assert.equal(v.bits, 0b101);
  assert.equal(v.size, 2);
  assert.ok(v.has('n3') && !v.has('n2') && v.includes('n1'), `has and includes see n1 and n3 only, in ${String(v)}`);
  assert.deepEqual([...v], ['n1', 'n3']);
  assert.equal(v.first(), 'n1');
  assert.equal(v.add('n1'), v);
  assert.deepEqual(v.remove('n1').toArray(), ['n3']);
  assert.deepEqual(v.union(['n2']).toArray(), ['n1', 'n2', 'n3']);
  assert.deepEqual(v.intersect(['n3', 'n2']).toArray(), ['n3']);
  assert.deepEqual(v.subtract(['n3']).toArray(), ['n1']);
  assert.ok(v.isSubset(['n1', 'n2', 'n3']) && v.isSuperset(['n1']) && !v.isEmpty() && v.clear().isEmpty(), 'subset, superset, isEmpty and clear');
  assert.equal(v.count((id) => id !== 'n1'), 1);
  assert.deepEqual(v.filter((id) => id === 'n3').toArray(), ['n3']);
  assert.ok(v.some((id) => id === 'n3') && v.every((id) => id !== 'n2'), 'some finds n3, and every id differs from n2');
  assert.ok(!v.some((id) => id === 'n2') && !v.every((id) => id === 'n1'), 'some finds no n2, and not every id is n1');
  assert.equal(v.find((id) => id !== 'n1'), 'n3');
  const visited: string[] = [];
  assert.equal(v.forEach((id) => (visited.push(id), false)), 1, 'forEach stops when the callback returns false');
  assert.deepEqual(visited, ['n1']);
  assert.ok(is(v.toImmutable(), ISet(['n3', 'n1'])), `toImmutable gives ${String(v.toImmutable())}`);
  assert.ok(is(v.map((id) => id.toUpperCase()), ISet(['N1', 'N3'])), `map gives ${String(v.map((id) => id.toUpperCase()))}`);
  const e = errorOf(() => init.setIn(['replicas', 'n2', 'votes'], v.toArray().concat(['n7' as 'n1'])));
  assert.deepEqual([e.path, e.value], ['replicas.n2.votes[]', 'n7']);
});

test('list views: push, pop, set, insert, remove, slice, setSize, predicates', () => {
  const log = init.replicas.get('n1').log.push({ epoch: 1, value: 'a' }, { epoch: 2, value: null });
  assert.equal(log.size, 2);
  assert.deepEqual(log.toJS(), [{ epoch: 1, value: 'a' }, { epoch: 2, value: null }]);
  assert.equal(log.first()!.epoch, 1);
  assert.equal(log.last()!.epoch, 2);
  assert.equal(log.get(-1)!.epoch, 2);
  assert.equal(log.get(5), undefined);
  assert.equal(log.pop().size, 1);
  assert.ok(log.pop().pop().pop().isEmpty(), 'popping an empty list leaves it empty');
  assert.deepEqual(log.shift().toJS(), [{ epoch: 2, value: null }]);
  assert.deepEqual(log.set(1, { epoch: 3 }).toJS(), [{ epoch: 1, value: 'a' }, { epoch: 3, value: null }]);
  assert.deepEqual(log.insert(0, { epoch: 0 }).map((x) => x.epoch).toArray(), [0, 1, 2]);
  assert.deepEqual(log.unshift({ epoch: 3 }).map((x) => x.epoch).toArray(), [3, 1, 2]);
  assert.deepEqual(log.remove(0).toJS(), [{ epoch: 2, value: null }]);
  assert.deepEqual(log.slice(1).toJS(), [{ epoch: 2, value: null }]);
  assert.deepEqual(log.slice(0, -1).toJS(), [{ epoch: 1, value: 'a' }]);
  assert.deepEqual(log.setSize(3).toJS(), [{ epoch: 1, value: 'a' }, { epoch: 2, value: null }, { epoch: 0, value: null }]);
  assert.ok(log.setSize(1).equals(log.pop()), 'truncation zeroes the dropped slots');
  assert.equal(log.indexOf(log.get(1)), 1);
  assert.equal(log.findIndex((x) => x.value === null), 1);
  assert.ok(log.includes(Entry.from({ epoch: 1, value: 'a' })), 'includes finds an equal entry made apart');
  assert.equal(log.concat([{ epoch: 0 }]).size, 3);
  assert.deepEqual(log.filter((x) => x.epoch > 1).toJS(), [{ epoch: 2, value: null }]);
  assert.deepEqual([...log.entries()].map(([i, x]) => [i, x.epoch]), [[0, 1], [1, 2]]);
  assert.ok(is(log.toImmutable(), List([Entry.from({ epoch: 1, value: 'a' }).toImmutable(), Entry.from({ epoch: 2 }).toImmutable()])), `toImmutable gives ${String(log.toImmutable())}`);
  const full = log.push({ epoch: 0 });
  const e = errorOf(() => full.push({ epoch: 0 }));
  assert.equal(e.bound, 'at most 3 elements');
  const deep = init.setIn(['replicas', 'n2', 'log'], full);
  const e2 = errorOf(() => deep.updateIn(['replicas', 'n2', 'log'], (l: typeof log) => l.push({ epoch: 1 })));
  assert.deepEqual([e2.path, e2.value, e2.bound], ['replicas.n2.log', '4 elements', 'at most 3 elements']);
});

test('set views: sorted canonical contents, has/add/delete, filter, first; bags keep repeats', () => {
  const v1 = { type: 'Vote', from: 'n2', epoch: 1 } as const;
  const v2 = { type: 'Vote', from: 'n1', epoch: 3 } as const;
  const f1 = { type: 'Fetch', from: 'n1', offset: 2, entry: null } as const;
  const a = init.net.add(f1).add(v1).add(v2);
  const b = init.net.add(v2).add(f1).add(v1).add(v1);
  assert.ok(a.equals(b) && a.hashCode() === b.hashCode(), 'the same members added in any order: equal, with one hash code');
  assert.deepEqual(a.bytes, b.bytes);
  assert.equal(a.size, 3);
  assert.ok(a.has(v1) && a.has(Msg.from(v2)) && !a.has({ type: 'Vote', from: 'n3', epoch: 1 }), 'has takes plain values and views, and misses a non-member');
  assert.ok(!a.has({ type: 'Vote', from: 'n1', epoch: 9 }), 'a value outside the layout is simply not a member');
  assert.deepEqual(a.toArray().map((m) => m.type), ['Vote', 'Vote', 'Fetch'], 'sorted by bytes: the tag first');
  assert.equal(a.first()!.from, 'n1');
  assert.equal(a.delete(v1).size, 2);
  assert.equal(a.delete({ type: 'Vote', from: 'n3', epoch: 0 }), a);
  assert.equal(a.filter((m) => m.type === 'Vote').size, 2);
  assert.equal(a.count((m) => m.type === 'Fetch'), 1);
  assert.ok(a.some((m) => m.type === 'Fetch') && !a.every((m) => m.type === 'Fetch'), 'some finds the Fetch; not every message is one');
  assert.equal(a.find((m) => m.type === 'Fetch')!.type, 'Fetch');
  assert.ok(is(a.get(v1), Msg.from(v1)), `get gives the member, got ${String(a.get(v1))}`);
  assert.equal(a.union([v1, v2]).size, 3);
  assert.equal(a.subtract([v1, v2]).size, 1);
  assert.ok(a.clear().isEmpty(), 'clear empties the set');
  assert.equal(errorOf(() => a.add({ type: 'Vote', from: 'n3', epoch: 0 }).add({ type: 'Vote', from: 'n3', epoch: 1 })).bound, 'at most 4 elements (the set is full)');
  const e = errorOf(() => init.setIn(['net'], [{ type: 'Vote', from: 'n1', epoch: 5 }]));
  assert.deepEqual([e.path, e.value, e.bound], ['net[].epoch', 5, 'an integer in 0..3']);
  // A bag counts repeats.
  const acks = init.acks.add('n2').add('n1').add('n2');
  assert.deepEqual(acks.toArray(), ['n1', 'n2', 'n2']);
  assert.equal(acks.countOf('n2'), 2);
  assert.equal(acks.remove('n2').countOf('n2'), 1);
  assert.ok(is(acks.toImmutable(), List(['n1', 'n2', 'n2'])), `a bag becomes a List with its repeats, got ${String(acks.toImmutable())}`);
  assert.ok(acks.equals(init.acks.add('n2').add('n2').add('n1')), 'bags with the same counts are equal, whatever the order of adding');
});

test('variant views: the tag reads as a field and cannot be rewritten; other fields can', () => {
  const m = Msg.from({ type: 'Fetch', from: 'n2', offset: 3, entry: { epoch: 1, value: 'a' } });
  assert.equal(m.type, 'Fetch');
  assert.equal(m.get('type'), 'Fetch');
  if (m.type !== 'Fetch') return;
  assert.equal(m.offset, 3);
  assert.equal(m.set('offset', 4).offset, 4);
  assert.equal(m.set('type', 'Fetch'), m);
  const e = errorOf(() => m.set('type', 'Vote' as 'Fetch'));
  assert.equal(e.path, 'type');
  assert.deepEqual(m.toJS(), { type: 'Fetch', from: 'n2', offset: 3, entry: { epoch: 1, value: 'a' } });
  assert.equal(IRecord.getDescriptiveName(m.toImmutable() as IRecord<object>), 'Fetch');
  assert.equal(errorOf(() => Msg.from({ type: 'Ping' } as never)).path, 'type');
  const vote = Msg.from({ type: 'Vote', from: 'n1', epoch: 2 });
  assert.equal(vote.bytes.length, Msg.width);
  assert.ok(vote.bytes.subarray(3).every((b) => b === 0), 'a shorter case leaves the rest zero');
});

test('bounds errors name the path, the value and the bound', () => {
  const cases: [() => unknown, string, unknown, string][] = [
    [() => init.setIn(['replicas', 'n2', 'epoch'], 4), 'replicas.n2.epoch', 4, 'an integer in 0..3'],
    [() => init.replicas.get('n2').set('epoch', -1), 'replicas.n2.epoch', -1, 'an integer in 0..3'],
    [() => init.set('round', 301), 'round', 301, 'an integer in 0..300'],
    [() => init.set('round', 1.5), 'round', 1.5, 'an integer in 0..300'],
    [() => init.set('done', 1 as never), 'done', 1, 'a boolean'],
    [() => init.setIn(['replicas', 'n1', 'leader'], 'n4'), 'replicas.n1.leader', 'n4', 'null or one of node: n1, n2, n3'],
    [() => init.setIn(['replicas', 'n4'], emptyReplica), 'replicas.n4', 'n4', 'a key of one of node: n1, n2, n3'],
    [() => init.setIn(['replicas', 'n1', 'log'], [{ epoch: 0 }, { epoch: 0 }, { epoch: 0 }, { epoch: 0 }]), 'replicas.n1.log', '4 elements', 'at most 3 elements'],
    [() => init.setIn(['replicas', 'n1', 'log', 0, 'value'], 'c'), 'replicas.n1.log[0].value', 'c', 'null or one of a, b'],
    [() => init.merge({ replicas: { n1: emptyReplica, n2: emptyReplica, n3: { ...emptyReplica, epoch: 7 } } }), 'replicas.n3.epoch', 7, 'an integer in 0..3'],
    [() => State.from({ round: 0, rounds: 1 } as never), 'rounds', 1, 'no such field in State; its fields are replicas, inflight, net, acks, round, done'],
  ];
  for (const [f, path, value, bound] of cases) {
    const e = errorOf(f);
    assert.deepEqual([e.path, e.value, e.bound], [path, value, bound]);
    assert.ok(e.message.startsWith(`${path}: `), e.message);
  }
  assert.equal(errorOf(() => init.set('round', 301)).message, 'round: 301 is out of bounds (an integer in 0..300)');
});

test('layouts refuse what they cannot hold', () => {
  assert.throws(() => L.record('R', { merge: L.int(0, 1) }), /cannot be named merge/);
  assert.throws(() => L.int(3, 1), /min <= max/);
  assert.throws(() => L.enumOf(['a', 'a']), /listed twice/);
  assert.throws(() => L.idSet(L.ids('many', Array.from({ length: 33 }, (_, i) => i))), /at most 32 ids/);
  assert.throws(() => init.setIn(['round', 'x'], 1), /cannot go inside/);
  assert.throws(() => init.set('nope' as 'round', 1), /has no field nope/);
  assert.throws(() => init.replicas.get('n1').votes.add('n9' as 'n1'), LayoutError);
});

test('numeric ids: plain-object keys are their text, values stay numbers', () => {
  const Broker = L.ids('broker', [1, 2, 3]);
  const S = L.record('S', { hw: L.map(Broker, L.int(0, 9)), isr: L.idSet(Broker) });
  const s = S.from({ hw: { 1: 0, 2: 5, 3: 9 }, isr: [3, 1] });
  assert.equal(s.hw.get(2), 5);
  assert.deepEqual([...s.hw.keys()], [1, 2, 3]);
  assert.deepEqual(s.isr.toArray(), [1, 3]);
  assert.ok(is(s.toImmutable(), S.from({ hw: IMap([[1, 0], [2, 5], [3, 9]]), isr: ISet([1, 3]) }).toImmutable()), `numeric ids stay numbers, got ${String(s.toImmutable())}`);
  assert.ok(S.wrap(Uint8Array.from(s.bytes)).equals(s), 'a view over a copy of the bytes equals the original');
  assert.throws(() => S.wrap(new Uint8Array(1)), /needs 4 bytes/);
});

test('a composite field read twice is one view; inside withMutations a read after a write sees the write', () => {
  const Inner = L.record('Inner', { x: L.int(0, 3) });
  const S = L.record('S', { opt: L.option(Inner), msg: Msg, m: L.map(Node, L.int(0, 3)) });
  const s = S.from({ opt: null, msg: { type: 'Vote', from: 'n1', epoch: 1 }, m: { n1: 0, n2: 0, n3: 0 } });
  assert.equal(s.m, s.m);
  const t = s.withMutations((w) => {
    assert.equal(w.opt, null);
    assert.equal(w.msg.type, 'Vote');
    assert.equal(w.m.get('n1'), 0);
    w.set('opt', { x: 2 });
    w.set('msg', { type: 'Fetch', from: 'n2', offset: 5, entry: null });
    w.set('m', w.m.set('n1', 3));
    const after = w as typeof s; // the writes above change what w's fields hold
    assert.equal(after.opt?.x, 2);
    assert.equal(after.msg.type, 'Fetch');
    assert.equal(after.msg.get('offset'), 5);
    assert.equal(w.m.get('n1'), 3);
  });
  assert.equal(t.opt?.x, 2);
  assert.equal(t.msg.type, 'Fetch');
  assert.equal(t.m.get('n1'), 3);
  assert.equal(s.opt, null, 'the original is unchanged');
  assert.equal(s.msg.type, 'Vote');
  assert.equal(s.m.get('n1'), 0);
});

test('a view serialises to JSON as its plain value, after its children were read and cached', () => {
  const Inner = L.record('Inner', { n: L.int(0, 3), tags: L.idSet(L.ids('tag', ['a', 'b'])) });
  const Outer = L.record('Outer', { inner: Inner, list: L.list(L.int(0, 3), 2) });
  const o = Outer.from({ inner: { n: 2, tags: ['b'] }, list: [1] });
  assert.equal(o.inner.n, 2);
  assert.equal(o.list.size, 1);
  assert.equal(JSON.stringify({ state: o }), '{"state":{"inner":{"n":2,"tags":["b"]},"list":[1]}}');
});
