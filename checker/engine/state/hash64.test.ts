import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LITTLE_ENDIAN, hash64, hash64Words, hashHi, hashLo } from './hash64.ts';

test('hashing by words gives the hash of the same bytes, for every length and word-aligned start', { skip: !LITTLE_ENDIAN }, () => {
  const bytes = new Uint8Array(256);
  let x = 12345;
  for (let i = 0; i < bytes.length; i++) bytes[i] = (x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 24;
  const words = new Int32Array(bytes.buffer);
  for (let start = 0; start <= 64; start += 4) {
    for (let end = start; end <= start + 80; end++) {
      hash64(bytes, start, end);
      const expected = [hashHi, hashLo];
      hash64Words(words, bytes, start, end);
      assert.deepEqual([hashHi, hashLo], expected, `bytes ${start}..${end}`);
    }
  }
});
