/**
 * A spec whose action never returns (test/fixtures/hangingSpec.ts: a `while (true)` after 600,000 states)
 * cannot stop itself: the launcher ends it. Time limits, budgets and signals, sent to kmc or through npx,
 * end every run within the grace period with the stats so far and exit 4, and leave no process behind.
 */
import { beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'dist/checker/cli/bin.mjs');
const spec = join(root, 'test/fixtures/hangingSpec.ts');
const linux = process.platform === 'linux';
const { KMC_HEAP_SET: _, KMC_LAUNCHER_PID: __, ...parentEnv } = process.env;
const marker = join(mkdtempSync(join(tmpdir(), 'kmc-hang-')), 'hanging');
const env = { ...parentEnv, NO_COLOR: '1', KMC_HANG_MARKER: marker };
// Under a limit the hang must come before the limit on a slow machine, yet after the first progress report.
const hangSooner = { ...env, KMC_HANG_AT: '500000' };
// kmc ci's budget message needs no progress report: the hang comes at once.
const hangAtOnce = { ...env, KMC_HANG_AT: '50000' };
const slow = !process.env.KMC_SLOW;

interface Ended {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly seconds: number;
}

function ended(p: ChildProcess): Promise<Ended> {
  const started = performance.now();
  let stdout = '';
  let stderr = '';
  p.stdout!.on('data', (d) => (stdout += d));
  p.stderr!.on('data', (d) => (stderr += d));
  return new Promise((resolve) => p.on('close', (code) => resolve({ code, stdout, stderr, seconds: (performance.now() - started) / 1000 })));
}

/** Every process whose command line runs the hanging spec (none may be left). */
function searches(): number[] {
  const out: number[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number)) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('hangingSpec')) out.push(pid);
    } catch {
      // gone
    }
  }
  return out;
}

async function noneLeft(): Promise<void> {
  for (let i = 0; i < 40 && searches().length > 0; i++) await sleep(100);
  const left = searches();
  for (const pid of left) process.kill(pid, 'SIGKILL');
  assert.deepEqual(left, [], 'no kmc process is left');
}

beforeEach(() => rmSync(marker, { force: true }));

/** Waits until the search is stuck in the spec's loop: the fixture writes the marker as it enters it. */
async function stuck(): Promise<void> {
  for (let i = 0; i < 300 && !existsSync(marker); i++) await sleep(100);
  assert.ok(existsSync(marker), 'the search reached the hanging action within 30 s');
  rmSync(marker);
  await sleep(200);
}

test('--time-limit ends a search whose spec code never returns: the stats so far, exit 4, within the grace period', { skip: !linux || slow, timeout: 60_000 }, async () => {
  const r = await ended(spawn(process.execPath, [bin, 'check', spec, '--no-deadlock', '--time-limit', '5'], { env: hangSooner }));
  assert.equal(r.code, 4, r.stderr);
  assert.match(r.stdout, /^Incomplete: stopped by --time-limit, but the search did not return within 2 s of it \(a step of the spec, or kmc's own work, held it\); the search was ended from outside\. Stats so far: [\d,]+ distinct states, [\d,]+ generated, depth \d+, [\d.]+ s\.$/m);
  assert.ok(r.seconds < 10, `ended after ${r.seconds} s`);
  const json = await ended(spawn(process.execPath, [bin, 'check', spec, '--no-deadlock', '--time-limit', '5', '--json'], { env: hangSooner }));
  assert.equal(json.code, 4);
  const report = JSON.parse(json.stdout);
  assert.deepEqual([report.status, report.reason], ['incomplete', 'timeLimit']);
  assert.ok(report.distinct > 0, 'the stats so far');
  await noneLeft();
});

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`${signal} to kmc while the spec's code never returns: the stats so far, exit 4, named ${signal}`, { skip: !linux || slow, timeout: 60_000 }, async () => {
    const kmc = spawn(process.execPath, [bin, 'check', spec, '--no-deadlock'], { env });
    const done = ended(kmc);
    await stuck();
    const signalled = performance.now();
    kmc.kill(signal);
    const r = await done;
    const afterSignal = (performance.now() - signalled) / 1000;
    assert.equal(r.code, 4, r.stderr);
    assert.match(r.stdout, new RegExp(`^Incomplete: stopped by ${signal}, but the search did not return within 2 s \\(a step of the spec, or kmc's own work, held it\\); the search was ended from outside\\. Stats so far: [\\d,]+ distinct states`, 'm'));
    assert.ok(afterSignal < 4, `ended ${afterSignal} s after the signal`);
    await noneLeft();
  });
}

