import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keyOrder } from './keyOrder.ts';
import { KEY_SPAN } from './ownerProtocol.ts';

/** Distinct keys of `count` candidates over `ranks` parents, in a shuffled order. */
function shuffledKeys(count: number, ranks: number, seed: number): Float64Array {
  let x = seed;
  const next = () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const seen = new Set<number>();
  const keys = new Float64Array(count);
  for (let c = 0; c < count; ) {
    const key = Math.floor(next() * ranks) * KEY_SPAN + Math.floor(next() * 40);
    if (seen.has(key)) continue;
    seen.add(key);
    keys[c++] = key;
  }
  return keys;
}

test('keyOrder: the positions of the keys, least first, as a comparator sort has them', () => {
  for (const [count, ranks] of [[0, 1], [1, 1], [5000, 300], [5000, 5000], [3000, 10_000_000]] as const) {
    const keys = shuffledKeys(count, ranks, count + ranks);
    const expected = Array.from({ length: count }, (_, c) => c).sort((a, b) => keys[a]! - keys[b]!);
    assert.deepEqual([...keyOrder(keys, count)], expected, `${count} keys over ${ranks} ranks`);
  }
});

test('keyOrder reads only the first count keys', () => {
  const keys = Float64Array.from([3 * KEY_SPAN, 1, 2 * KEY_SPAN + 5, 0]);
  assert.deepEqual([...keyOrder(keys, 3)], [1, 2, 0]);
});
