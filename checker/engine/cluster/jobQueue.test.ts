import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AckPolicy, connect, RetentionPolicy, StorageType } from 'nats';
import { open, seal } from './envelope.ts';
import { type QueueOffer, runQueue, takeUnits } from './jobQueue.ts';
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
    restarted();
    const { results, workers } = await queue;
    // The queue ends with its last result, not once the offer to a second worker, lost in the restart, times out (15 s).
    const endedAfter = performance.now() - lastResultAt;
    assert.ok(endedAfter < 3000, `the queue ended ${Math.round(endedAfter)} ms after its last result`);
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
    assert.ok(Date.now() - started < 10_000, `the worker left after ${Date.now() - started} ms; it tries a result for 30 s only while its queue is there`);
  } finally {
    await nc.close();
    await servers.stop();
  }
});
