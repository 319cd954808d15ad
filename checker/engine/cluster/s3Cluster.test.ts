/**
 * A search on a cluster with its checkpoints in S3 (`--checkpoint-store s3://…`), against s3rver on
 * loopback: the driver runs in this process and the `kmc worker` processes inherit its environment, so
 * every process reaches the bucket through AWS_ENDPOINT_URL_S3 with its own client. The report is that of
 * one process; the deltas of every level and the commit are in the bucket while the run goes and gone at
 * its end; a worker killed in the middle of a level rolls the run back from the bucket (slow tier); a value
 * that names no store is a usage mistake, and a bucket that cannot be used stops the run before it starts.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { clusterTiers, comparable, type NatsServers, startNats, startWorkers, stopProcess } from './testCluster.ts';
import { type FakeS3, startS3, withEnv } from './testS3.ts';

process.env.FORCE_COLOR = '0';
const { kmcInProcess } = await import('../../cli/testSupport.ts');
const bin = join(fileURLToPath(new URL('../../..', import.meta.url)), 'dist/checker/cli/bin.mjs');
const { skip, fast, slow } = clusterTiers(process.env.KMC_SLOW, 'large searches, stopped or killed in the middle: set KMC_SLOW=1 (npm run test:slow)');

const BUCKET = 'kmc-checkpoints';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let servers: NatsServers;
let s3: FakeS3;
let workers: ChildProcess[] = [];

before(async () => {
  if (skip) return;
  s3 = await startS3(BUCKET);
  Object.assign(process.env, s3.env);
  servers = await startNats(1);
});

after(async () => {
  if (skip) return;
  await Promise.all(workers.map((w) => stopProcess(w)));
  await servers.stop();
  await s3.stop();
});

/** The names of the streams the NATS server holds (a run's, and its object store's). */
async function streams(): Promise<string[]> {
  const { connect } = await import('nats');
  const nc = await connect({ servers: servers.urls[0]! });
  try {
    const names: string[] = [];
    for await (const name of (await nc.jetstreamManager()).streams.names()) names.push(name);
    return names.sort();
  } finally {
    await nc.close();
  }
}

test('--checkpoint-store s3://bucket/prefix: the report of one process; each owner\'s delta of every level and the commit in the bucket while the run goes, none left at its end', { skip: fast, timeout: 120_000 }, async () => {
  workers = startWorkers(bin, servers.urls[0]!, 2);
  const model = ['check', 'twophase', '--param', 'rm=5', '--json'];
  const one = await kmcInProcess(...model, '--workers', '1');
  assert.equal(one.code, 0, one.stderr);
  const seen = new Set<string>();
  let running = true;
  const watching = (async () => {
    while (running) {
      for (const k of await s3.keys('team/')) seen.add(k);
      await sleep(20);
    }
  })();
  const r = await kmcInProcess(...model, '--owners', '2', '--cluster', servers.urls[0]!, '--checkpoint-store', `s3://${BUCKET}/team/checks/`);
  running = false;
  await watching;
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(comparable(r.stdout), comparable(one.stdout));
  const run = /run ([0-9a-f]{12}) on/.exec(r.stderr)?.[1];
  assert.ok(run, r.stderr);
  const folder = `team/checks/kmc-${run}/`;
  assert.ok([...seen].every((k) => k.startsWith(folder)), [...seen].join(', '));
  const names = [...seen].map((k) => k.slice(folder.length));
  assert.ok(names.includes('commit'), names.join(', '));
  // Both owners saved level 0 and the levels after it.
  const levels = (owner: number) => names.filter((k) => k.startsWith(`checkpoint.${owner}.`)).map((k) => Number(k.split('.')[2]));
  for (const owner of [0, 1]) {
    assert.ok(levels(owner).includes(0), names.join(', '));
    assert.ok(Math.max(...levels(owner)) >= 3, names.join(', '));
  }
  assert.ok(names.every((k) => k === 'commit' || /^checkpoint\.[01]\.\d+$/.test(k)), names.join(', '));
  assert.deepEqual(await s3.keys(), []);
  assert.deepEqual(await streams(), []);
  await Promise.all(workers.map((w) => stopProcess(w)));
});

