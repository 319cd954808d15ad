import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BLOCK_WORDS, WordFile } from './wordFile.ts';

const valueAt = (i: number) => (Math.imul(i, 0x9e3779b1) ^ (i >>> 3)) >>> 0;

test('a word file gives back every word pushed, from disk and from its block in memory, and leaves no file behind', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kmc-wordfile-'));
  try {
    const words = new WordFile(dir);
    assert.deepEqual(readdirSync(dir), [], 'the file is removed from its directory once opened');
    const n = 2 * BLOCK_WORDS + 1000; // two blocks on disk and part of a third in memory
    for (let i = 0; i < n; i++) words.push(valueAt(i));
    assert.equal(words.length, n);
    assert.equal(words.bytes, BLOCK_WORDS * 4, 'only the last block is in memory');
    for (let i = 0; i < n; i += 997) assert.equal(words.get(i), valueAt(i), `word ${i}`);
    // Ranges on disk, in memory, and across the boundary between them (and between two blocks on disk).
    for (const [start, count] of [[0, 3], [BLOCK_WORDS - 2, 5], [2 * BLOCK_WORDS - 1, 2], [2 * BLOCK_WORDS + 10, 40], [n - 3, 3], [0, n]] as const) {
      assert.deepEqual([...words.read(start, count)], Array.from({ length: count }, (_, k) => valueAt(start + k)), `words ${start}..${start + count}`);
    }
    assert.throws(() => words.read(n - 1, 2), new RegExp(`words ${n - 1}\\.\\.${n + 1} of ${n}`));
    words.close();
    words.close(); // a second close does nothing
    assert.deepEqual(readdirSync(dir), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a word file in a directory that does not exist says which and what to do', () => {
  const dir = join(tmpdir(), `kmc-wordfile-missing-${process.pid}`);
  assert.throws(() => new WordFile(dir), (e: Error) => e.message.startsWith(`cannot keep a search's records in ${dir}: ENOENT`) && e.message.endsWith('(set TMPDIR to a directory this process can write)'));
});
