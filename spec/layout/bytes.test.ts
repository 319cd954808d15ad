import { test } from 'node:test';
import assert from 'node:assert/strict';
import { arena, copyInto, copyToSlab, reserve, wordsOf } from './bytes.ts';

test('copies into the slab give the source bytes, by words or by bytes, and leave the bytes around them alone', () => {
  const src = new Uint8Array(4096 + 3);
  for (let i = 0; i < src.length; i++) src[i] = (i * 131 + 7) & 0xff;
  const unaligned = src.subarray(3);
  assert.equal(wordsOf(unaligned), null, 'a buffer that does not start on a word has no words');
  for (const from of [src, unaligned]) {
    for (const w of [0, 1, 3, 4, 7, 8, 9, 31, 32, 33, 64, 65, 84, 509, 2048, 2049, 3000]) {
      for (const so of [0, 1, 4, 6, 8]) {
        const d = reserve(w);
        assert.equal(d % 4, 0, 'slab regions start on a word');
        const slab = arena.b;
        const after = d + w < slab.length ? slab[d + w] : undefined;
        copyInto(from, so, slab, d, w);
        assert.deepEqual(slab.subarray(d, d + w), from.subarray(so, so + w), `width ${w} from ${so}`);
        if (after !== undefined) assert.equal(slab[d + w], after, 'nothing written past the region');
      }
    }
  }
});

test('a copy to a fresh slab region gives the source bytes and leaves the next fresh region zero', () => {
  const src = new Uint8Array(4096);
  for (let i = 0; i < src.length; i++) src[i] = (i * 89 + 3) | 1;
  for (const w of [1, 5, 8, 9, 30, 31, 32, 33, 84, 509, 2050]) {
    for (const so of [0, 3, 4, 4096 - w]) {
      const d = copyToSlab(src, so, w);
      assert.deepEqual(arena.b.subarray(d, d + w), src.subarray(so, so + w), `width ${w} from ${so}`);
      const next = reserve(16);
      assert.ok(arena.b.subarray(next, next + 16).every((b) => b === 0), 'the next region is fresh');
    }
  }
});
