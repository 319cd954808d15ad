import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LITTLE_ENDIAN, hash64, hash64Aligned, hashed } from './hash64.ts';
import { Fingerprinter } from '../fingerprint.ts';

const bytesHash = (b: Uint8Array, start = 0, end = b.length): string => {
  hash64(b, start, end);
  return `${hashed[0]}:${hashed[1]}`;
};

test('hash64 reads only its range, and every byte of it changes both halves', () => {
  const b = new Uint8Array(40).map((_, i) => i * 7);
  const inner = bytesHash(b, 3, 34);
  assert.equal(inner, bytesHash(b.slice(3, 34)));
  const [hi, lo] = inner.split(':');
  for (let i = 3; i < 34; i++) {
    const c = b.slice();
    c[i] = c[i]! ^ 1;
    const [hi2, lo2] = bytesHash(c, 3, 34).split(':');
    assert.notEqual(hi2, hi, `byte ${i}: high half unchanged`);
    assert.notEqual(lo2, lo, `byte ${i}: low half unchanged`);
  }
});

test('a state that is one number is fingerprinted as its float64 bytes; -0 is 0 and every NaN is one', () => {
  const fp = (v: number): string => {
    const f = new Fingerprinter();
    f.of(v);
    return `${f.hi}:${f.lo}`;
  };
  for (const n of [1, -1, 2 ** 36 + 5, 0.5, Infinity]) assert.equal(fp(n), bytesHash(new Uint8Array(new Float64Array([n]).buffer)));
  assert.equal(fp(-0), fp(0));
  const otherNaN = new Float64Array(new Uint32Array([1, 0x7ff80000]).buffer)[0]!;
  assert.equal(fp(otherNaN), fp(NaN));
  const seen = new Set<string>();
  for (let n = 0; n < 1 << 16; n++) seen.add(fp(n * 1024 + (n % 1024)));
  assert.equal(seen.size, 1 << 16);
});

test('hashing by words gives the hash of the same bytes, for every length and word-aligned start', { skip: !LITTLE_ENDIAN }, () => {
  const bytes = new Uint8Array(256);
  let x = 12345;
  for (let i = 0; i < bytes.length; i++) bytes[i] = (x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 24;
  const words = new Int32Array(bytes.buffer);
  for (let start = 0; start <= 64; start += 4) {
    for (let end = start; end <= start + 80; end++) {
      hash64(bytes, start, end);
      const expected = [hashed[0], hashed[1]];
      hash64Aligned(words, bytes, start, end);
      assert.deepEqual([hashed[0], hashed[1]], expected, `bytes ${start}..${end}`);
    }
  }
});
