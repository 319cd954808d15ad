/**
 * Runs a first-use unpack once across processes. The test runner starts several browser test files at
 * once, and each asked @sparticuz/chromium for its binary: on a fresh machine the second found the
 * binary's file already there, still being written by the first, and failed to start it ("spawn
 * ETXTBSY"). Here one process unpacks while holding a lock directory; the others wait for its mark of
 * completion, and take over the lock if its holder died.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const POLL_MS = 100;
const WAIT_MS = 180_000;

/**
 * `unpack()`'s result, unpacking only when `done` (a file in `dir`) is absent. `stale` lists the files an
 * unpack interrupted part-way may have left in `dir`: removed before unpacking again.
 */
export async function unpackOnce(dir: string, name: string, stale: readonly string[], unpack: () => Promise<string>): Promise<string> {
  const done = join(dir, `${name}.unpacked`);
  const lock = join(dir, `${name}.lock`);
  const startedAt = Date.now();
  for (;;) {
    if (existsSync(done)) return unpack();
    if (takeLock(lock)) {
      try {
        if (!existsSync(done)) {
          for (const f of stale) rmSync(join(dir, f), { recursive: true, force: true });
          const path = await unpack();
          writeFileSync(done, `${path}\n`);
          return path;
        }
        return await unpack();
      } finally {
        rmSync(lock, { recursive: true, force: true });
      }
    }
    if (Date.now() - startedAt > WAIT_MS) {
      throw new Error(`Waited ${WAIT_MS / 1000} s for another process to unpack ${name} (lock ${lock}). Remove the lock if no test is running.`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Takes the lock (a directory: making one is atomic), or removes it when the process holding it is gone. */
function takeLock(lock: string): boolean {
  try {
    mkdirSync(lock);
    writeFileSync(join(lock, 'pid'), String(process.pid));
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  if (!holderAlive(lock)) rmSync(lock, { recursive: true, force: true });
  return false;
}

function holderAlive(lock: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(join(lock, 'pid'), 'utf8'));
  } catch {
    return true; // the holder has made the lock and not yet written its pid
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
