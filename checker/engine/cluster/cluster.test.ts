import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn } from 'node:child_process';
import { clusterForFile, clusterTiers, comparable, startNats, startWorkers, stopProcess } from './testCluster.ts';

process.env.FORCE_COLOR = '0';
const { kmcInProcess } = await import('../../cli/testSupport.ts');
const bin = join(fileURLToPath(new URL('../../..', import.meta.url)), 'dist/checker/cli/bin.mjs');
/** The slow tier runs the three-server test and a run stopped and resumed; the fast tier the rest. */
const { skip, fast, slow } = clusterTiers(process.env.KMC_SLOW, 'three NATS servers electing a leader, or a run stopped and resumed, take seconds: set KMC_SLOW=1 (npm run test:slow)');

const url = clusterForFile(bin, 3, skip);

const cases = [
  ['twophase', '--preset', 'rm3-commit-early'],
  ['kraft', '--preset', 'kraft-16281'],
  ['replication', '--preset', 'lrs-pre-elr'],
  ['replication', '--preset', 'diverging-logs'],
  // A step property (everyStep), broken by a step back to a state reached before.
  [join(fileURLToPath(new URL('../../..', import.meta.url)), 'test/fixtures/epochSteps.ts'), '--param', 'packed=true', '--param', 'top=30', '--param', 'wrap=40'],
];

test('kmc check --cluster with 1, 2 and 3 worker processes: the report of one process, counterexample included (npm test: each model with one of them in turn; KMC_SLOW=1: each with all three)', { skip, timeout: 300_000 }, async () => {
  for (const [k, c] of cases.entries()) {
    const one = await kmcInProcess('check', ...c, '--json', '--workers', '1');
    assert.ok([0, 1].includes(one.code), one.stderr);
    for (const owners of process.env.KMC_SLOW ? [1, 2, 3] : [(k % 3) + 1]) {
      const r = await kmcInProcess('check', ...c, '--json', '--owners', String(owners), '--cluster', url());
      assert.equal(r.code, one.code, `${c.join(' ')} with ${owners} owners: ${r.stderr}`);
      assert.equal((JSON.parse(r.stdout) as { owners: number }).owners, owners);
      assert.deepEqual(comparable(r.stdout), comparable(one.stdout), `${c.join(' ')} with ${owners} owners`);
    }
  }
});

test('on a cluster of three NATS servers, workers on different servers: the same report', { skip: slow, timeout: 120_000 }, async () => {
  const three = await startNats(3);
  const spread = three.urls.map((u) => startWorkers(bin, u, 1)[0]!);
  try {
    const one = await kmcInProcess('check', 'kraft', '--preset', 'kraft-16281', '--json', '--workers', '1');
    const r = await kmcInProcess('check', 'kraft', '--preset', 'kraft-16281', '--json', '--owners', '3', '--cluster', three.urls[1]!);
    assert.equal(r.code, 1, r.stderr);
    assert.deepEqual(comparable(r.stdout), comparable(one.stdout));
  } finally {
    await Promise.all(spread.map((w) => stopProcess(w)));
    await three.stop();
  }
});

test('a cluster that cannot run the search: exit 5 and a paragraph saying why and what to do', { skip: fast, timeout: 60_000 }, async () => {
  // Offers go to idle workers only (a busy one leaves their queue group): the three are found at once.
  const tooMany = await kmcInProcess('check', 'twophase', '--owners', '5', '--cluster', url(), '--cluster-wait', '2');
  assert.equal(tooMany.code, 5);
  assert.match(tooMany.stderr, /only 3 of 5 workers joined the run at nats:\/\/127\.0\.0\.1:\d+ within 2 s\. Start 2 more with: kmc worker nats:/);
  const nobody = await kmcInProcess('check', 'twophase', '--owners', '2', '--cluster', 'nats://127.0.0.1:1');
  assert.equal(nobody.code, 5);
  assert.match(nobody.stderr, /cannot reach a NATS server at nats:\/\/127\.0\.0\.1:1/);
  const noOwners = await kmcInProcess('check', 'twophase', '--cluster', url());
  assert.equal(noOwners.code, 2);
  assert.match(noOwners.stderr, /--cluster nats:\/\/127\.0\.0\.1:\d+ needs --owners N/);
  const badUrl = await kmcInProcess('check', 'twophase', '--owners', '2', '--cluster', 'http://x');
  assert.equal(badUrl.code, 2);
  assert.match(badUrl.stderr, /--cluster takes the address of a NATS server/);
  const immutable = await kmcInProcess('check', 'twophase', '--param', 'rm=3', '--owners', '2');
  assert.equal(immutable.code, 0, immutable.stderr);
});

