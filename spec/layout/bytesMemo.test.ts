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

test('full, it starts a new half: values asked for again move to it, the rest go at the next turn', () => {
  let makes = 0;
  const memo = new BytesMemo((key) => (makes++, key[0]! * 10), 4);
  for (let v = 0; v < 4; v++) assert.equal(memo.of(Uint8Array.of(v), 0, 1), v * 10);
  assert.equal(memo.count, 4);
  // Full: 0..3 become the older half; 4 starts the new one.
  assert.equal(memo.of(Uint8Array.of(4), 0, 1), 40);
  assert.equal(memo.count, 5);
  // 0 moves from the older half to the new one, made no second time.
  assert.equal(memo.of(Uint8Array.of(0), 0, 1), 0);
  assert.equal(makes, 5);
  assert.equal(memo.count, 5);
  for (let v = 5; v < 7; v++) assert.equal(memo.of(Uint8Array.of(v), 0, 1), v * 10);
  assert.equal(memo.count, 7);
  // The new half is full (4, 0, 5, 6): it becomes the older one, and 1, 2, 3 are dropped.
  assert.equal(memo.of(Uint8Array.of(7), 0, 1), 70);
  assert.equal(memo.count, 5);
  assert.equal(memo.of(Uint8Array.of(1), 0, 1), 10);
  assert.equal(memo.of(Uint8Array.of(5), 0, 1), 50);
  assert.equal(makes, 9);
  memo.clear();
  assert.equal(memo.count, 0);
  assert.equal(memo.of(Uint8Array.of(5), 0, 1), 50);
  assert.equal(makes, 10);
});

test('a key hashes alike on a word of its buffer and off it, short or long', () => {
  for (const w of [3, 5, 8, 13, 16, 19, 40, 97]) {
    const memo = new BytesMemo((key) => [...key].join(','));
    const bytes = Array.from({ length: w }, (_, i) => (i * 37 + w) & 0xff);
    const aligned = new Uint8Array(w + 8);
    aligned.set(bytes, 4);
    const off = new Uint8Array(w + 8);
    off.set(bytes, 3);
    const value = memo.of(aligned, 4, w);
    assert.equal(memo.of(off, 3, w), value);
    assert.equal(memo.of(Uint8Array.from(bytes), 0, w), value);
    assert.equal(memo.count, 1);
  }
});
