import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { FingerprintIndex } from './fingerprintIndex.ts';

test('a fingerprint index answers as a map of pairs to their first id, through growth and wrapping probes', () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.nat(40), fc.nat(300)), { maxLength: 2000 }), (pairs) => {
      // A tiny table grows many times by half; with lo values sharing their low bits, probes run to the table's end and wrap.
      const index = new FingerprintIndex(4);
      const model = new Map<string, number>();
      for (const [id, [hi, lo]] of pairs.entries()) {
        const key = `${hi}:${lo}`;
        assert.equal(index.insert(hi, lo, id), model.get(key) ?? -1, `insert ${key} as ${id}`);
        if (!model.has(key)) model.set(key, id);
        assert.equal(index.size, model.size);
      }
      assert.ok(index.size <= index.capacity * 0.75, `${index.size} in ${index.capacity} slots`);
      for (let hi = 0; hi <= 40; hi += 3) {
        for (let lo = 0; lo <= 300; lo += 7) {
          const key = `${hi}:${lo}`;
          assert.equal(index.get(hi, lo), model.get(key) ?? -1, `get ${key}`);
        }
      }
    }),
  );
});

test('a cleared index keeps its capacity and forgets every fingerprint', () => {
  const index = new FingerprintIndex(16);
  for (let i = 0; i < 100; i++) index.insert(i, 7 * i, i);
  const capacity = index.capacity;
  assert.ok(capacity >= 100 / 0.75, `capacity ${capacity}`);
  index.clear();
  assert.equal(index.size, 0);
  assert.equal(index.capacity, capacity);
  assert.equal(index.get(5, 35), -1);
  assert.equal(index.insert(5, 35, 9), -1);
  assert.equal(index.get(5, 35), 9);
});
