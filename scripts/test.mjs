// Builds dist/ (incremental), then runs every *.test.ts file in the project with Node's own test runner:
// the test files and their helpers compiled by esbuild (scripts/testTypeScript.mjs), the kmc modules they
// import from the compiled dist/ (as scripts/distFirst.mjs resolves them), the CLI's spawns from dist/ too.
// Each test runs as its runnable copy (out/test-run/, compileRunnable): its imports already name those
// files, so its process needs no module hooks (a thread of their own, and a round trip to it for every
// module: about 0.25 s of CPU a file). `node --import ./scripts/testTypeScriptLoader.mjs --import
// ./scripts/distFirst.mjs x.test.ts` runs one test file from its source the same way.
//
// Each file runs in its own process, two at a time (this machine's cores; KMC_TEST_JOBS to change it),
// the files that took longest last time first, so no long file starts last and runs alone. Each file's
// output is printed whole when it finishes; at the end, the slowest files, the sum of every file's time
// (on a loaded machine the sum says more than the wall clock) and each failing file's failures again.
// `node scripts/test.mjs cli render` runs the files whose path contains one of the words.
//
// Two tiers. `npm test` is the fast one: every test file, with the tests that repeat a large exhaustive
// search skipped (each says so: "set KMC_SLOW=1"). `npm run test:slow` (`--slow`) is the other: it sets
// KMC_SLOW=1 and runs only the files that have such tests, so those searches and their pins run too.
// CI (.ci/run) runs both.
import { existsSync, mkdirSync, mkdtempSync, rmSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { compileRunnable, compileStale, runnablePath } from './testTypeScript.mjs';

const root = new URL('..', import.meta.url).pathname;
const skip = new Set(['node_modules', '.git', 'out', '.kmc', 'dist']);
const slowTier = process.argv.includes('--slow');
const only = process.argv.slice(2).filter((a) => a !== '--slow');
const durationsFile = join(root, 'out', slowTier ? 'test-durations-slow.json' : 'test-durations.json');
const jobs = Number(process.env.KMC_TEST_JOBS) || Math.min(2, availableParallelism());
// A file still running after this many seconds is stopped, with every process it started, and fails: a test
// that hangs (a loop, a worker left running, a failing assert.ok Node could not word) ends the run instead of
// holding CI until its own limit. The slowest files take about 20 s (fast tier) and 150 s (slow tier).
const fileTimeoutSeconds = Number(process.env.KMC_TEST_FILE_TIMEOUT) || (slowTier ? 900 : 300);
/** The process groups of the files running now: stopped with the runner. */
const running = new Set();
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const pid of running) stopGroup(pid);
    process.exit(130);
  });
}

// GNU time, where present, reports the CPU seconds of a file's process and every process it waited for
// (its CLI spawns): a measure the other load on the machine does not inflate as it does the wall clock.
const gnuTime = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
const cpuDir = mkdtempSync(join(tmpdir(), 'kmc-test-cpu-'));

function find(dir) {
  const found = [];
  for (const name of readdirSync(dir)) {
    if (skip.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...find(path));
    else if (name.endsWith('.test.ts')) found.push(relative(root, path));
  }
  return found;
}

const built = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { cwd: root, stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);
// Compiled once here, so no test process compiles a file another is compiling too.
await compileStale();
// The kmc processes the tests start run this build: a source saved while they run is not built under them.
process.env.KMC_NO_BUILD = '1';
const previous = existsSync(durationsFile) ? JSON.parse(readFileSync(durationsFile, 'utf8')) : {};
if (slowTier) process.env.KMC_SLOW = '1';
const files = find(root)
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .filter((f) => !slowTier || readFileSync(join(root, f), 'utf8').includes('process.env.KMC_SLOW'))
  .sort()
  .sort((a, b) => (previous[b] ?? Infinity) - (previous[a] ?? Infinity));
// The copies the test processes run, made where missing or stale, and those of the modules they import.
await compileRunnable(files.map((f) => join(root, f)));

const started = performance.now();
const results = await runAll(files);
const wall = (performance.now() - started) / 1000;

