/**
 * The driver's side of a search on a cluster: a JetStream stream for the run's successor batches (one
 * subject and durable consumer per owner), an object store for large attachments, `count` workers
 * recruited from the queue group `kmc worker` processes wait in, and an `OwnerLink` per worker that sends
 * it requests. A worker that stops sending heartbeats for setup.silenceSeconds stops the run with an error
 * naming it, instead of a driver waiting for ever.
 */
import { randomBytes } from 'node:crypto';
import { AckPolicy, connect, type NatsConnection, type ObjectStore, RetentionPolicy, StorageType } from 'nats';
import type { ModelSource } from '../../parallel/coordinator.ts';
import { BUNDLED_SPECS } from '../../../run/registry.ts';
import type { AbsorbReport, CutReport, ExpandReport, Link, OwnerLink } from '../ownerProtocol.ts';
import { bytesOf, float64sOf, open, seal } from './envelope.ts';
import type { Offer } from './natsWorker.ts';
import { HEARTBEAT_SECONDS, MAX_INLINE_BYTES, names, RECRUIT } from './subjects.ts';

/** A cluster that cannot run the search: no server, no JetStream, too few workers. */
export class ClusterError extends Error {
  override readonly name = 'ClusterError';
}

export interface ClusterSetup {
  readonly symmetry: boolean;
  readonly deadlock: boolean;
  /** How long to wait for `count` workers to join. */
  readonly waitSeconds: number;
  /** How long a silent worker, or driver, is given before the run stops. */
  readonly silenceSeconds: number;
}

