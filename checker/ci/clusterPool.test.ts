/**
 * `kmc ci --cluster`: a suite's checks run by two `kmc worker` processes through a NATS work queue give
 * the outcomes, exit code and reports of a local run; a stop leaves the checks not started not run; a
 * cluster that cannot run them exits 5; the check of a killed worker is run again by another (slow tier).
 * Needs nats-server (skipped without it, unless KMC_REQUIRE_NATS).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from 'nats';
import { clusterForFile, clusterTiers, startNats, startWorkers, stopProcess } from '../engine/cluster/testCluster.ts';
import { ExitCode } from '../run/exitCodes.ts';
import { runCi } from './runCi.ts';
import { COUNTER, tempDir, withoutTimes, writeSuite } from './testSupport.ts';

process.env.FORCE_COLOR = '0';
const { kmcInProcess } = await import('../cli/testSupport.ts');
const bin = join(fileURLToPath(new URL('../..', import.meta.url)), 'dist/checker/cli/bin.mjs');
/** The slow tier runs the killed worker, whose check comes back only after its ack wait; the fast tier the rest. */
const { fast, slow } = clusterTiers(process.env.KMC_SLOW, "a killed worker's check comes back after its ack wait of 15 s: set KMC_SLOW=1 (npm run test:slow)");
const url = clusterForFile(bin, 2, fast);

/** A suite file of these checks, each a YAML mapping on one line. */
const suiteOf = (...checks: string[]) => writeSuite(`version: 1\nchecks:\n${checks.map((c) => `  - { ${c} }\n`).join('')}`);
/** A check of TwoPhase with `rm` resource managers, long enough at 7 or 8 to be stopped or killed in the middle. */
const twoPhase = (name: string, rm: number) => `name: ${name}, spec: twophase, params: { rm: ${rm} }, expect: holds`;

/** `kmc ci SUITE ARGS…` on this machine (one lane) and on the cluster, each writing its reports to a folder of its own. */
async function hereAndOnCluster(suite: string, ...args: string[]) {
  const run = async (...where: string[]) => {
    const dir = tempDir();
    const r = await kmcInProcess('ci', suite, '--quiet', '--junit', join(dir, 'junit.xml'), '--markdown', join(dir, 'summary.md'), '--out', join(dir, 'out'), ...args, ...where);
    return { ...r, dir };
  };
  return { here: await run('--jobs', '1'), there: await run('--cluster', url()) };
}

/** Report text with its timings and lanes blanked. */
const untimed = (text: string) => withoutTimes(text).replace(/\d+ lanes?\b/g, 'N lanes');

/** Each check's outcome as the run record keeps it, without timings. */
function outcomes(dir: string): unknown[] {
  const record = JSON.parse(readFileSync(join(dir, 'out', 'kmc-ci.json'), 'utf8')) as {
    result: { run: { outcomes: { check: { name: string }; kind: string; got: string; message: string; report?: Record<string, unknown> }[] } };
  };
  return record.result.run.outcomes.map((o) => {
    const r = o.report;
    return [o.check.name, o.kind, o.got, o.message, r?.status, r?.property, r?.distinct, r?.generated, r?.depth, r?.traceLength, r?.trace];
  });
}

/** Waits until workers hold `count` checks of the queue at `url` (delivered to them, not yet acknowledged). */
async function untilHeld(url: string, count: number): Promise<void> {
  const nc = await connect({ servers: url });
  try {
    const jsm = await nc.jetstreamManager();
    for (let held = 0; held < count; await new Promise((r) => setTimeout(r, 50))) {
      const queue = (await jsm.streams.names().next()).find((s) => s.startsWith('KMC_QUEUE_'));
      held = queue ? ((await jsm.consumers.info(queue, 'takers').catch(() => null))?.num_ack_pending ?? 0) : 0;
    }
  } finally {
    await nc.close();
  }
}

/** The same exit code, outcomes, summary and report files, but for timings, lanes and each run's own folder. */
function assertSameReports(here: { code: number; stdout: string; dir: string }, there: { code: number; stdout: string; stderr: string; dir: string }): void {
  assert.equal(there.code, here.code, there.stderr);
  assert.deepEqual(outcomes(there.dir), outcomes(here.dir));
  const texts = (r: { stdout: string; dir: string }) =>
    [r.stdout, ...['junit.xml', 'summary.md'].map((f) => readFileSync(join(r.dir, f), 'utf8'))].map((t) => untimed(t.replaceAll(basename(r.dir), 'DIR')));
  assert.deepEqual(texts(there), texts(here));
}

test('kmc ci --cluster with two worker processes: the outcomes, exit code, summary, JUnit and Markdown of a local run', { skip: fast, timeout: 60_000 }, async () => {
  const suite = suiteOf(
    'spec: twophase, preset: rm3, expect: holds',
    'spec: twophase, preset: rm5, expect: holds',
    'spec: twophase, preset: rm3-commit-early, expect: { violates: TCConsistent }',
    `spec: ${COUNTER}, preset: c3, expect: holds`,
  );
  const { here, there } = await hereAndOnCluster(suite);
  assert.equal(here.code, ExitCode.Holds, here.stderr);
  assertSameReports(here, there);
  assert.match(there.stdout, /kmc ci: passed — all 4 checks passed \([\d.]+ s, [12] lanes?\)/);
});

