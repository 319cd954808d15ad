import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AckPolicy, connect, type JetStreamClient, RetentionPolicy, StorageType } from 'nats';
import { open, seal } from './envelope.ts';
import { type QueueOffer, type QueueRun, runQueue, takeUnits } from './jobQueue.ts';
import { queueNames, RECONNECT, RECRUIT, WORKERS_QUEUE } from './subjects.ts';
import { clusterTiers, startNats } from './testCluster.ts';

const { skip } = clusterTiers(process.env.KMC_SLOW, 'no slow case here');

test('a result sent while the server restarts is not lost: the queue ends with every result, each once', { skip, timeout: 60_000 }, async () => {
  const servers = await startNats(1);
  const url = servers.urls[0]!;
  const worker = await connect({ servers: url, ...RECONNECT });
  let restarted: () => void = () => {};
  const afterRestart = new Promise<void>((resolve) => (restarted = resolve));
  let started: () => void = () => {};
  const firstStarted = new Promise<void>((resolve) => (started = resolve));
  try {
    // A worker in this process whose first unit ends only once the server has been killed and started again,
    // so its result goes out while the driver's connection may not be back yet.
    worker.subscribe(RECRUIT, {
      queue: WORKERS_QUEUE,
      callback: (_e, m) => {
        const offer = open(m.data).body as unknown as QueueOffer;
        void takeUnits<number, number>(worker, offer, 'w1', (error) => m.respond(seal(error === undefined ? { ok: true } : { error })), async () => ({
          run: async (unit) => {
            if (unit === 0) {
              started();
              await afterRestart;
            }
            return unit * 10;
          },
          notStarted: () => -1,
        })).catch(() => {});
      },
    });
    await worker.flush();
    const seen: number[] = [];
    let lastResultAt = 0;
    const queue = runQueue<number, number>(url, 'test queue', { kind: 'test' }, [0, 1, 2], {
      waitSeconds: 10,
      onResult: (index) => {
        seen.push(index);
        lastResultAt = performance.now();
      },
    });
    await firstStarted;
    await servers.restart();
    const restartedAt = performance.now();
    restarted();
    const { results, workers } = await queue;
    // The queue ends with its last result, not once the offer to a second worker, lost in the restart, times out (15 s).
    const endedAfter = performance.now() - lastResultAt;
    assert.ok(endedAfter < 3000, `the queue ended ${Math.round(endedAfter)} ms after its last result`);
    // A result whose store was not confirmed (sent as the server came back) is sent again after a second,
    // not after the client's 5 s default: the last result is in within 3 s of the restart.
    const inAfter = lastResultAt - restartedAt;
    assert.ok(inAfter < 3000, `the last result came ${Math.round(inAfter)} ms after the server was back`);
    assert.deepEqual(results, [0, 10, 20]);
    assert.deepEqual([...seen].sort(), [0, 1, 2]);
    assert.equal(workers, 1);
  } finally {
    await worker.close().catch(() => {});
    await servers.stop();
  }
});

test("a worker whose result's queue was deleted (the driver had it from another worker) moves on at once, not after its tries", { skip, timeout: 60_000 }, async () => {
  const servers = await startNats(1);
  const url = servers.urls[0]!;
  const nc = await connect({ servers: url });
  try {
    // The driver's side of a queue of one unit, made here by hand.
    const n = queueNames('deadbeef0001');
    const jsm = await nc.jetstreamManager();
    await jsm.streams.add({ name: n.stream, subjects: [n.units], retention: RetentionPolicy.Workqueue, storage: StorageType.File });
    await jsm.consumers.add(n.stream, { durable_name: n.consumer, ack_policy: AckPolicy.Explicit, max_deliver: -1 });
    await jsm.streams.add({ name: n.resultsStream, subjects: [n.results], retention: RetentionPolicy.Limits, storage: StorageType.File });
    await nc.jetstream().publish(n.units, seal({ index: 0, unit: 7 }));
    const offer: QueueOffer = { kind: 'test', run: 'deadbeef0001', stopped: false, loadSeconds: 30 };
    const started = Date.now();
    let ran = 0;
    await takeUnits<number, number>(nc, offer, 'w1', () => {}, async () => ({
      run: async (unit) => {
        ran++;
        // Meanwhile the driver has every result and deletes its queue.
        await jsm.streams.delete(n.resultsStream);
        await jsm.streams.delete(n.stream);
        return unit;
      },
      notStarted: () => -1,
    }));
    assert.equal(ran, 1);
    // Not after its 30 s of tries, nor after a last wait for a unit (2 s): the queue is gone.
    assert.ok(Date.now() - started < 1500, `the worker left after ${Date.now() - started} ms; it tries a result for 30 s only while its queue is there`);
  } finally {
    await nc.close();
    await servers.stop();
  }
});