export async function natsOwners(url: string, count: number, source: ModelSource, setup: ClusterSetup): Promise<OwnerLink[]> {
  let nc: NatsConnection;
  try {
    nc = await connect({ servers: url, name: `kmc driver ${process.pid}`, maxReconnectAttempts: -1 });
  } catch (e) {
    throw new ClusterError(`cannot reach a NATS server at ${url}: ${e instanceof Error ? e.message : String(e)}. Start one with JetStream on (nats-server -js) or give its address with --cluster nats://host:port.`);
  }
  const run = randomBytes(6).toString('hex');
  // A bundled spec by name, so each worker loads its own installation's copy; a user's spec by path.
  const spec = Object.entries(BUNDLED_SPECS).find(([, path]) => path === source.modulePath)?.[0] ?? source.modulePath;
  const n = names(run);
  let objects: ObjectStore;
  try {
    const jsm = await nc.jetstreamManager();
    await jsm.streams.add({ name: n.stream, subjects: [n.batches], retention: RetentionPolicy.Workqueue, storage: StorageType.File });
    for (let i = 0; i < count; i++) {
      await jsm.consumers.add(n.stream, { durable_name: n.consumerFor(i), filter_subject: n.batchesFor(i), ack_policy: AckPolicy.Explicit, max_ack_pending: 1024 });
    }
    objects = await nc.jetstream().views.os(n.objects);
  } catch (e) {
    await nc.close();
    throw new ClusterError(`the NATS server at ${url} cannot hold the run's stream: ${e instanceof Error ? e.message : String(e)}. kmc needs JetStream: start the server with -js (nats-server -js).`);
  }

  // Heartbeats both ways.
  const lastHeard = new Array<number>(count).fill(Date.now());
  const beats = nc.subscribe(n.aliveAny, { callback: (_e, m) => (lastHeard[Number(m.subject.split('.').at(-1))] = Date.now()) });
  const beat = setInterval(() => nc.publish(n.driver), HEARTBEAT_SECONDS * 1000);
  nc.publish(n.driver);

  const workers: string[] = [];
  const teardown = async (): Promise<void> => {
    clearInterval(beat);
    beats.unsubscribe();
    try {
      const jsm = await nc.jetstreamManager();
      await jsm.streams.delete(n.stream);
      await objects.destroy();
    } catch {
      // the server went away: nothing of the run is left to delete that it still holds
    }
    await nc.drain().catch(() => {});
  };

  try {
    const deadline = Date.now() + setup.waitSeconds * 1000;
    for (let index = 0; index < count; index++) {
      const offer: Offer = { run, index, owners: count, spec, params: source.params, symmetry: setup.symmetry, deadlock: setup.deadlock, silenceSeconds: setup.silenceSeconds };
      for (;;) {
        if (Date.now() > deadline) {
          throw new ClusterError(
            `only ${index} of ${count} workers joined the run at ${url} within ${setup.waitSeconds} s. Start ${count - index} more with: kmc worker ${url} (one per node), or ask for fewer with --owners ${Math.max(1, index)}.`,
          );
        }
        const reply = await nc.request(RECRUIT, seal({ ...offer }), { timeout: 2000 }).catch(() => null);
        const body = reply ? open(reply.data).body : null;
        if (typeof body?.error === 'string') throw new ClusterError(`a worker could not join the run: ${body.error}. A worker loads a bundled spec from its own installation and a spec of yours from the driver's path: run the workers from the same image, with the spec at the same path.`);
        if (body?.ok) {
          workers.push(`worker ${index} (${String(body.host)}, pid ${String(body.pid)})`);
          lastHeard[index] = Date.now();
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  } catch (e) {
    // Recruited workers give up the run once the driver's heartbeat stops.
    await teardown();
    throw e;
  }

  let closed = 0;
  /** The level each owner expands next: its batches' message ids carry it. */
  const levels = new Array<number>(count).fill(0);
  return Array.from({ length: count }, (_, index): OwnerLink => {
    /** A request to this owner; fails when the worker says so or falls silent. */
    const call = async (op: string, body: Record<string, unknown> = {}, attachment?: Uint8Array): Promise<{ body: Record<string, unknown>; attachment: Uint8Array }> => {
      let watch: ReturnType<typeof setInterval> | undefined;
      const silent = new Promise<never>((_, reject) => {
        watch = setInterval(() => {
          if (Date.now() - lastHeard[index]! > setup.silenceSeconds * 1000) {
            reject(new ClusterError(`${workers[index]} has sent no heartbeat for ${setup.silenceSeconds} s while the driver waited for its '${op}': the worker or its node stopped. The run stops; start it again when the workers are back.`));
          }
        }, HEARTBEAT_SECONDS * 1000);
      });
      try {
        const request = nc.request(n.requests(index), seal({ op, ...body }, attachment), { timeout: 24 * 3600 * 1000 }).catch((e: unknown) => {
          throw new ClusterError(`${workers[index]} did not answer its '${op}' (${e instanceof Error ? e.message : String(e)}): the worker stopped or lost its connection. The run stops; start it again when the workers are back.`);
        });
        const reply = await Promise.race([request, silent]);
        const r = open(reply.data);
        if (typeof r.body.error === 'string') throw new ClusterError(`${workers[index]} failed in '${op}': ${r.body.error}`);
        return r;
      } finally {
        clearInterval(watch);
      }
    };
    return {
      start: async (initials) => {
        await call('start', { initials: initials.map((s) => ({ ...s, bytes: Buffer.from(s.bytes).toString('base64') })) });
      },
      expand: async () => (await call('expand', { level: levels[index]!++ })).body as unknown as ExpandReport,
      absorb: async (expected) => {
        const r = await call('absorb', { expected });
        const keysBytes = typeof r.body.keysObject === 'string' ? await objects.getBlob(r.body.keysObject) : r.attachment;
        if (keysBytes === null) throw new ClusterError(`the keys of ${workers[index]} are missing from the object store`);
        if (typeof r.body.keysObject === 'string') await objects.delete(r.body.keysObject);
        return { ...(r.body as unknown as Omit<AbsorbReport, 'keys'>), keys: float64sOf(keysBytes) };
      },
      rank: async (ranks) => {
        const bytes = bytesOf(ranks);
        if (bytes.length <= MAX_INLINE_BYTES) return void (await call('rank', {}, bytes));
        const name = `ranks.${levels[index]}.${index}`;
        await objects.putBlob({ name }, bytes);
        await call('rank', { ranksObject: name });
        await objects.delete(name);
      },
      cut: async (stop) => (await call('cut', { stop })).body as unknown as CutReport,
      coverage: async () => (await call('coverage')).body as { enabled: number[]; fired: number[] },
      linkOf: async (hi, lo) => (await call('link', { hi, lo })).body as unknown as Link,
      close: async () => {
        await call('close').catch(() => {});
        if (++closed === count) await teardown();
      },
    };
  });
}
