import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { FingerprintSet, FingerprintSetView } from './fingerprintSet.ts';

test('a fingerprint set answers as a set of pairs, through growth and its recent cache', () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.nat(40), fc.nat(300)), { maxLength: 2000 }), (pairs) => {
      // A tiny table grows many times; lo values share their low bits, so recent-cache entries evict each other.
      const set = new FingerprintSet(16);
      const model = new Set<string>();
      // (0, 0) marks an empty slot: the set stores that fingerprint as (0, 1).
      const keyOf = (hi: number, lo: number) => (hi === 0 && lo === 0 ? '0:1' : `${hi}:${lo}`);
      for (const [hi, lo] of pairs) {
        const key = keyOf(hi, lo);
        const known = set.touch(hi, lo);
        if (known) assert.ok(model.has(key), `touch claimed ${key} before it was added`);
        assert.equal(set.add(hi, lo), !model.has(key));
        model.add(key);
        assert.equal(set.size, model.size);
      }
      for (let hi = 0; hi <= 40; hi += 7) for (let lo = 0; lo <= 300; lo += 13) assert.equal(set.has(hi, lo), model.has(keyOf(hi, lo)));
    }),
  );
});

test('touch knows a fingerprint just added, and clear forgets it', () => {
  const set = new FingerprintSet();
  assert.equal(set.touch(7, 9), false);
  assert.equal(set.add(7, 9), true, 'a new fingerprint is added');
  assert.equal(set.touch(7, 9), true);
  assert.equal(set.add(7, 9), false);
  // A fingerprint with the same cache entry replaces it; the first stays in the table.
  assert.equal(set.add(8, 9), true, 'a fingerprint sharing the cache entry is still new');
  assert.equal(set.touch(7, 9), false);
  assert.equal(set.add(7, 9), false);
  set.clear();
  assert.equal(set.size, 0);
  assert.equal(set.touch(7, 9), false);
  assert.equal(set.has(7, 9), false);
  assert.equal(set.add(7, 9), true, 'after clear the fingerprint is new again');
});

test('fingerprint (0, 0) is stored as (0, 1), and a worker view sees what was added', () => {
  const set = new FingerprintSet(16);
  assert.equal(set.add(0, 0), true, '(0, 0) is new to an empty set');
  assert.equal(set.add(0, 1), false);
  assert.equal(set.touch(0, 0), true);
  for (let i = 1; i < 500; i++) set.add(i, i * 31);
  const view = new FingerprintSetView(set.buffer);
  assert.equal(view.has(0, 0), true, 'the view sees (0, 0)');
  assert.equal(view.has(499, 499 * 31), true, 'the view sees the last fingerprint added');
  assert.equal(view.has(500, 500 * 31), false);
});

test('a set restored from its slots keeps its answers', () => {
  const set = new FingerprintSet(16);
  for (let i = 0; i < 300; i++) set.add(i, i ^ 0x5555);
  const copy = FingerprintSet.fromSlots(set.rawSlots.slice(), set.size);
  for (let i = 0; i < 300; i++) assert.equal(copy.add(i, i ^ 0x5555), false);
  assert.equal(copy.add(300, 1), true, 'a fingerprint not in the slots is new to the copy');
  assert.equal(copy.size, 301);
});