test('a check that fails on the cluster: exit 1 and the counterexample of a local run', { skip: fast, timeout: 60_000 }, async () => {
  const suite = suiteOf('spec: twophase, preset: rm3-commit-early, expect: holds', 'spec: twophase, preset: rm3, expect: holds');
  const { here, there } = await hereAndOnCluster(suite);
  assert.equal(here.code, ExitCode.Violation, here.stderr);
  assertSameReports(here, there);
  const files = readdirSync(join(here.dir, 'out')).filter((f) => f.startsWith('twophase_rm3-commit-early'));
  assert.deepEqual(files.sort(), ['twophase_rm3-commit-early.itf.json', 'twophase_rm3-commit-early.txt']);
  for (const f of files) assert.equal(readFileSync(join(there.dir, 'out', f), 'utf8'), readFileSync(join(here.dir, 'out', f), 'utf8'), f);
});

test('kmc ci --mutate --cluster: the mutants run on the workers, and the mutation report is that of a local run', { skip: fast, timeout: 60_000 }, async () => {
  const { here, there } = await hereAndOnCluster(suiteOf(`spec: ${COUNTER}, preset: c3, expect: holds`), '--mutate');
  assert.equal(here.code, ExitCode.Holds, here.stderr);
  assertSameReports(here, there);
  assert.match(there.stdout, /Mutation self-test \(\d+ mutants/);
});

test('stopped (Ctrl-C) on the cluster: the checks under way end interrupted, the one not started is not run, exit 4', { skip: fast, timeout: 60_000 }, async () => {
  const suite = suiteOf(twoPhase('a', 8), twoPhase('b', 8), twoPhase('c', 8));
  let stop = false;
  const running = runCi({ suitePath: suite, cluster: { url: url(), waitSeconds: 10 }, shouldStop: () => stop });
  // Stop once both workers hold a check: the third is still in the queue.
  await untilHeld(url(), 2);
  stop = true;
  const r = await running;
  assert.deepEqual(
    r.run.outcomes.map((o) => [o.check.name, o.kind, o.got]),
    [
      ['a', 'budget', 'incomplete (interrupted)'],
      ['b', 'budget', 'incomplete (interrupted)'],
      ['c', 'budget', 'not run'],
    ],
  );
  assert.equal(r.exitCode, ExitCode.Incomplete);
});

test('a cluster that cannot run the checks: exit 5 and a paragraph saying why and what to do; --cluster with what it cannot go with: exit 2', { skip: fast, timeout: 60_000 }, async () => {
  const suite = suiteOf('spec: twophase, preset: rm3, expect: holds');
  const empty = await startNats(1);
  try {
    const nobody = await kmcInProcess('ci', suite, '--cluster', empty.urls[0]!, '--cluster-wait', '1');
    assert.equal(nobody.code, ExitCode.Cluster);
    assert.match(nobody.stderr, /Cannot run the suite's checks on the cluster: no worker joined the CI run at nats:\/\/127\.0\.0\.1:\d+ within 1 s\. Start some with: kmc worker nats:\/\/127\.0\.0\.1:\d+/);
  } finally {
    await empty.stop();
  }
  const noServer = await kmcInProcess('ci', suite, '--cluster', 'nats://127.0.0.1:1');
  assert.equal(noServer.code, ExitCode.Cluster);
  assert.match(noServer.stderr, /cannot reach a NATS server at nats:\/\/127\.0\.0\.1:1: .*Start one with JetStream on \(nats-server -js\)/);
  const badUrl = await kmcInProcess('ci', suite, '--cluster', 'http://x');
  assert.equal(badUrl.code, ExitCode.Usage);
  assert.match(badUrl.stderr, /--cluster takes the address of a NATS server/);
  const merge = await kmcInProcess('ci', '--merge', tempDir(), '--cluster', url());
  assert.equal(merge.code, ExitCode.Usage);
  assert.match(merge.stderr, /--merge combines finished slices and runs nothing; it does not take --cluster/);
});

test('a worker killed (SIGKILL) in the middle of a check: the check goes back to the queue, and the outcomes are those of a local run', { skip: slow, timeout: 180_000 }, async () => {
  const suite = suiteOf(twoPhase('a', 7), twoPhase('b', 7));
  const own = await startNats(1);
  const pair = startWorkers(bin, own.urls[0]!, 2);
  try {
    const here = await runCi({ suitePath: suite, lanes: 1 });
    const running = runCi({ suitePath: suite, cluster: { url: own.urls[0]!, waitSeconds: 10 } });
    await untilHeld(own.urls[0]!, 2);
    await stopProcess(pair[0]!, 'SIGKILL');
    const there = await running;
    const strip = (r: typeof here) => r.run.outcomes.map((o) => [o.check.name, o.kind, o.got, o.report?.distinct, o.report?.generated, o.report?.depth]);
    assert.deepEqual(strip(there), strip(here));
    assert.equal(there.exitCode, ExitCode.Holds);
  } finally {
    await Promise.all(pair.map((w) => stopProcess(w)));
    await own.stop();
  }
});