/**
 * A queue of one unit on a server of its own, whose one worker is written here by hand: once it joins, it
 * stores `store(js, resultsSubject)` as its results. Returns what the driver made of them.
 */
async function queueWithHandMadeWorker(store: (js: JetStreamClient, results: string) => Promise<void>): Promise<QueueRun<unknown>> {
  const servers = await startNats(1);
  const url = servers.urls[0]!;
  const worker = await connect({ servers: url });
  try {
    worker.subscribe(RECRUIT, {
      queue: WORKERS_QUEUE,
      callback: (_e, m) => {
        const offer = open(m.data).body as unknown as QueueOffer;
        m.respond(seal({ ok: true }));
        void store(worker.jetstream(), queueNames(offer.run).results).catch(() => {});
      },
    });
    await worker.flush();
    return await runQueue<number, unknown>(url, 'test queue', { kind: 'test' }, [0], { waitSeconds: 10 });
  } finally {
    await worker.close().catch(() => {});
    await servers.stop();
  }
}

/** `bytes` cut into `count` parts. */
const cut = (bytes: Uint8Array, count: number): Uint8Array[] => Array.from({ length: count }, (_, i) => bytes.subarray(Math.ceil((i * bytes.length) / count), Math.ceil(((i + 1) * bytes.length) / count)));

test('a result is made of the parts of one sending: a worker that sent part of a result, then all of another, gives the other whole', { skip, timeout: 60_000 }, async () => {
  const first = new TextEncoder().encode(JSON.stringify({ from: 'the first run', pad: 'x'.repeat(40) }));
  const second = new TextEncoder().encode(JSON.stringify({ from: 'the second run' }));
  // The worker stores two of three parts of one result (its run of the unit was then cut short), then a
  // second result of the same unit in two parts: the driver must not complete the first sending's parts
  // with the second's.
  const { results } = await queueWithHandMadeWorker(async (js, subject) => {
    const [a0, a1] = cut(first, 3);
    await js.publish(subject, seal({ index: 0, by: 'w1', sending: 'a', part: 0, count: 3 }, a0));
    await js.publish(subject, seal({ index: 0, by: 'w1', sending: 'a', part: 1, count: 3 }, a1));
    for (const [part, bytes] of cut(second, 2).entries()) await js.publish(subject, seal({ index: 0, by: 'w1', sending: 'b', part, count: 2 }, bytes));
  });
  assert.deepEqual(results, [{ from: 'the second run' }]);
});

test('a result that cannot be read ends the queue with a cluster error naming it, instead of a wait for ever', { skip, timeout: 60_000 }, async () => {
  const bytes = new TextEncoder().encode('{"from": "a worker cut off');
  await assert.rejects(
    queueWithHandMadeWorker(async (js, subject) => void (await js.publish(subject, seal({ index: 0, by: 'w1', sending: 'a', part: 0, count: 1 }, bytes)))),
    (e: Error) => {
      assert.equal(e.name, 'ClusterError');
      assert.match(e.message, /^the test queue cannot take a result stored on the cluster: .*JSON/);
      return true;
    },
  );
});
