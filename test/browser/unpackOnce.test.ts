import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unpackOnce } from './unpackOnce.ts';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function freshDir(): string {
  return mkdtempSync(join(tmpdir(), 'kmc-unpack-once-'));
}

/** An unpack that writes `bin` slowly and counts its runs. */
function slowUnpack(dir: string, runs: { count: number }): () => Promise<string> {
  return async () => {
    const bin = join(dir, 'bin');
    if (existsSync(bin)) return bin;
    runs.count++;
    writeFileSync(bin, 'part');
    await pause(300);
    writeFileSync(bin, 'whole');
    return bin;
  };
}

test('callers started together: one unpacks, the others wait for it and get the whole file', async () => {
  const dir = freshDir();
  try {
    const runs = { count: 0 };
    const unpack = slowUnpack(dir, runs);
    const paths = await Promise.all([1, 2, 3].map(() => unpackOnce(dir, 'thing', ['bin'], async () => {
      const path = await unpack();
      // What a caller gets must be complete, not the first process's file half written.
      assert.equal(readFileSync(path, 'utf8'), 'whole');
      return path;
    })));
    assert.deepEqual(paths, [join(dir, 'bin'), join(dir, 'bin'), join(dir, 'bin')]);
    assert.equal(runs.count, 1);
    assert.ok(existsSync(join(dir, 'thing.unpacked')), 'the mark of completion is written');
    assert.ok(!existsSync(join(dir, 'thing.lock')), 'the lock is let go');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a lock left by a process that died is taken over, and a part-written file it left is unpacked again', async () => {
  const dir = freshDir();
  try {
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    mkdirSync(join(dir, 'thing.lock'));
    writeFileSync(join(dir, 'thing.lock', 'pid'), dead.stdout);
    writeFileSync(join(dir, 'bin'), 'part');
    const runs = { count: 0 };
    const path = await unpackOnce(dir, 'thing', ['bin'], slowUnpack(dir, runs));
    assert.equal(readFileSync(path, 'utf8'), 'whole');
    assert.equal(runs.count, 1);
    // Once marked done, a later caller does not unpack again.
    await unpackOnce(dir, 'thing', ['bin'], slowUnpack(dir, runs));
    assert.equal(runs.count, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