test('a worker that cannot write its TMPDIR cannot own a part: exit 5 naming the worker, the folder and what to set', { skip: fast, timeout: 60_000 }, async () => {
  const own = await startNats(1);
  const worker = spawn(process.execPath, [bin, 'worker', own.urls[0]!, '--quiet'], { stdio: 'ignore', env: { ...process.env, TMPDIR: '/nonexistent-kmc-records' } });
  try {
    const r = await kmcInProcess('check', 'twophase', '--owners', '1', '--cluster', own.urls[0]!, '--cluster-wait', '20');
    assert.equal(r.code, 5, r.stderr);
    assert.match(r.stderr, /a worker could not join the run: cannot own a part on \S+: cannot keep a search's records in \/nonexistent-kmc-records: ENOENT.*\(set TMPDIR to a directory this process can write\)/);
  } finally {
    await stopProcess(worker);
    await own.stop();
  }
});

test('a worker whose spec never finishes loading gives the part back after --cluster-wait: exit 5 saying so, and the worker takes the next run', { skip: slow, timeout: 60_000 }, async () => {
  const own = await startNats(1);
  const worker = spawn(process.execPath, [bin, 'worker', own.urls[0]!, '--quiet'], { stdio: 'ignore', env: { ...process.env, KMC_FIXTURE_HANGS: '1' } });
  const hangs = fileURLToPath(new URL('../../../test/fixtures/hangsInWorkers.ts', import.meta.url));
  try {
    // It once left the driver saying "only 0 of 1 workers joined" and stayed out of every run after.
    const search = await kmcInProcess('check', hangs, '--owners', '1', '--cluster', own.urls[0]!, '--cluster-wait', '2');
    assert.equal(search.code, 5, search.stderr);
    assert.match(search.stderr, /a worker could not join the run: cannot load the spec \S+hangsInWorkers\.ts: it did not load within 2 s on \S+ \(--cluster-wait\)\. A worker loads/);
    const swarm = await kmcInProcess('simulate', hangs, '--runs', '4', '--cluster', own.urls[0]!, '--cluster-wait', '2');
    assert.equal(swarm.code, 5, swarm.stderr);
    assert.match(swarm.stderr, /a worker could not join the swarm\S*: it was not ready within 2 s on \S+ \(--cluster-wait\): what its units need first, such as the spec, did not finish loading/);
    const next = await kmcInProcess('check', 'twophase', '--owners', '1', '--cluster', own.urls[0]!, '--cluster-wait', '20', '--json');
    assert.equal(next.code, 0, next.stderr);
    assert.equal((JSON.parse(next.stdout) as { distinct: number }).distinct, 288);
  } finally {
    await stopProcess(worker);
    await own.stop();
  }
});

test('kmc simulate --cluster: each walk has the seed, runs and counts it has in a swarm of threads; the violation first in the order (run, walk) is reported, replays alone from its seed, and the report is that of the threads', { skip: fast, timeout: 120_000 }, async () => {
  const args = ['simulate', 'replication', '--preset', 'elr', '--seed', '7', '--runs', '40', '--workers', '2', '--json'];
  const threads = JSON.parse((await kmcInProcess(...args)).stdout) as { status: string; workers: unknown[] };
  const onCluster = await kmcInProcess(...args, '--cluster', url());
  assert.equal(onCluster.code, 0, onCluster.stderr);
  const c = JSON.parse(onCluster.stdout) as { status: string; workers: unknown[] };
  assert.deepEqual([c.status, c.workers], [threads.status, threads.workers]);

  const found = await kmcInProcess('simulate', 'replication', '--preset', 'lrs-pre-elr', '--seed', '7', '--runs', '200', '--workers', '4', '--json', '--cluster', url());
  assert.equal(found.code, 1, found.stderr);
  const f = JSON.parse(found.stdout) as { property: string; seed: string; trace: { states: unknown[] }; workers: { seed: string; runs: number; status: string }[] };
  assert.equal(f.property, 'IsrHoldsCommitted');
  assert.equal(f.workers.length, 4);
  const shown = f.workers.find((w) => w.seed === f.seed)!;
  const alone = JSON.parse((await kmcInProcess('simulate', 'replication', '--preset', 'lrs-pre-elr', '--seed', f.seed, '--runs', String(shown.runs), '--json')).stdout) as typeof f;
  assert.deepEqual([alone.property, alone.trace.states], [f.property, f.trace.states]);

  // The finding first in the order (run, walk), and every walk cut back to its bound: the swarm of threads'
  // report, figure for figure, whichever worker process ran which walk when.
  const pair = ['simulate', 'replication', '--preset', 'lrs-pre-elr', '--seed', '7', '--runs', '200', '--workers', '2', '--json'];
  const same = (r: { stdout: string }) => {
    const { seconds: _, ...report } = JSON.parse(r.stdout) as { seconds: number; workers: { seconds?: number }[] };
    return { ...report, workers: report.workers.map(({ seconds: _s, ...w }) => w) };
  };
  const inThreads = same(await kmcInProcess(...pair));
  for (let k = 0; k < 2; k++) assert.deepEqual(same(await kmcInProcess(...pair, '--cluster', url())), inThreads);
});

test('kmc simulate --cluster: a walk that finds a violation before --time-limit keeps it, though its trace is built past the limit', { skip: slow, timeout: 60_000 }, async () => {
  // Walks of 12 steps of 250 ms (the first made twice, to find a spec that is not deterministic) reach a
  // leaf (a deadlock) at 3.25 s, 0.75 s before the limit; its worker tells the driver at once, so the
  // launcher gives it time to build the trace instead of ending the driver 2 s past the limit.
  const slowTree = fileURLToPath(new URL('../../../test/fixtures/slowSpec.ts', import.meta.url));
  const args = ['simulate', slowTree, '--param', 'levels=12', '--param', 'spinMs=250', '--param', 'fanout=1', '--runs', '2', '--workers', '1', '--time-limit', '4', '--json', '--cluster', url()];
  const r = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
    const p = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'ignore'] });
    let stdout = '';
    p.stdout!.on('data', (d) => (stdout += d));
    p.on('close', (code) => resolve({ code, stdout }));
  });
  assert.equal(r.code, 1, r.stdout);
  const report = JSON.parse(r.stdout) as { status: string; property: string; traceLength: number; shrinkStoppedBy: string; seconds: number };
  assert.deepEqual([report.status, report.property, report.traceLength, report.shrinkStoppedBy], ['violation', 'Deadlock', 13, 'timeLimit']);
  assert.ok(report.seconds > 6, `the trace came ${report.seconds.toFixed(1)} s after the start: the test no longer passes the old grace`);
});

