import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import twoPhase from '../../spec/twophase/twoPhase.ts';
import { checkModel } from './check.ts';

const label = { spec: 'twophase', params: { rm: 6 } };

test('a frontier that outgrows the memory budget spills to disk and the search ends with the same counts', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kmc-spill-test-'));
  try {
    const inMemory = await checkModel(twoPhase.build({ rm: 6 }), {}, label);
    // At most 32 KiB of frontier in memory, in 8 KiB chunks: most of each level must go to disk.
    const spilled = await checkModel(twoPhase.build({ rm: 6 }), { frontierMemoryBytes: 32 * 1024, spillDirectory: dir, frontierChunkBytes: 8192 }, label);
    assert.equal(spilled.status, 'holds');
    assert.equal(spilled.stats.distinct, inMemory.stats.distinct);
    assert.equal(spilled.stats.generated, inMemory.stats.generated);
    assert.equal(spilled.stats.depth, inMemory.stats.depth);
    assert.deepEqual(spilled.stats.coverage, inMemory.stats.coverage);
    assert.ok(spilled.stats.spilledBytes > 0, 'the frontier went to disk');
    assert.equal(inMemory.stats.spilledBytes, 0);
    assert.deepEqual(readdirSync(dir), [], 'spill files are removed when their level is done');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
