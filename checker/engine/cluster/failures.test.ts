/**
 * A search on a cluster survives its failures with the counts of one process: a worker killed mid-level,
 * the NATS server restarted mid-run, the driver killed and the run resumed with fewer workers. Each run
 * is TwoPhase with 8 resource managers (1,745,408 states, about 25 s on a cluster of this machine), long
 * enough to be killed in the middle; the slow tier runs them (KMC_SLOW=1).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { comparable, natsServerPath, type NatsServers, startNats, startWorkers, stopProcess } from './testCluster.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const bin = join(root, 'dist/checker/cli/bin.mjs');
const slow = process.env.KMC_SLOW ? false : 'a large search killed in the middle: set KMC_SLOW=1 (npm run test:slow)';
const skip = slow || (natsServerPath() === null ? 'nats-server is not installed (.ci/run installs it from Debian)' : false);
const MODEL = ['twophase', '--param', 'rm=8'];

let expected: Record<string, unknown>;
before(() => {
  if (skip) return;
  const r = spawnSync(process.execPath, [bin, 'check', ...MODEL, '--json', '--workers', '1'], { encoding: 'utf8' });
  expected = comparable(r.stdout);
});

interface Driver {
  readonly process: ChildProcess;
  /** The run's id, once the driver printed it. */
  readonly run: Promise<string>;
  readonly done: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

function driver(url: string, ...more: string[]): Driver {
  return driverOf(MODEL, url, ...more);
}

function driverOf(model: readonly string[], url: string, ...more: string[]): Driver {
  const p = spawn(process.execPath, [bin, 'check', ...model, '--json', '--cluster', url, '--worker-timeout', '3', '--cluster-wait', '5', ...more], { stdio: ['ignore', 'pipe', 'pipe'] });
  spawned.push(p);
  let stdout = '';
  let stderr = '';
  let started: (run: string) => void = () => {};
  const run = new Promise<string>((resolve) => (started = resolve));
  p.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  p.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
    if (process.env.KMC_DEBUG_DRIVER) process.stderr.write(d);
    const m = /run ([0-9a-f]{12}) on/.exec(stderr);
    if (m) started(m[1]!);
  });
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => p.on('exit', (code) => resolve({ code, stdout, stderr })));
  return { process: p, run, done };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let servers: NatsServers;
let workers: ChildProcess[] = [];
/** Every driver and worker started: a test that times out leaves its own running, and the file must still end. */
const spawned: ChildProcess[] = [];
const workersAt = (url: string, n: number): ChildProcess[] => {
  const started = startWorkers(bin, url, n);
  spawned.push(...started);
  return started;
};
before(async () => {
  if (skip) return;
  servers = await startNats(1);
});
after(async () => {
  if (skip) return;
  await Promise.all(spawned.map((p) => stopProcess(p, 'SIGKILL')));
  await servers.stop();
});

test('a worker killed (SIGKILL) in the middle of a level: its part goes to a survivor, every owner rolls back to the last commit, the counts are those of one process', { skip, timeout: 180_000 }, async () => {
  workers = workersAt(servers.urls[0]!, 3);
  const d = driver(servers.urls[0]!, '--owners', '3');
  await d.run;
  await sleep(4000);
  await stopProcess(workers[1]!, 'SIGKILL');
  const r = await d.done;
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(comparable(r.stdout), expected);
  assert.match(r.stderr, /1 worker lost, rolling back to depth \d+/);
  assert.match(r.stderr, /back at depth \d+ \([\d,]+ states\) after [\d.]+ s/);
  await Promise.all(workers.map((w) => stopProcess(w)));
});

test('the NATS server restarted in the middle of a run: the stream and checkpoints are on its disk, the run rolls back and ends with the counts of one process', { skip, timeout: 180_000 }, async () => {
  workers = workersAt(servers.urls[0]!, 2);
  const d = driver(servers.urls[0]!, '--owners', '2');
  await d.run;
  await sleep(4000);
  await servers.restart();
  const r = await d.done;
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(comparable(r.stdout), expected);
  assert.match(r.stderr, /rolling back to depth \d+/);
  // One roll-back: a batch whose store was unanswered when the server went away fails only after the
  // client's wait (5 s), in the attempt after the roll-back, and must not fail that attempt too.
  const rollBacks = r.stderr.match(/rolling back/g)?.length ?? 0;
  assert.equal(rollBacks, 1, `${rollBacks} roll-backs for one restart:\n${r.stderr}`);
  await Promise.all(workers.map((w) => stopProcess(w)));
});