test('--time-limit stops a cluster run at once with the counts of its last level and keeps it; --resume-run ends it with the report of one process', { skip: slow, timeout: 120_000 }, async () => {
  // TwoPhase with 8 resource managers, 10 s or more on two worker processes: with 7 (2.3 s here) a machine
  // 1.6 times as fast would finish within the limit, and the run would not be kept.
  const model = ['check', 'twophase', '--param', 'rm=8', '--json'];
  const one = await kmcInProcess(...model, '--workers', '1');
  const stopped = await kmcInProcess(...model, '--owners', '2', '--cluster', url(), '--time-limit', '1.5');
  assert.equal(stopped.code, 4, stopped.stderr);
  const s = JSON.parse(stopped.stdout) as { reason: string; distinct: number; seconds: number };
  assert.equal(s.reason, 'timeLimit');
  assert.ok(s.distinct > 0 && s.distinct < 1_745_408 && s.seconds < 4, `${s.distinct} states in ${s.seconds} s`);
  const run = /go on with --resume-run ([0-9a-f]{12})/.exec(stopped.stderr)?.[1];
  assert.ok(run, stopped.stderr);
  const resumed = await kmcInProcess(...model, '--owners', '2', '--cluster', url(), '--resume-run', run);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.deepEqual(comparable(resumed.stdout), comparable(one.stdout));
});
