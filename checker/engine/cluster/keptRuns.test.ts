/**
 * `kmc runs`: a search stopped by its time limit is kept for --resume-run and a killed driver's queue is
 * left behind; both are listed with what they hold, a run at work cannot be dropped, the others can.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from 'nats';
import { clusterTiers, freePort, startNats, startWorkers, stopProcess } from './testCluster.ts';

process.env.FORCE_COLOR = '0';
const { kmcInProcess: kmc } = await import('../../cli/testSupport.ts');
const bin = join(fileURLToPath(new URL('../../..', import.meta.url)), 'dist/checker/cli/bin.mjs');
// The runs take some 20 s to make, stop and kill (each drop listens 3 s for the driver's heartbeat): the slow tier.
const { slow } = clusterTiers(process.env.KMC_SLOW, 'runs kept and left behind take some 20 s to make and drop: set KMC_SLOW=1 (npm run test:slow)');

interface Listed {
  run: string;
  kind: string;
  live: boolean;
  bytes: number;
  search?: { spec: string; params: unknown; owners: number; depth: number; distinct: number };
}
async function streamNames(url: string): Promise<string[]> {
  const nc = await connect({ servers: url });
  try {
    const names: string[] = [];
    for await (const name of (await nc.jetstreamManager()).streams.names()) names.push(name);
    return names;
  } finally {
    await nc.close();
  }
}

const listed = async (url: string): Promise<Listed[]> => {
  const r = await kmc('runs', url, '--json');
  assert.equal(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as { runs: Listed[] }).runs;
};

test('kmc runs: a kept search with its counts and how to go on, a killed driver\'s queue, a run at work refused, the others dropped', { skip: slow, timeout: 120_000 }, async () => {
  const servers = await startNats(1);
  const url = servers.urls[0]!;
  const [worker] = startWorkers(bin, url, 1);
  let driver: ReturnType<typeof spawn> | undefined;
  try {
    // A search its time limit stops: kept, with its last commit.
    const check = await kmc('check', 'twophase', '--param', 'rm=9', '--owners', '1', '--cluster', url, '--time-limit', '3', '--json');
    assert.equal(check.code, 4, check.stderr);
    const search = /run ([0-9a-f]{12}) on/.exec(check.stderr)![1]!;
    const stats = JSON.parse(check.stdout) as { distinct: number; depth: number };

    // A swarm whose driver is killed: its queue is left on the server.
    driver = spawn(process.execPath, [bin, 'simulate', 'twophase', '--param', 'rm=9', '--runs', '1000000', '--workers', '2', '--cluster', url], { stdio: 'ignore' });
    let queue: Listed | undefined;
    while (queue === undefined) queue = (await listed(url)).find((r) => r.kind === 'queue');
    assert.equal(queue.live, true, 'its driver is alive');
    const atWork = await kmc('runs', url, '--drop', queue.run);
    assert.equal(atWork.code, 2);
    assert.equal(atWork.stderr, `error: Run ${queue.run} is at work: its driver is alive. Stop the driver first (Ctrl-C; a stopped search is kept for --resume-run), then drop it.\n`);
    await stopProcess(driver, 'SIGKILL');

    const runs = await listed(url);
    assert.deepEqual(
      runs.map((r) => [r.run, r.kind, r.live, r.search]),
      [
        [search, 'search', false, { spec: 'twophase', params: { rm: 9, bug: 'none' }, owners: 1, depth: stats.depth, distinct: stats.distinct }],
        [queue.run, 'queue', false, undefined],
      ],
    );
    assert.ok(runs[0]!.bytes > 0, `the kept search has a size, got ${runs[0]!.bytes} bytes`);
    const text = await kmc('runs', url);
    assert.match(text.stdout, new RegExp(`^${search}  search  kept  [\\d.]+ MB  made \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC\\n  twophase \\{"rm":9,"bug":"none"\\}, 1 owner: saved with [\\d,]+ distinct states, depth ${stats.depth}\\n  go on with kmc check … --cluster ${url} --owners N --resume-run ${search}, or drop it \\(kmc runs ${url} --drop ${search}\\)$`, 'm'));
    assert.match(text.stdout, new RegExp(`^${queue.run}  queue  kept .*\\n  left by a driver that stopped before its last result: nothing uses it \\(kmc runs ${url} --drop ${queue.run}\\)$`, 'm'));

    const unknown = await kmc('runs', url, '--drop', '0123456789ab');
    assert.equal(unknown.code, 2);
    assert.equal(unknown.stderr, `error: The NATS server at ${url} holds no run 0123456789ab. It holds ${search}, ${queue.run}; --drop takes their ids, or 'kept' for every run not at work.\n`);

    // A search whose driver died before it made its object store: listed without a commit, and listing it
    // makes none (opening an object store that is not there would).
    const bare = 'abcdef012345';
    const nc0 = await connect({ servers: url });
    try {
      await (await nc0.jetstreamManager()).streams.add({ name: `KMC_${bare}`, subjects: [`kmc.${bare}.batch.*`] });
    } finally {
      await nc0.close();
    }
    const bareRun = (await listed(url)).find((r) => r.run === bare);
    assert.deepEqual([bareRun?.kind, bareRun?.live, bareRun?.search], ['search', false, undefined]);
    assert.equal((await streamNames(url)).includes(`OBJ_kmc-${bare}`), false);

    const dropped = await kmc('runs', url, '--drop', 'kept');
    assert.equal(dropped.code, 0, dropped.stderr);
    assert.match(dropped.stdout, new RegExp(`^Dropped search ${search} \\([\\d.]+ MB\\)\\.\\nDropped queue ${queue.run} \\([\\d.]+ MB\\)\\.\\nDropped search ${bare} \\([\\d.]+ MB\\)\\.\\n$`));
    assert.equal((await kmc('runs', url)).stdout, `The NATS server at ${url} holds no run.\n`);
    // Nothing of either is left on the server: no stream, no object store.
    assert.deepEqual((await streamNames(url)).filter((s) => s.startsWith('KMC_') || s.startsWith('OBJ_kmc-')), []);
  } finally {
    if (driver) await stopProcess(driver, 'SIGKILL');
    await stopProcess(worker!);
    await servers.stop();
  }
});

test('kmc runs: no server there is exit 5, an address that is not one exit 2, --drop with no run or --checkpoint-store without --drop exit 2', async () => {
  const port = await freePort();
  const none = await kmc('runs', `nats://127.0.0.1:${port}`);
  assert.equal(none.code, 5);
  assert.match(none.stderr, new RegExp(`^error: kmc runs: cannot reach a NATS server at nats://127.0.0.1:${port}: .*Give the address the drivers use \\(--cluster\\)\\.\\n$`));
  const bad = await kmc('runs', 'http://127.0.0.1:4222');
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /kmc runs takes the address of a NATS server, such as nats:\/\/127\.0\.0\.1:4222/);
  const nothing = await kmc('runs', `nats://127.0.0.1:${port}`, '--drop');
  assert.equal(nothing.code, 2);
  assert.equal(nothing.stderr, `error: --drop takes the ids of the runs to delete (kmc runs nats://127.0.0.1:${port} lists them), or 'kept' for every run not at work.\n`);
  const store = await kmc('runs', `nats://127.0.0.1:${port}`, '--checkpoint-store', 's3://bucket');
  assert.equal(store.code, 2);
  assert.equal(store.stderr, 'error: --checkpoint-store goes with --drop: the checkpoints of the searches dropped are deleted there too.\n');
});