test('the driver killed (SIGKILL) in the middle of a run: --resume-run goes on from its last commit with fewer workers, to the counts of one process', { skip, timeout: 180_000 }, async () => {
  workers = workersAt(servers.urls[0]!, 2);
  const d = driver(servers.urls[0]!, '--owners', '2');
  const run = await d.run;
  await sleep(5000);
  d.process.kill('SIGKILL');
  await d.done;
  // One of the two workers leaves; the other owns both parts of the resumed run.
  await stopProcess(workers[0]!);
  const resumed = driver(servers.urls[0]!, '--owners', '1', '--resume-run', run);
  const r = await resumed.done;
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(comparable(r.stdout), expected);
  assert.match(r.stderr, new RegExp(`resuming run ${run} from its commit at depth \\d+ \\([\\d,]+ states\\)`));
  assert.match(r.stderr, /part \d of run [0-9a-f]+ is owned by worker .*, which owns another part too/);
  await Promise.all(workers.map((w) => stopProcess(w)));
});

test('a run that is not there cannot be resumed: exit 5 and why', { skip, timeout: 60_000 }, async () => {
  const r = await driver(servers.urls[0]!, '--owners', '1', '--resume-run', '0123456789ab').done;
  assert.equal(r.code, 5);
  assert.match(r.stderr, /there is no run 0123456789ab at nats:\/\/127\.0\.0\.1:\d+ to resume/);
});

test('every worker gone and none joining: exit 5 saying to resume, and the run is kept for it: --resume-run ends it with the counts of one process', { skip, timeout: 240_000 }, async () => {
  workers = workersAt(servers.urls[0]!, 2);
  const d = driver(servers.urls[0]!, '--owners', '2');
  const run = await d.run;
  await sleep(4000);
  await Promise.all(workers.map((w) => stopProcess(w, 'SIGKILL')));
  const r = await d.done;
  assert.equal(r.code, 5, r.stderr);
  assert.match(r.stderr, new RegExp(`no worker is left in run ${run} .* then resume with --resume-run ${run}`));
  // Before, the run was deleted as the driver ended, and the resume it advised found nothing.
  assert.match(r.stderr, new RegExp(`run ${run} is kept on .* at its last commit \\(depth \\d+\\): go on with --resume-run ${run}`));
  workers = workersAt(servers.urls[0]!, 2);
  const resumed = await driver(servers.urls[0]!, '--owners', '2', '--resume-run', run).done;
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.deepEqual(comparable(resumed.stdout), expected);
  await Promise.all(workers.map((w) => stopProcess(w)));
});

