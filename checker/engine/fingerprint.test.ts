import { test } from 'node:test';
import assert from 'node:assert/strict';
import { List, Map, OrderedMap, OrderedSet, Record, Set, is } from 'immutable';
import fc from 'fast-check';
import { Fingerprinter, UnhashableValueError } from './fingerprint.ts';

const fp = (v: unknown): string => {
  const f = new Fingerprinter();
  f.of(v);
  return `${f.hi}:${f.lo}`;
};

test('maps and sets built in different orders have the same fingerprint', () => {
  fc.assert(
    fc.property(fc.uniqueArray(fc.tuple(fc.string(), fc.integer()), { selector: ([k]) => k, maxLength: 40 }), (entries) => {
      const a = Map(entries);
      const b = Map([...entries].reverse());
      assert.ok(is(a, b), `built in reverse, ${String(b)} is not ${String(a)}`);
      assert.equal(fp(a), fp(b));
      assert.equal(fp(Set(entries.map(([k]) => k))), fp(Set([...entries].reverse().map(([k]) => k))));
    }),
  );
});

test('Immutable.is-equal values built through different histories fingerprint alike', () => {
  const R = Record({ a: Map<string, number>(), b: List<number>() });
  const x = R({ a: Map({ p: 1, q: 2 }), b: List([1, 2]) });
  const y = R().set('a', Map<string, number>().set('q', 2).set('p', 1)).set('b', List([1]).push(2));
  assert.ok(is(x, y), `${String(y)} is not ${String(x)}`);
  assert.equal(fp(x), fp(y));
  assert.equal(fp(0), fp(-0));
  assert.equal(fp(NaN), fp(NaN));
});

test('different values get different fingerprints, including order of lists and ordered maps', () => {
  const seen = new globalThis.Set<string>();
  const values: unknown[] = [0, 1, -1, 1.5, '', '0', 'a', true, false, null, undefined, List([1, 2]), List([2, 1]), Set([1, 2]), Map({ a: 1 }), Map({ a: 2 }), Map({ b: 1 }),
    OrderedMap([['a', 1], ['b', 2]]), OrderedMap([['b', 2], ['a', 1]]), List(), Set(), Map()];
  for (const v of values) seen.add(fp(v));
  // Map() and OrderedMap() differ, List() and Set() differ: all distinct.
  assert.equal(seen.size, values.length);
});

test('two Records have one fingerprint exactly when Immutable.is calls them equal, whatever their classes', () => {
  // Same names declared in another order, other names, fewer and more names, and a subclass.
  const classes = [
    Record({ epoch: 0, leader: 0 }),
    Record({ leader: 0, epoch: 0 }),
    Record({ epoch: 0, replica: 0 }),
    Record({ term: 0, voter: 0 }),
    Record({ epoch: 0 }),
    Record({ epoch: 0, leader: 0, voter: 0 }),
    class Fetch extends Record({ epoch: 0, leader: 0 }) {},
  ];
  const value = fc.oneof(fc.integer({ min: 0, max: 2 }), fc.constantFrom('b1', 'b2', undefined));
  const record = fc.tuple(fc.integer({ min: 0, max: classes.length - 1 }), fc.array(value, { minLength: 3, maxLength: 3 })).map(([c, vs]) => {
    const R = classes[c]!;
    const names = Object.keys(new R().toObject());
    return new R(Object.fromEntries(names.map((n, i) => [n, vs[i]])));
  });
  fc.assert(
    fc.property(record, record, (a, b) => {
      assert.equal(fp(a) === fp(b), is(a, b), `${a} against ${b}`);
      assert.equal(fp(Set([a])) === fp(Set([b])), is(Set([a]), Set([b])));
    }),
    { seed: 11, numRuns: 2000 },
  );
});

test('over nested values of every kind, two values have one fingerprint exactly when Immutable.is calls them equal', () => {
  // Small domains, so that equal values built differently come up often (a few thousand pairs here).
  const A = Record({ a: 0 as unknown, b: 0 as unknown });
  const B = Record({ b: 0 as unknown, a: 0 as unknown });
  const C = Record({ a: 0 as unknown });
  const { tree } = fc.letrec((tie) => ({
    tree: fc.oneof({ depthSize: 'small' }, tie('leaf'), tie('node')),
    leaf: fc.constantFrom<unknown>(0, 1, -0, 'a', 'b', '0', true, false, null, undefined, NaN, 1.5),
    node: fc.oneof(
      fc.array(tie('tree'), { maxLength: 2 }).map((xs) => List(xs)),
      fc.array(tie('tree'), { maxLength: 2 }).map((xs) => Set(xs)),
      fc.array(tie('tree'), { maxLength: 2 }).map((xs) => OrderedSet(xs)),
      fc.array(fc.tuple(tie('leaf'), tie('tree')), { maxLength: 2 }).map((xs) => Map(xs)),
      fc.array(fc.tuple(tie('leaf'), tie('tree')), { maxLength: 2 }).map((xs) => OrderedMap(xs)),
      fc.tuple(tie('tree'), tie('tree')).map(([x, y]) => A({ a: x, b: y })),
      fc.tuple(tie('tree'), tie('tree')).map(([x, y]) => B({ a: x, b: y })),
      tie('tree').map((x) => C({ a: x })),
    ),
  }));
  let equal = 0;
  fc.assert(
    fc.property(tree, tree, (x, y) => {
      if (is(x, y)) equal++;
      assert.equal(fp(x) === fp(y), is(x, y), `${String(x)} against ${String(y)}`);
    }),
    { seed: 3, numRuns: 30_000 },
  );
  assert.ok(equal > 300, `only ${equal} equal pairs were generated`);
});

test('a distinct fingerprint for each of 100,000 small records', () => {
  const R = Record({ x: 0, y: 0, s: '' });
  const seen = new globalThis.Set<string>();
  for (let i = 0; i < 100_000; i++) seen.add(fp(R({ x: i % 317, y: Math.floor(i / 317), s: i % 2 ? 'odd' : 'even' })));
  assert.equal(seen.size, 100_000);
});

test('plain objects and arrays in a state are refused with a clear message', () => {
  assert.throws(() => fp(Map({ a: { b: 1 } })), (e: unknown) => e instanceof UnhashableValueError && /plain Object/.test((e as Error).message));
  assert.throws(() => fp(List([[1]])), /plain array/);
});
