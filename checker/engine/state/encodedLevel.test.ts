import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BLOCK, decodeLevel, EncodedLevelReader, EncodedLevelWriter } from './encodedLevel.ts';

/** `count` states of `width` bytes, `stride` apart: runs of siblings that differ in a byte or two, as a BFS level has. */
function states(count: number, width: number, seed: number): Uint8Array {
  const stride = (width + 3) & ~3;
  const out = new Uint8Array(count * stride);
  let x = seed;
  const next = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 8;
  const state = new Uint8Array(width);
  for (let i = 0; i < count; i++) {
    if (next() % 7 === 0) for (let b = 0; b < width; b++) state[b] = next() & 0xff;
    else state[next() % width] = next() & 0xff;
    out.set(state, i * stride);
  }
  return out;
}

function stateAt(raw: Uint8Array, i: number, width: number): number[] {
  const stride = (width + 3) & ~3;
  return [...raw.subarray(i * stride, i * stride + width)];
}

for (const width of [1, 13, 509]) {
  test(`a level of ${width}-byte states reads back whole, at any position, in any order (blocks of ${BLOCK})`, () => {
    const stride = (width + 3) & ~3;
    const count = 5 * BLOCK + 17;
    const raw = states(count, width, width);
    // Room for a few states only: the code and the block table grow as states come.
    const writer = new EncodedLevelWriter(width, stride, 3);
    for (let i = 0; i < count; i++) writer.push(raw, i * stride);
    assert.equal(writer.count, count);
    const level = writer.level();
    assert.equal(level.count, count);
    const reader = new EncodedLevelReader(level, width, stride);
    const order = [0, 1, 2, BLOCK - 1, BLOCK, BLOCK + 5, 3, count - 1, 2 * BLOCK + 1, 2 * BLOCK + 1, 0, count - 2, BLOCK * 3 - 1];
    for (const i of order) {
      assert.deepEqual([...reader.at(i).subarray(0, width)], stateAt(raw, i, width), `state ${i}`);
    }
    const whole = decodeLevel(level, width, stride);
    for (let i = 0; i < count; i++) assert.deepEqual([...whole.subarray(i * width, (i + 1) * width)], stateAt(raw, i, width), `state ${i} end to end`);
    assert.throws(() => reader.at(count), /^Error: no state 337 in a level of 337$/);
  });
}

test('siblings cost a few bytes each, not their width; an emptied writer holds the next level in the same memory', () => {
  const width = 509;
  const stride = (width + 3) & ~3;
  const count = 4 * BLOCK;
  // Each state differs from the one before in one byte.
  const raw = new Uint8Array(count * stride);
  for (let i = 0; i < count; i++) {
    if (i > 0) raw.copyWithin(i * stride, (i - 1) * stride, i * stride);
    raw[i * stride + ((i * 37) % width)] = i & 0xff;
  }
  const writer = new EncodedLevelWriter(width, stride, count);
  for (let i = 0; i < count; i++) writer.push(raw, i * stride);
  // Each state but a block's first (against zeros) is two or three control bytes and its one new byte.
  assert.ok(writer.encodedBytes < count * 10, `${writer.encodedBytes} bytes for ${count} states of ${width}`);
  const first = writer.level();
  const allocated = writer.bytes;
  const again = states(count, width, 8);
  writer.emptied();
  for (let i = 0; i < count; i++) writer.push(again, i * stride);
  assert.equal(writer.bytes, allocated);
  assert.equal(writer.level().code, first.code);
  const whole = decodeLevel(writer.level(), width, stride);
  for (let i = 0; i < count; i++) assert.deepEqual([...whole.subarray(i * width, (i + 1) * width)], stateAt(again, i, width));
});
