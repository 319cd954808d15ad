import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BytesMemo } from './bytesMemo.ts';

test('a value is made once per distinct bytes, wherever the bytes lie', () => {
  const made: number[][] = [];
  const memo = new BytesMemo((key) => {
    made.push([...key]);
    return made.length;
  });
  const a = Uint8Array.of(9, 1, 2, 3, 9);
  const b = Uint8Array.of(1, 2, 3);
  assert.equal(memo.of(a, 1, 3), 1);
  assert.equal(memo.of(b, 0, 3), 1);
  assert.equal(memo.of(a, 0, 3), 2);
  assert.deepEqual(made, [[1, 2, 3], [9, 1, 2]]);
  assert.equal(memo.count, 2);
});

test('a two-region key is the two regions read as one string', () => {
  const memo = new BytesMemo((key) => [...key].join(','));
  const s = Uint8Array.of(1, 2, 0, 0, 3, 4);
  assert.equal(memo.of2(s, 0, 2, 4, 2), '1,2,3,4');
  assert.equal(memo.of2(Uint8Array.of(3, 4, 1, 2), 2, 2, 0, 2), '1,2,3,4');
  assert.equal(memo.count, 1);
  assert.equal(memo.of2(s, 0, 2, 2, 2), '1,2,0,0');
  assert.equal(memo.count, 2);
});

test('the key given to make is a copy: later writes to the state do not reach it', () => {
  const memo = new BytesMemo((key) => key);
  const s = Uint8Array.of(5, 6);
  const key = memo.of(s, 0, 2);
  s[0] = 7;
  assert.deepEqual([...key], [5, 6]);
  assert.equal(memo.of(Uint8Array.of(5, 6), 0, 2), key);
  assert.notEqual(memo.of(s, 0, 2), key);
});

test('full, it empties and goes on giving right values', () => {
  let makes = 0;
  const memo = new BytesMemo((key) => (makes++, key[0]! * 10), 4);
  for (let v = 0; v < 4; v++) assert.equal(memo.of(Uint8Array.of(v), 0, 1), v * 10);
  assert.equal(memo.count, 4);
  assert.equal(memo.of(Uint8Array.of(4), 0, 1), 40);
  assert.equal(memo.count, 1);
  assert.equal(memo.of(Uint8Array.of(0), 0, 1), 0);
  assert.equal(makes, 6);
});