rmSync(cpuDir, { recursive: true, force: true });
const failed = results.filter((r) => r.code !== 0);
const count = (k) => results.reduce((n, r) => n + r.counts[k], 0);
const sum = results.reduce((n, r) => n + r.seconds, 0);
const cpu = results.reduce((n, r) => n + r.cpu, 0);
const slowest = [...results].sort((a, b) => b.seconds - a.seconds).slice(0, 12);
if (only.length === 0 && failed.length === 0) {
  mkdirSync(dirname(durationsFile), { recursive: true });
  writeFileSync(durationsFile, `${JSON.stringify(Object.fromEntries(results.map((r) => [r.file, Math.round(r.seconds * 10) / 10])), null, 2)}\n`);
}
const out = [
  '',
  `Slowest test files (seconds each took, ${jobs} at a time):`,
  ...slowest.map((r) => `  ${r.seconds.toFixed(1).padStart(6)} s ${Number.isNaN(r.cpu) ? '' : `(${r.cpu.toFixed(1).padStart(5)} s CPU)`}  ${r.file}`),
  '',
  `${results.length} files, ${count('tests')} tests: ${count('pass')} passed, ${count('fail')} failed, ${count('skipped')} skipped, ${count('todo')} todo.`,
  `Wall clock ${wall.toFixed(1)} s; the files' times sum to ${sum.toFixed(1)} s${Number.isNaN(cpu) ? '' : ` (${cpu.toFixed(1)} s of CPU)`}.`,
];
if (failed.length > 0) {
  // Each failing file's failures again, last: a CI log is often read from its tail.
  for (const r of failed) out.push('', `── failures of ${r.file}`, failuresOf(r.text));
  out.push('', `FAILED (${failed.length} files):`, ...failed.map((r) => `  ${r.file} (exit ${r.code})`));
}
process.stdout.write(`${out.join('\n')}\n`);
process.exit(failed.length > 0 ? 1 : 0);

async function runAll(queue) {
  const done = [];
  const pending = [...queue];
  const lane = async () => {
    for (let file = pending.shift(); file !== undefined; file = pending.shift()) done.push(await runFile(file));
  };
  await Promise.all(Array.from({ length: Math.min(jobs, queue.length) }, lane));
  return done;
}

function runFile(file) {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const cpuFile = join(cpuDir, file.replace(/[/\\]/g, '_'));
    const node = [process.execPath, '--enable-source-maps', '--test-reporter=spec', runnablePath(join(root, file))];
    const [cmd, ...args] = gnuTime ? [gnuTime, '-f', '%U %S', '-o', cpuFile, ...node] : node;
    // A process group of its own, so a file that hangs is stopped with the kmc processes it spawned.
    const child = spawn(cmd, args, {
      cwd: root,
      env: { ...process.env, FORCE_COLOR: process.stdout.isTTY ? '1' : '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    running.add(child.pid);
    let text = '';
    child.stdout.on('data', (d) => (text += d));
    child.stderr.on('data', (d) => (text += d));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      stopGroup(child.pid);
    }, fileTimeoutSeconds * 1000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      running.delete(child.pid);
      if (timedOut) text += `\n✖ failing tests:\n✖ ${file} was stopped after ${fileTimeoutSeconds} s (KMC_TEST_FILE_TIMEOUT): a test in it hangs\n`;
      const seconds = (performance.now() - t0) / 1000;
      const cpu = existsSync(cpuFile) ? readFileSync(cpuFile, 'utf8').trim().split('\n').pop().split(' ').reduce((n, x) => n + Number(x), 0) : NaN;
      process.stdout.write(`\n── ${file} (${seconds.toFixed(1)} s${Number.isNaN(cpu) ? '' : `, ${cpu.toFixed(1)} s CPU`})\n${text}`);
      const counts = countsOf(text);
      if (timedOut) counts.fail++;
      resolve({ file, code: timedOut ? 1 : (code ?? (signal ? 1 : 0)), seconds, cpu, counts, text });
    });
  });
}

function stopGroup(pid) {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** The spec reporter's closing lines: ℹ tests 12, ℹ pass 12, … */
function countsOf(text) {
  const plain = withoutColours(text);
  const n = (k) => Number(new RegExp(`^ℹ ${k} (\\d+)$`, 'm').exec(plain)?.[1] ?? 0);
  return { tests: n('tests'), pass: n('pass'), fail: n('fail'), skipped: n('skipped'), todo: n('todo') };
}

/** The spec reporter's closing "failing tests" section (each failure with its error), else the file's last lines. */
function failuresOf(text) {
  const plain = withoutColours(text);
  const at = plain.lastIndexOf('✖ failing tests:');
  const section = at >= 0 ? plain.slice(at) : plain.split('\n').slice(-40).join('\n');
  const lines = section.trimEnd().split('\n');
  return (lines.length > 120 ? [...lines.slice(0, 120), `… (${lines.length - 120} more lines: see this file's output above)`] : lines).join('\n');
}

function withoutColours(text) {
  return text.replace(/\x1b\[[0-9;]*m/g, '');
}