// A tree of slow steps whose one leaf, a deadlock, is found before the time limit: the counterexample is then
// rebuilt by running each step twice again (3.6 s for 12 steps of 150 ms), which ends past limit + 2 s.
const slowTree = join(root, 'test/fixtures/slowSpec.ts');
const slowLeaf = (spinMs: number) => [bin, 'check', slowTree, '--param', 'levels=12', '--param', `spinMs=${spinMs}`, '--param', 'fanout=1'];

test('a verdict found before --time-limit keeps its counterexample, however long the spec takes to rebuild it: exit 1 with the trace', { skip: !linux || slow, timeout: 60_000 }, async () => {
  const r = await ended(spawn(process.execPath, [...slowLeaf(150), '--time-limit', '2.5', '--json'], { env }));
  // Once the watchdog ended it 2 s past the limit, as a search that never returns: exit 4, the verdict lost.
  assert.equal(r.code, 1, r.stdout + r.stderr);
  const report = JSON.parse(r.stdout) as { status: string; property: string; trace: { states: unknown[] } };
  assert.deepEqual([report.status, report.property, report.trace.states.length], ['violation', 'Deadlock', 13]);
  assert.ok(r.seconds > 4.5, `the trace was rebuilt by ${r.seconds.toFixed(1)} s: the test no longer passes the old grace`);
});

