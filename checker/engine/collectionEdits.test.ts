import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { OrderedSet } from 'immutable';
import { Map as IMap, Record, Set as ISet, is } from '../../spec/immutable.ts';
import { Fingerprinter, unstep1, unstep2, fmix, step1, step2 } from './fingerprint.ts';
import { accelerateImmutable } from './immutableAcceleration.ts';

accelerateImmutable();

const Msg = Record({ type: 'prepare', from: 0, ballot: 0 });
const fingerprinter = new Fingerprinter();
const lanes = (v: unknown): string => (fingerprinter.of(v), `${fingerprinter.hi}:${fingerprinter.lo}`);
/** The same collection made afresh from its entries: no edit to start from, every entry hashed. */
const afresh = (c: IMap<unknown, unknown> | ISet<unknown>): unknown => (IMap.isMap(c) ? IMap(c.toArray()) : ISet(c.toArray()));

const edit = fc.oneof(
  fc.record({ op: fc.constant('set' as const), key: fc.integer({ min: 0, max: 40 }), value: fc.integer({ min: 0, max: 3 }) }),
  fc.record({ op: fc.constant('remove' as const), key: fc.integer({ min: 0, max: 40 }) }),
);

test('a Map or Set edited from one already hashed gets the fingerprint of the same collection made afresh: sets, replacements, removals, additions, no-ops, chains of edits, past and below the size edits are remembered from', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 40 }), fc.array(fc.array(edit, { minLength: 1, maxLength: 3 }), { maxLength: 25 }), (start, steps) => {
      let map = IMap<number, unknown>(Array.from({ length: start }, (_, i) => [i, Msg({ from: i })]));
      let set = ISet<unknown>(Array.from({ length: start }, (_, i) => Msg({ from: i })));
      lanes(map);
      lanes(set);
      for (const chain of steps) {
        // A chain of edits is hashed only at its end, as a step that edits one collection twice.
        for (const e of chain) {
          const msg = Msg({ from: e.key, ballot: e.op === 'set' ? e.value : 0 });
          map = e.op === 'set' ? map.set(e.key, e.value === 3 ? e.key : msg) : map.remove(e.key);
          set = e.op === 'set' ? set.add(msg) : set.remove(msg);
        }
        assert.equal(lanes(map), lanes(afresh(map)), `map of ${map.size}`);
        assert.equal(lanes(set), lanes(afresh(set)), `set of ${set.size}`);
      }
    }),
    { numRuns: 300 },
  );
});

test('an edited collection remembers its parent only until it is hashed, and only where it pays: unordered collections of 8 entries or more', () => {
  const big = ISet(Array.from({ length: 20 }, (_, i) => Msg({ from: i })));
  lanes(big);
  const grown = big.add(Msg({ from: 99 }));
  assert.equal((grown as unknown as { __kmcFrom?: unknown }).__kmcFrom, big);
  lanes(grown);
  assert.equal((grown as unknown as { __kmcFrom?: unknown }).__kmcFrom, undefined);
  const small = ISet([1, 2, 3, 4, 5, 6]);
  lanes(small);
  assert.equal((small.add(7) as unknown as { __kmcFrom?: unknown }).__kmcFrom, undefined);
  assert.equal((small.add(7).add(8) as unknown as { __kmcFrom?: unknown }).__kmcFrom, undefined, 'the parent of 7 was never hashed');
  // An OrderedSet's `add` is Set's, but it is hashed in order: nothing is remembered.
  const ordered = OrderedSet(Array.from({ length: 20 }, (_, i) => i));
  lanes(ordered);
  assert.equal((ordered.add(99) as unknown as { __kmcFrom?: unknown }).__kmcFrom, undefined);
  assert.equal(is(big.add(Msg({ from: 99 })), grown), true, 'the same edit made again gives an equal set');
});

test('the steps of the fingerprint are undone exactly', () => {
  fc.assert(
    fc.property(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), (h, x) => {
      assert.equal(unstep1(step1(h, x), x), h | 0);
      assert.equal(unstep2(step2(h, x), x), h | 0);
      assert.notEqual(fmix(h), fmix(h ^ 1));
    }),
  );
});
