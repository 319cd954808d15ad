import { test } from 'node:test';
import assert from 'node:assert/strict';
import { levelChunks, MAX_CHUNK, MIN_CHUNK } from './levelChunks.ts';

test('a level is cut into consecutive chunks that cover it, large first and small at its end', () => {
  for (const [count, workers] of [[1, 2], [15, 2], [104, 2], [10_000, 2], [250_000, 2], [9_999, 3]] as const) {
    const starts = levelChunks(count, workers);
    assert.equal(starts[0], 0);
    assert.equal(starts[starts.length - 1], count);
    const sizes = Array.from(starts.subarray(1), (end, k) => end - starts[k]!);
      for (const [k, size] of sizes.entries()) {
      assert.ok(size <= MAX_CHUNK, `chunk ${k} of ${count}: ${size}`);
      // Only a level smaller than the least chunk has a chunk below it; the last one takes in the rest.
      assert.ok(size >= Math.min(count, MIN_CHUNK), `chunk ${k} of ${count}: ${size}`);
      if (k > 0 && k < sizes.length - 1) assert.ok(size <= sizes[k - 1]!, `chunks of ${count} do not shrink: ${sizes.join(' ')}`);
    }
  }
  // 10,000 positions on two workers: a first chunk of a sixteenth, the last ones of 16 to 31.
  const starts = levelChunks(10_000, 2);
  assert.deepEqual([starts[1]! - starts[0]!, starts.at(-1)! - starts.at(-2)!], [625, 22]);
  assert.equal(levelChunks(250_000, 2)[1], MAX_CHUNK);
  assert.deepEqual(Array.from(levelChunks(40, 2)), [0, 16, 40]);
});