test('a signal while the counterexample is rebuilt: the launcher reports the verdict without its trace, exit 1', { skip: !linux || slow, timeout: 60_000 }, async () => {
  // 12 steps of 300 ms: the deadlock is found at about 4 s, its trace would take 7 s more.
  const kmc = spawn(process.execPath, slowLeaf(300), { env });
  const done = ended(kmc);
  await sleep(7500);
  kmc.kill('SIGINT');
  const r = await done;
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /^Deadlock\. Stopped by SIGINT, but the search did not return within 2 s \(a step of the spec, or kmc's own work, held it\); the search was ended from outside while it rebuilt the counterexample, so no trace is shown\.$/m);
});

test('kmc ci: a violation found within the budget passes the gate, though its counterexample takes past the budget to rebuild, on one lane and on the second of two', { skip: !linux || slow, timeout: 90_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kmc-watchdog-'));
  try {
    const suite = join(dir, 'suite.yaml');
    const slowCheck = `  - spec: ${slowTree}\n    params: { levels: 12, spinMs: 150, fanout: 1 }\n    expect: { violates: Deadlock }\n    budget: { timeSeconds: 2.5 }\n`;
    // Once ended 2 s past the budget: by the launcher on one lane (exit 4), by the lane on the second (a spec error).
    writeFileSync(suite, `version: 1\nchecks:\n${slowCheck}`);
    const one = await ended(spawn(process.execPath, [bin, 'ci', suite, '--jobs', '1'], { env, cwd: dir }));
    assert.equal(one.code, 0, one.stdout + one.stderr);
    assert.match(one.stdout, /^ok +slowSpec\S+ +violates Deadlock +violates Deadlock +13 +13 /m);
    // TwoPhase with 7 resource managers keeps the first lane busy, so the second takes the slow check.
    writeFileSync(suite, `version: 1\nchecks:\n  - spec: twophase\n    params: { rm: 7 }\n    expect: holds\n${slowCheck}`);
    const two = await ended(spawn(process.execPath, [bin, 'ci', suite, '--jobs', '2'], { env, cwd: dir }));
    assert.equal(two.code, 0, two.stdout + two.stderr);
    assert.match(two.stdout, /^ok +slowSpec\S+ +violates Deadlock +violates Deadlock +13 +13 /m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('kmc ci ends a check that runs past its time budget on its lane and reports every other check, on one lane or two', { skip: !linux || slow, timeout: 90_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kmc-watchdog-'));
  try {
    const suite = join(dir, 'suite.yaml');
    // A known bug first: its verdict is that check's, not the hanging one's.
    writeFileSync(suite, `version: 1\nchecks:\n  - spec: twophase\n    preset: rm3-commit-early\n    expect: { violates: TCConsistent }\n  - spec: ${spec}\n    expect: holds\n    options: { deadlock: false }\n    budget: { timeSeconds: 2 }\n`);
    // One lane: the check ran on the thread that would report it, so the launcher ended the run, with no
    // report of the known bug. Now every check runs on a worker thread, which is ended at the budget.
    const junit = join(dir, 'junit.xml');
    const one = await ended(spawn(process.execPath, [bin, 'ci', suite, '--jobs', '1', '--junit', junit], { env: hangAtOnce, cwd: dir }));
    assert.equal(one.code, 4, one.stdout + one.stderr);
    assert.match(one.stdout, /^ok +twophase\S* +violates TCConsistent +violates TCConsistent /m);
    assert.match(one.stdout, /^BUDGET +hangingSpec +holds +incomplete$/m);
    assert.match(one.stdout, /hangingSpec \(suite\.yaml:6\): ran past its time budget of 2 s by more than 2 s without returning \(a step of the spec never returned\), so its worker thread was ended/);
    const report = readFileSync(junit, 'utf8');
    assert.match(report, /<testsuite [^>]*tests="2" failures="0" errors="1"/);
    // Two checks on two lanes: the one on a worker thread is ended there, and the run reports it.
    // (TwoPhase with 7 resource managers keeps this thread busy for seconds, so a worker thread takes the second.)
    writeFileSync(suite, `version: 1\nchecks:\n  - spec: twophase\n    params: { rm: 7 }\n    expect: holds\n  - spec: ${spec}\n    expect: holds\n    options: { deadlock: false }\n    budget: { timeSeconds: 2 }\n`);
    const two = await ended(spawn(process.execPath, [bin, 'ci', suite, '--jobs', '2'], { env: hangAtOnce, cwd: dir }));
    assert.equal(two.code, 4, two.stdout + two.stderr);
    assert.match(two.stdout, /ran past its time budget of 2 s by more than 2 s without returning/);
    await noneLeft();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('through npx: SIGTERM to npx and Ctrl-C on its process group end the search; nothing is left running', { skip: !linux || slow, timeout: 90_000 }, async () => {
  // A project with kmc installed as npm links it: npx runs node_modules/.bin/kmc through a shell.
  const project = mkdtempSync(join(tmpdir(), 'kmc-npx-'));
  try {
    mkdirSync(join(project, 'node_modules/.bin'), { recursive: true });
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'npx-user', version: '1.0.0', type: 'module' }));
    symlinkSync(root, join(project, 'node_modules/kafka-model-checker'), 'dir');
    symlinkSync(join(root, 'node_modules/immutable'), join(project, 'node_modules/immutable'), 'dir');
    symlinkSync('../kafka-model-checker/dist/checker/cli/bin.mjs', join(project, 'node_modules/.bin/kmc'));
    writeFileSync(join(project, 'hangingSpec.ts'), readFileSync(spec, 'utf8').replace("'../../spec/spec.ts'", "'kafka-model-checker'"));
    assert.ok(existsSync(join(project, 'node_modules/.bin/kmc')), 'node_modules/.bin/kmc leads to the built dist/checker/cli/bin.mjs');

    const term = spawn('npx', ['kmc', 'check', './hangingSpec.ts', '--no-deadlock'], { env, cwd: project });
    const termDone = ended(term);
    await stuck();
    term.kill('SIGTERM');
    await termDone;
    await noneLeft();

    // Ctrl-C in a terminal signals the whole foreground process group.
    const group = spawn('npx', ['kmc', 'check', './hangingSpec.ts', '--no-deadlock'], { env, cwd: project, detached: true });
    const groupDone = ended(group);
    await stuck();
    process.kill(-group.pid!, 'SIGINT');
    const r = await groupDone;
    // Stopped by the search itself if the signal came before the hang, else by the watchdog.
    assert.match(r.stdout, /^Incomplete: stopped by SIGINT/m);
    await noneLeft();
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
});