test('--checkpoint-store: a value that names no store, exit 2 and the forms it takes; a bucket that cannot be reached or is not there, exit 5 and what each process needs, before anything of the run is made', { skip: fast, timeout: 60_000 }, async () => {
  const cluster = ['check', 'twophase', '--owners', '2', '--cluster', servers.urls[0]!];
  const badBucket = await kmcInProcess(...cluster, '--checkpoint-store', 's3://Kmc_Runs/x');
  assert.equal(badBucket.code, 2);
  assert.match(badBucket.stderr, /--checkpoint-store s3:\/\/Kmc_Runs\/x names no place for checkpoints: 'Kmc_Runs' is not a name S3 gives a bucket \(3 to 63 lowercase letters, digits, dots and hyphens, beginning and ending with a letter or digit\)\. It takes nats \(the run's object store in NATS, the default\) or s3:\/\/bucket\/prefix/);
  const notUrl = await kmcInProcess(...cluster, '--checkpoint-store', 'kmc-runs/x');
  assert.equal(notUrl.code, 2);
  assert.match(notUrl.stderr, /--checkpoint-store kmc-runs\/x names no place for checkpoints: 'kmc-runs\/x' is neither nats nor an s3:\/\/ URL\. It takes nats/);
  const emptyPart = await kmcInProcess(...cluster, '--checkpoint-store', 's3://kmc-runs/a//b');
  assert.equal(emptyPart.code, 2);
  assert.match(emptyPart.stderr, /the key prefix 'a\/\/b' has an empty part/);
  const noCluster = await kmcInProcess('check', 'twophase', '--checkpoint-store', `s3://${BUCKET}/x`);
  assert.equal(noCluster.code, 2);
  assert.match(noCluster.stderr, /--checkpoint-store goes with --cluster/);

  const unreachable = await withEnv({ AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:1' }, () => kmcInProcess(...cluster, '--checkpoint-store', `s3://${BUCKET}/x`));
  assert.equal(unreachable.code, 5);
  assert.match(
    unreachable.stderr,
    /Cannot check twophase on the cluster: the checkpoint store s3:\/\/kmc-checkpoints\/x\/kmc-[0-9a-f]{12}\/ \(at http:\/\/127\.0\.0\.1:1\) cannot be used: connect ECONNREFUSED 127\.0\.0\.1:1\. Each process of a run \(the driver and every worker\) reaches the bucket with its own environment's credentials and region.*AWS_ENDPOINT_URL_S3.*s3:PutObject/,
  );
  assert.doesNotMatch(unreachable.stderr, /\n\s+at /);
  const noBucket = await kmcInProcess(...cluster, '--checkpoint-store', 's3://no-such-bucket/x');
  assert.equal(noBucket.code, 5);
  assert.match(noBucket.stderr, /the checkpoint store s3:\/\/no-such-bucket\/x\/kmc-[0-9a-f]{12}\/ \(at http:\/\/127\.0\.0\.1:\d+\) cannot be used: there is no bucket no-such-bucket\./);
  assert.deepEqual(await streams(), []);
});

test('--time-limit keeps a run with its checkpoints in the bucket; --resume-run finds its commit there only with the same --checkpoint-store, and ends it with the report of one process', { skip: slow, timeout: 180_000 }, async () => {
  workers = startWorkers(bin, servers.urls[0]!, 2);
  try {
    // TwoPhase with 8 resource managers, 10 s or more on two worker processes: with 7 a quiet machine finished
    // within the 3 s limit (2.2 s), and the run was not kept.
    const model = ['check', 'twophase', '--param', 'rm=8', '--json', '--owners', '2'];
    const one = await kmcInProcess('check', 'twophase', '--param', 'rm=8', '--json', '--workers', '1');
    const store = ['--checkpoint-store', `s3://${BUCKET}/kept`];
    const stopped = await kmcInProcess(...model, '--cluster', servers.urls[0]!, '--time-limit', '3', ...store);
    assert.equal(stopped.code, 4, stopped.stderr);
    const run = /go on with --resume-run ([0-9a-f]{12})/.exec(stopped.stderr)?.[1];
    assert.ok(run, stopped.stderr);
    const kept = await s3.keys('kept/');
    for (const name of ['commit', 'checkpoint.0.0', 'checkpoint.1.0']) assert.ok(kept.includes(`kept/kmc-${run}/${name}`), kept.join(', '));
    const elsewhere = await kmcInProcess(...model, '--cluster', servers.urls[0]!, '--resume-run', run);
    assert.equal(elsewhere.code, 5);
    assert.match(elsewhere.stderr, new RegExp(`run ${run} at nats://127\\.0\\.0\\.1:\\d+ has no commit in the object store kmc-${run} in NATS to resume from: .*resume it with the --checkpoint-store it was started with`));
    const resumed = await kmcInProcess(...model, '--cluster', servers.urls[0]!, '--resume-run', run, ...store);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stderr, new RegExp(`resuming run ${run} from its commit at depth \\d+`));
    assert.deepEqual(comparable(resumed.stdout), comparable(one.stdout));
    assert.deepEqual(await s3.keys(), []);
    assert.deepEqual(await streams(), []);
  } finally {
    // Stopped whatever happens: a worker left running keeps this file from ending, and joins the next test's runs.
    await Promise.all(workers.map((w) => stopProcess(w)));
  }
});

test('a worker killed (SIGKILL) in the middle of a level, checkpoints in S3: every owner rolls back from the bucket and the counts are those of one process', { skip: slow, timeout: 240_000 }, async () => {
  // TwoPhase with 8 resource managers: 1,745,408 states in about 30 s on this machine's cluster, a few seconds a level past level 10.
  const model = ['check', 'twophase', '--param', 'rm=8', '--json'];
  const one = await kmcInProcess(...model, '--workers', '1');
  workers = startWorkers(bin, servers.urls[0]!, 3);
  try {
    const run = kmcInProcess(...model, '--owners', '3', '--cluster', servers.urls[0]!, '--worker-timeout', '3', '--cluster-wait', '5', '--checkpoint-store', `s3://${BUCKET}/slow`);
    // Once an owner has saved level 10, level 11 is under way.
    const deadline = Date.now() + 120_000;
    while (!(await s3.keys('slow/')).some((k) => /checkpoint\.\d\.(1\d|[2-9]\d)$/.test(k))) {
      assert.ok(Date.now() < deadline, 'no owner saved level 10 within 120 s');
      await sleep(100);
    }
    await stopProcess(workers[1]!, 'SIGKILL');
    const r = await run;
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(comparable(r.stdout), comparable(one.stdout));
    assert.match(r.stderr, /1 worker lost, rolling back to depth \d+/);
    assert.match(r.stderr, /back at depth \d+ \([\d,]+ states\) after [\d.]+ s/);
    assert.deepEqual(await s3.keys(), []);
  } finally {
    await Promise.all(workers.map((w) => stopProcess(w)));
  }
});

test('kmc runs: a search kept with its checkpoints in S3 is listed as having none in NATS; --drop with its --checkpoint-store deletes both', { skip: slow, timeout: 120_000 }, async () => {
  const mine = startWorkers(bin, servers.urls[0]!, 1);
  try {
    const url = servers.urls[0]!;
    const stopped = await kmcInProcess('check', 'twophase', '--param', 'rm=9', '--owners', '1', '--cluster', url, '--time-limit', '3', '--checkpoint-store', `s3://${BUCKET}/dropme`);
    assert.equal(stopped.code, 4, stopped.stderr);
    const run = /go on with --resume-run ([0-9a-f]{12})/.exec(stopped.stderr)![1]!;
    const saved = await s3.keys('dropme/');
    assert.ok(saved.includes(`dropme/kmc-${run}/commit`), `the stopped search left its commit in S3; found ${saved.join(', ')}`);
    const listed = await kmcInProcess('runs', url);
    assert.match(listed.stdout, new RegExp(`^${run}  search  kept .*\\n  no commit in NATS: stopped before its first level was saved, or its checkpoints are in S3 \\(--checkpoint-store\\)$`, 'm'));
    const dropped = await kmcInProcess('runs', url, '--drop', run, '--checkpoint-store', `s3://${BUCKET}/dropme`);
    assert.equal(dropped.code, 0, dropped.stderr);
    assert.deepEqual(await s3.keys('dropme/'), []);
    assert.deepEqual((await streams()).filter((s) => s.includes(run)), []);
  } finally {
    await Promise.all(mine.map((w) => stopProcess(w)));
  }
});