test('a spec edited between runs: a worker that loaded it before refuses the run (a search or a swarm), and a run kept for the old rules is not resumed with the new ones', { skip, timeout: 240_000 }, async () => {
  // TwoPhase itself (A), then TwoPhase without RMChooseToAbort (B), in the same file.
  const dir = mkdtempSync(join(tmpdir(), 'kmc-edited-spec-'));
  const file = join(dir, 'twoPhaseEdited.mjs');
  const write = (withoutAbort: boolean) =>
    writeFileSync(
      file,
      `import base from '${pathToFileURL(join(root, 'dist/spec/twophase/twoPhase.js')).href}';\n` +
        `export default { ...base, build: (p) => { const m = base.build(p); return ${withoutAbort} ? { ...m, actions: m.actions.filter((a) => a.name !== 'RMChooseToAbort') } : m; } };\n`,
    );
  try {
    const url = servers.urls[0]!;
    workers = workersAt(url, 2);
    write(false);
    const small = [file, '--param', 'rm=3'];
    const a = await driverOf(small, url, '--owners', '2').done;
    assert.equal(a.code, 0, a.stderr);
    assert.equal(JSON.parse(a.stdout).distinct, 288);
    // The same workers, the file edited: each still has the first copy (a process loads a module once).
    write(true);
    const stale = await driverOf(small, url, '--owners', '2').done;
    assert.equal(stale.code, 5, stale.stderr);
    assert.match(stale.stderr, /has another spec than the driver's: it loaded .*twoPhaseEdited\.mjs before the file changed, and a process loads a module once: restart this worker/);
    await Promise.all(workers.map((w) => stopProcess(w)));
    // Restarted, the workers load the file as it is now: the counts of B.
    workers = workersAt(url, 2);
    const b = await driverOf(small, url, '--owners', '2').done;
    assert.equal(b.code, 0, b.stderr);
    assert.equal(JSON.parse(b.stdout).distinct, 251);
    // A run of B stopped by its time limit, then resumed after the file went back to A.
    const big = [file, '--param', 'rm=8'];
    const stopped = driverOf(big, url, '--owners', '2', '--time-limit', '6');
    const run = await stopped.run;
    const s = await stopped.done;
    assert.equal(s.code, 4, s.stderr);
    write(false);
    const resumed = await driverOf(big, url, '--owners', '2', '--resume-run', run).done;
    assert.equal(resumed.code, 5, resumed.stderr);
    assert.match(resumed.stderr, new RegExp(`run ${run} is a search of .*twoPhaseEdited\\.mjs as it was when the run started, and the spec has changed since \\(twoPhaseEdited\\.mjs differs\\)`));
    await Promise.all(workers.map((w) => stopProcess(w)));
    // A swarm on the same worker after another edit: it has the file as it was, and refuses the walks. (One
    // worker: of two, one that took no walk of the first swarm would load the file afresh and take them all.)
    workers = workersAt(url, 1);
    const simulate = (): Promise<{ code: number | null; stderr: string }> =>
      new Promise((resolve) => {
        const p = spawn(process.execPath, [bin, 'simulate', file, '--param', 'rm=3', '--cluster', url, '--workers', '2', '--runs', '20', '--cluster-wait', '5'], { stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        p.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
        p.on('exit', (code) => resolve({ code, stderr }));
      });
    const walked = await simulate();
    assert.equal(walked.code, 0, walked.stderr);
    write(true);
    const staleWalks = await simulate();
    assert.equal(staleWalks.code, 5, staleWalks.stderr);
    assert.match(staleWalks.stderr, /has another spec than the driver's: it loaded .*twoPhaseEdited\.mjs before the file changed, and a process loads a module once: restart this worker/);
    await Promise.all(workers.map((w) => stopProcess(w)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--cluster at a port that accepts and never answers: exit 5 once the connection times out, and the process ends', { skip, timeout: 120_000 }, async () => {
  const silent = createServer(() => {});
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const port = (silent.address() as { port: number }).port;
  try {
    const started = Date.now();
    const r = await driverOf(['twophase', '--param', 'rm=3'], `nats://127.0.0.1:${port}`, '--owners', '2').done;
    assert.equal(r.code, 5, r.stderr);
    assert.match(r.stderr, /cannot reach a NATS server at nats:\/\/127\.0\.0\.1:\d+/);
    // The client's connect times out after 20 s; the socket it left open once kept the process for ever.
    assert.ok(Date.now() - started < 40_000, `the driver ended ${((Date.now() - started) / 1000).toFixed(1)} s after it started`);
  } finally {
    silent.close();
  }
});

test('--resume-run of a run whose driver is still at work is refused at once, and that run ends undisturbed with the counts of one process', { skip, timeout: 180_000 }, async () => {
  workers = workersAt(servers.urls[0]!, 2);
  const d = driver(servers.urls[0]!, '--owners', '2');
  const run = await d.run;
  await sleep(2000);
  const second = await driver(servers.urls[0]!, '--owners', '2', '--resume-run', run).done;
  assert.equal(second.code, 5, second.stderr);
  assert.match(second.stderr, new RegExp(`run ${run} at nats://127\\.0\\.0\\.1:\\d+ is still at work: its driver is sending heartbeats`));
  // Before, the two drivers took each other's workers, both failed, and the run was deleted.
  const r = await d.done;
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(comparable(r.stdout), expected);
  assert.doesNotMatch(r.stderr, /rolling back/);
  await Promise.all(workers.map((w) => stopProcess(w)));
});
