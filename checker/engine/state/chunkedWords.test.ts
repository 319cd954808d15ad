import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChunkedWords } from './chunkedWords.ts';

test('chunked words give back every word pushed, across chunks, holding at most one chunk more than they need', () => {
  const words = new ChunkedWords();
  const n = 600_000; // two whole chunks of 2^18 words and part of a third
  const valueAt = (i: number) => (Math.imul(i, 0x9e3779b1) ^ (i >>> 3)) >>> 0;
  for (let i = 0; i < n; i++) {
    words.push(valueAt(i));
    if (i === 5000) assert.equal(words.bytes, 8192 * 4, 'the first chunk doubles from 1,024 words to the next power of two');
  }
  assert.equal(words.length, n);
  for (let i = 0; i < n; i += 997) assert.equal(words.get(i), valueAt(i), `word ${i}`);
  for (const i of [0, 1023, 1024, (1 << 18) - 1, 1 << 18, (1 << 19) + 5, n - 1]) assert.equal(words.get(i), valueAt(i), `word ${i}`);
  assert.equal(words.bytes, 3 * (1 << 18) * 4);
  assert.ok(words.bytes - 4 * n < (1 << 18) * 4);
});
