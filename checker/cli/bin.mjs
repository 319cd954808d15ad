#!/usr/bin/env node
// Entry point of the `kmc` command. Runs the compiled CLI beside it (dist/), or in a source checkout the
// TypeScript sources through tsx.
//
// The long commands (check, ci, simulate, diff) run in a child node under a watchdog (launcher.mjs): only
// another process can stop a spec whose code never returns, enforce the time limit on it, and make sure
// no search outlives the process that started kmc. The child gets a heap sized to the machine when no
// limit was chosen: V8's default (about 4 GiB) is below what a big search can use, and V8 fixes the limit
// when the process starts.
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { totalmem } from 'node:os';
import { getHeapStatistics } from 'node:v8';

const args = process.argv.slice(2);
const command = args.find((a) => !a.startsWith('-'));
const wantMb = Math.floor((totalmem() * 0.75) / 2 ** 20);
const haveMb = getHeapStatistics().heap_size_limit / 2 ** 20;
const limitChosen = /--max-old-space-size/.test(`${process.env.NODE_OPTIONS ?? ''} ${process.execArgv.join(' ')}`);
const WATCHED = ['check', 'ci', 'simulate', 'diff'];

if (WATCHED.includes(command) && process.env.KMC_LAUNCHER_PID === undefined && !args.includes('--help') && !args.includes('-h')) {
  buildIfStale();
  const { launch } = await import('./launcher.mjs');
  // A young generation of 4 MB semi-spaces instead of V8's 16 for a heap this large, for the bundled specs:
  // their states are packed bytes, a search makes short-lived views by the million, and a larger nursery
  // only raised the peak RSS (8 MB against 4: a fifth more on a KRaft run of 10^6 states, 255 MB against
  // 212) at no measurable gain in speed. A spec given by its path keeps V8's 16: written over Immutable.js,
  // as a spec mostly starts, its frontier's states are objects that survive the nursery, and a small one
  // copies them over and over (Paxos Commit over Immutable.js ran 1.2x faster with 16, TwoPhase 1.1x;
  // a layout spec by its path ran 2-5% slower, with about 35 MB more).
  const bigger = !limitChosen && process.env.KMC_HEAP_SET === undefined && haveMb < wantMb * 0.9;
  const specByPath = args.some((a) => !a.startsWith('-') && /\.[cm]?[jt]s$/.test(a));
  const semiSpace = specByPath || /--max-semi-space-size/.test(`${process.env.NODE_OPTIONS ?? ''} ${process.execArgv.join(' ')}`) ? [] : ['--max-semi-space-size=4'];
  const heap = bigger ? [`--max-old-space-size=${wantMb}`, ...semiSpace] : [];
  launch(process.argv[1], args, heap, bigger ? { ...process.env, KMC_HEAP_SET: String(wantMb) } : process.env);
} else {
  if (process.env.KMC_LAUNCHER_PID !== undefined) {
    // The launcher holds the other end of the IPC channel: if it is killed outright, stop too (also when
    // that happened while this process was still starting).
    if (!process.connected) process.exit(129);
    process.channel?.unref();
    process.on('disconnect', () => process.exit(129));
    // Not for the processes this one starts: they are not the launcher's child.
    delete process.env.KMC_LAUNCHER_PID;
  }
  const compiled = new URL('./cli.js', import.meta.url);
  if (existsSync(compiled)) {
    await (await import(compiled.href)).run();
  } else {
    (await import('tsx/esm/api')).register();
    await (await import('./cli.ts')).run();
  }
}

/**
 * kmc run compiled from a source checkout (dist/checker/cli/ beside spec/ and scripts/build.mjs): sources
 * saved since the last build are built first, so a check never runs the rules as they were before an edit.
 * One build at a time: a kmc started meanwhile waits for it, then builds only if sources are still newer.
 * KMC_NO_BUILD=1 turns this off (the test runner builds once, before its tests start kmc).
 */
function buildIfStale() {
  const root = new URL('../../../', import.meta.url);
  const stamp = new URL('dist/.built', root);
  const build = new URL('scripts/build.mjs', root);
  if (process.env.KMC_NO_BUILD === '1' || !import.meta.url.endsWith('/dist/checker/cli/bin.mjs') || !existsSync(build) || !existsSync(stamp)) return;
  const changed = (dir, builtAt) =>
    readdirSync(dir, { withFileTypes: true }).find((e) => {
      const path = join(dir, e.name);
      if (e.isDirectory()) return e.name !== 'fixtures' && changed(path, builtAt);
      return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && e.name !== 'testSupport.ts' && statSync(path).mtimeMs >= builtAt;
    });
  const stale = () => {
    const builtAt = statSync(stamp).mtimeMs;
    return ['spec', 'checker', 'invariants', 'traces'].map((d) => fileURLToPath(new URL(d, root))).some((d) => existsSync(d) && changed(d, builtAt));
  };
  if (!stale()) return;
  const lock = fileURLToPath(new URL('dist/.building', root));
  while (!takeLock(lock)) {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    if (!existsSync(lock) && !stale()) return;
  }
  let failed = false;
  try {
    if (!stale()) return;
    process.stderr.write('kmc: sources changed since the last build; building (npm run build)\n');
    failed = spawnSync(process.execPath, [fileURLToPath(build)], { cwd: fileURLToPath(root), stdio: ['ignore', 2, 2] }).status !== 0;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
  if (failed) {
    process.stderr.write('error: the build of the changed sources failed (above): fix them and run the command again; kmc runs compiled, and dist/ holds the sources as they were.\n');
    process.exit(2);
  }
}

/** Takes the build lock (a folder: making one is atomic); one left by a build that died 10 minutes ago is taken over. */
function takeLock(lock) {
  try {
    mkdirSync(lock);
    return true;
  } catch (e) {
    if (e.code !== 'EEXIST') throw e;
  }
  try {
    if (Date.now() - statSync(lock).mtimeMs > 10 * 60_000) rmSync(lock, { recursive: true, force: true });
  } catch {
    // released meanwhile
  }
  return false;
}
