/**
 * Signals sent to a real `kmc` process (the compiled bin, as installed): the search, which runs in a child
 * of the launcher, stops with the stats so far and exit 4, and no process is left behind, whether the
 * child gets a larger heap or the heap limit was given on the command line.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = `${root}dist/checker/cli/bin.mjs`;
const linux = process.platform === 'linux';
const { KMC_HEAP_SET: _, KMC_LAUNCHER_PID: __, ...parentEnv } = process.env;
const env = { ...parentEnv, NO_COLOR: '1' };
// Big enough to run for minutes: the signal always arrives mid-search.
const LONG_CHECK = ['check', 'twophase', '--param', 'rm=9', '--workers', '1', '--json'];

function alive(pid: number): boolean {
  return existsSync(`/proc/${pid}`) && !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
}

/** CPU seconds `pid` has used (Linux: utime + stime in /proc/PID/stat, in clock ticks of 1/100 s). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function children(pid: number): number[] {
  const text = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  return text === '' ? [] : text.split(/\s+/).map(Number);
}

/**
 * Waits until the process doing the search (the child, if kmc started one) is searching: loading kmc and
 * the spec and checking a tiny model take 0.6 s of CPU, so 1.2 s of CPU mean the search is under way.
 */
async function searching(kmc: ChildProcess, expectChild: boolean): Promise<number> {
  for (let i = 0; i < 1200; i++) {
    const [child] = children(kmc.pid!);
    const worker = expectChild ? child : kmc.pid!;
    if (worker !== undefined && alive(worker) && cpuSeconds(worker) >= 1.2) return worker;
    await sleep(50);
  }
  throw new Error('kmc never started searching');
}

function exited(kmc: ChildProcess): Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  kmc.stdout!.on('data', (d) => (stdout += d));
  kmc.stderr!.on('data', (d) => (stderr += d));
  return new Promise((resolve) => kmc.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
}

// Each signal and each way of starting the child once in `npm test`; every pair with KMC_SLOW=1.
for (const [signal, withChild, fastTier] of [
  ['SIGTERM', false, true],
  ['SIGINT', false, false],
  ['SIGTERM', true, false],
  ['SIGINT', true, true],
] as const) {
  const skip = !linux || (!fastTier && !process.env.KMC_SLOW && 'set KMC_SLOW=1 (npm run test:slow): npm test sends each signal once, to a launcher started each way once');
  test(`kill -${signal.slice(3)} to the launcher${withChild ? '' : ' (heap limit given on the command line)'}: stats so far, exit 4, nothing left running`, { skip, timeout: 60_000 }, async () => {
    // A heap limit given on the command line is kept: the child gets no larger heap, but still runs the search.
    const nodeArgs = withChild ? [] : ['--max-old-space-size=2048'];
    const kmc = spawn(process.execPath, [...nodeArgs, bin, ...LONG_CHECK], { env });
    const done = exited(kmc);
    const worker = await searching(kmc, true).catch((e: unknown) => {
      kmc.kill('SIGKILL');
      throw e;
    });
    assert.notEqual(worker, kmc.pid);
    kmc.kill(signal);
    const r = await done;
    const leftRunning = alive(worker);
    if (leftRunning) process.kill(worker, 'SIGKILL');
    assert.equal(r.code, 4, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.equal(report.status, 'incomplete');
    assert.equal(report.reason, 'interrupted');
    assert.ok(report.distinct > 0, `the report counts the states found before ${signal}, got ${report.distinct}`);
    assert.match(r.stderr, new RegExp(`Stopping \\(${signal}\\)`));
    assert.equal(leftRunning, false, 'the search process is gone');
  });
}

for (const when of ['while it starts', 'while it searches'] as const) {
  test(`kill -KILL to the launcher ${when}: its child stops too (no orphan)`, { skip: !linux, timeout: 60_000 }, async () => {
    const kmc = spawn(process.execPath, [bin, ...LONG_CHECK], { env });
    const done = exited(kmc);
    let child: number | undefined;
    try {
      if (when === 'while it starts') {
        while (child === undefined) {
          child = children(kmc.pid!)[0];
          await sleep(5);
        }
      } else child = await searching(kmc, true);
      kmc.kill('SIGKILL');
      await done;
      for (let i = 0; i < 200 && alive(child); i++) await sleep(50);
      assert.equal(alive(child), false, 'the child exits when its launcher dies');
    } finally {
      if (child !== undefined && alive(child)) process.kill(child, 'SIGKILL');
    }
  });
}
