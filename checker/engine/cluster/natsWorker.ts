/**
 * `kmc worker nats://…`: a process that owns part of a driver's search (ownedSearch.ts). It waits in a
 * queue group to be recruited, loads the model the driver names, and answers the driver's requests with
 * an `Owner`: successors go out in batches to their owners' subjects of the run's JetStream stream, and
 * come in from this owner's subject through a durable consumer. Each level it holds is saved to the run's
 * checkpoint store (its object store in NATS, or the S3 bucket the offer names, reached with this worker's
 * own credentials), so that after a lost worker every owner can go back to the last commit. Between slices
 * of work it sends a heartbeat; a driver silent for longer than the offer allows ends the run here, and
 * the worker waits for the next one.
 *
 * A worker may own several parts of one run: a driver that lost a worker and finds no idle one hands the
 * lost part to a survivor directly.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { connect, type JetStreamClient, type NatsConnection, type ObjectStore, type PubAck, type Msg, type Subscription } from 'nats';
import { Expander } from '../expander.ts';
import { loadSpec } from '../../run/loadSpec.ts';
import { layoutOf, type PackedLayout, type PackedState } from '../state/packed.ts';
import type { ParamValues } from '../../../spec/spec.ts';
import { Owner, type Sliced } from '../owners/owner.ts';
import type { InitialState, Stop } from '../owners/ownerProtocol.ts';
import { bytesOf, open, seal, uint32sOf } from './envelope.ts';
import { HEARTBEAT_SECONDS, MAX_INLINE_BYTES, names, offersTo, RECONNECT, RECRUIT, WORKERS_QUEUE } from './subjects.ts';
import type { SwarmOffer } from './clusterSwarm.ts';
import { type QueueOffer, takeUnits, type UnitRunner } from './jobQueue.ts';
import { isNatsError } from './natsErrors.ts';
import { withinSeconds } from './withinSeconds.ts';
import { type CheckpointStore, openCheckpointStore } from './checkpointStore.ts';
import { NatsCheckpoints } from './natsCheckpoints.ts';
import { differenceFromDriver, type SpecIdentity, specIdentity } from './specIdentity.ts';
import { closeConnection } from './closeConnection.ts';

/** What a driver offers a worker: its part of a run. */
export interface Offer {
  readonly run: string;
  readonly index: number;
  readonly owners: number;
  /** A bundled spec's name, or the path of the spec's module. */
  readonly spec: string;
  readonly params: ParamValues;
  readonly symmetry: boolean;
  readonly deadlock: boolean;
  /** How long the driver may stay silent before this worker gives the run up. */
  readonly silenceSeconds: number;
  /**
   * How long this worker may take to load the spec before it gives the part back: the driver waits that
   * long for its answer, and a worker held by a load that never ends would be lost to every later run.
   */
  readonly loadSeconds: number;
  /** The driver's session: a driver that resumes the run has another, and this owner then gives the run up. */
  readonly session: string;
  /** Where the run keeps its checkpoints, an s3:// URL reached with this worker's own credentials; by default, the run's object store. */
  readonly checkpointStore?: string;
  /** The driver's spec (specIdentity.ts): a worker whose copy differs does not join. */
  readonly identity: SpecIdentity;
}

export interface WorkerOptions {
  readonly url: string;
  /** Serve one run, then exit. */
  readonly once?: boolean;
  readonly log?: (line: string) => void;
}

/** Successor batches published and not yet stored by JetStream, past which expansion waits. */
const MAX_UNACKED = 64;
/** The longest slice of expansion between two turns of the event loop. */
const SLICE_MS = 100;

/** The driver asked every owner to drop what it is doing. */
class Interrupted extends Error {}

export async function runWorker(options: WorkerOptions): Promise<void> {
  const log = options.log ?? (() => {});
  const nc = await connect({ servers: options.url, name: `kmc-worker ${hostname()} ${process.pid}`, ...RECONNECT });
  const id = randomBytes(6).toString('hex');
  log(`kmc worker ${id} (pid ${process.pid} on ${hostname()}): waiting for a run at ${options.url}`);
  /** Parts of runs this worker owns now. */
  let owned = 0;
  let served = 0;
  let finished: () => void = () => {};
  const done = new Promise<void>((resolve) => (finished = resolve));
  /**
   * Only an idle worker is in the queue group the offers go to: a busy one leaves it, so a driver's offer
   * reaches an idle worker at once instead of by chance (one that comes meanwhile is answered busy).
   */
  let offers: Subscription | null = null;
  const listen = (on: boolean): void => {
    if (on && offers === null) {
      offers = nc.subscribe(RECRUIT, {
        queue: WORKERS_QUEUE,
        callback: (_err, m) => {
          if (owned > 0 || (options.once && served > 0)) return m.respond(seal({ busy: true }));
          take(m);
        },
      });
    } else if (!on && offers !== null) {
      offers.unsubscribe();
      offers = null;
    }
  };
  /** One part more (or one less) of a run or a queue: the worker leaves the offers' group while it has any. */
  const own = (delta: 1 | -1): void => {
    owned += delta;
    if (delta === -1) served++;
    listen(owned === 0 && !(options.once && served > 0) && !nc.isClosed());
    if (options.once && owned === 0 && served > 0) finished();
  };
  const take = (m: Msg): void => {
    const body = open(m.data).body;
    const runner = QUEUE_RUNNERS[String(body.kind)];
    if (runner) {
      const offer = body as unknown as QueueOffer;
      own(1);
      log(`units of ${offer.kind} ${offer.run}`);
      takeUnits(nc, offer, id, (error) => m.respond(seal(error === undefined ? { ok: true, id } : { error })), () => runner(offer))
        .catch((e: unknown) => log(`${offer.kind} ${offer.run} ended here: ${e instanceof Error ? e.message : String(e)}`))
        .finally(() => own(-1));
      return;
    }
    const offer = body as unknown as Offer;
    own(1);
    log(`owner ${offer.index} of ${offer.owners} in run ${offer.run}`);
    // The offer is taken once this worker is ready for the driver's first request.
    const ready = (error?: string) => m.respond(seal(error === undefined ? { ok: true, id, host: hostname(), pid: process.pid } : { error }));
    serveRun(nc, offer, id, log, ready)
      .catch((e: unknown) => log(`run ${offer.run} ended here: ${e instanceof Error ? e.message : String(e)}`))
      .finally(() => own(-1));
  };
  // An idle worker takes offers from the queue; any worker takes those made to it by name.
  listen(true);
  const direct = nc.subscribe(offersTo(id), { callback: (_err, m) => take(m) });
  await Promise.race([done, nc.closed()]);
  listen(false);
  direct.unsubscribe();
  await closeConnection(nc);
}

async function serveRun(nc: NatsConnection, offer: Offer, worker: string, log: (line: string) => void, ready: (error?: string) => void): Promise<void> {
  const n = names(offer.run);
  const js: JetStreamClient = nc.jetstream();
  let expander: Expander<unknown>;
  let layout: PackedLayout;
  let objects: ObjectStore;
  let checkpoints: CheckpointStore;
  let difference: string | null;
  try {
    const { definition, modulePath } = await withinSeconds(loadSpec(offer.spec), offer.loadSeconds, `it did not load within ${offer.loadSeconds} s on ${hostname()} (--cluster-wait)`);
    const model = definition.build(offer.params);
    expander = new Expander(model, offer.symmetry);
    layout = layoutOf(expander.initialStates()[0] as unknown as PackedState);
    difference = differenceFromDriver(modulePath, offer.identity, specIdentity(modulePath, model, offer.symmetry, layout));
    objects = await js.views.os(n.objects);
  } catch (e) {
    const message = `cannot load the spec ${offer.spec}: ${e instanceof Error ? e.message : String(e)}`;
    ready(message);
    throw new Error(message);
  }
  if (difference !== null) {
    const message = `${hostname()} (pid ${process.pid}) has another spec than the driver's: ${difference}`;
    ready(message);
    throw new Error(message);
  }
  try {
    checkpoints = offer.checkpointStore === undefined ? new NatsCheckpoints(objects, n.objects) : await openCheckpointStore(offer.checkpointStore, offer.run);
  } catch (e) {
    const message = `cannot use the checkpoint store ${offer.checkpointStore} on ${hostname()}: ${e instanceof Error ? e.message : String(e)}`;
    ready(message);
    throw new Error(message);
  }

  /** The level expanded last (its batches carry it), and the attempt at it (one more after each rollback). */
  let level = 0;
  let attempt = 0;
  /** The level whose batches this owner takes in: the one after the last it ranked. */
  let receiving = 0;
  let seq = 0;
  let interrupted = false;
  /** Settles when the driver resets the attempt under way: a wait on JetStream ends at once then. */
  let reset: Promise<void> = new Promise(() => {});
  let resetNow: () => void = () => {};
  const armReset = () => (reset = new Promise<void>((resolve) => (resetNow = resolve)));
  armReset();
  /**
   * The batches of this attempt sent and not yet stored. Those of an attempt rolled back are forgotten (their
   * receivers drop them): a store still unanswered when the server restarted fails only after the client's
   * wait, and must neither hold up nor fail the attempt that came after it.
   */
  let unacked = new Set<Promise<PubAck>>();
  /** A batch JetStream did not store: the level's counts would wait for it for ever, so the level fails. */
  let publishFailed: unknown = null;
  let owner: Owner<unknown>;
  try {
    owner = new Owner(expander, layout, { index: offer.index, owners: offer.owners, deadlock: offer.deadlock }, (to, batch) => {
      const ack = js.publish(n.batchesFor(to), batch, { msgID: `${level}.${attempt}.${offer.index}.${to}.${seq++}` });
      const ofAttempt = unacked;
      ofAttempt.add(ack);
      void ack.then(
        () => ofAttempt.delete(ack),
        (e: unknown) => {
          ofAttempt.delete(ack);
          if (ofAttempt === unacked) publishFailed ??= e;
        },
      );
    });
  } catch (e) {
    // The records file under TMPDIR (wordFile.ts): this worker cannot own a part.
    checkpoints.close();
    const message = `cannot own a part on ${hostname()}: ${e instanceof Error ? e.message : String(e)}`;
    ready(message);
    throw new Error(message);
  }

  // Batches for this owner, whenever they come; one of another level or attempt (a redelivery) is dropped.
  let arrived: () => void = () => {};
  const taken = new Set<number>();
  const consumer = await js.consumers.get(n.stream, n.consumerFor(offer.index));
  const messages = await consumer.consume({ max_messages: 256 });
  const consuming = (async () => {
    for await (const m of messages) {
      const [l, a] = (m.headers?.get('Nats-Msg-Id') ?? '').split('.').map(Number);
      if (l === receiving && a === attempt && !taken.has(m.seq)) {
        taken.add(m.seq);
        owner.receive(m.data);
        arrived();
      }
      m.ack();
    }
  })();

  let lastFromDriver = Date.now();
  const driverBeat = nc.subscribe(n.driver, {
    callback: (_e, m) => {
      if (new TextDecoder().decode(m.data) === offer.session) lastFromDriver = Date.now();
      else stopRun(new Error('another driver resumed the run'));
    },
  });
  // A reset names the attempt it ends: one that comes late, after the roll-back, is for an attempt no longer run.
  const resets = nc.subscribe(n.reset, {
    callback: (_e, m) => {
      if (new TextDecoder().decode(m.data) !== String(attempt)) return;
      interrupted = true;
      arrived();
      resetNow();
    },
  });
  let stopRun: (why: Error) => void = () => {};
  const abandoned = new Promise<never>((_, reject) => (stopRun = reject));
  const beat = setInterval(() => {
    nc.publish(n.alive(offer.index));
    if (Date.now() - lastFromDriver > offer.silenceSeconds * 1000) stopRun(new Error(`the driver has been silent for ${offer.silenceSeconds} s`));
  }, HEARTBEAT_SECONDS * 1000);
  nc.publish(n.alive(offer.index));

  /** Saves the level just ranked, for a rollback to it. */
  const checkpoint = async (): Promise<void> => {
    await checkpoints.put(n.checkpoint(offer.index, receiving), owner.levelDelta());
  };
  const check = (): void => {
    if (interrupted) throw new Interrupted('interrupted by the driver');
  };
  /**
   * Work on a level done a slice at a time: a share of 10^8 states takes minutes, and the heartbeat must
   * go on. `interruptible`: the driver may stop it between slices (not ranking, which leaves the owner's
   * tables half changed: the level is taken in whole once begun).
   */
  const inSlices = async <R>(work: Sliced<R>, interruptible: boolean): Promise<R> => {
    while (!work.step(performance.now() + SLICE_MS)) {
      await new Promise((resolve) => setImmediate(resolve));
      if (interruptible) check();
    }
    return work.report();
  };

  const handlers: Record<string, (body: Record<string, unknown>, attachment: Uint8Array) => Promise<{ body: Record<string, unknown>; attachment?: Uint8Array }>> = {
    start: async (body) => {
      const initials = (body.initials as (Omit<InitialState, 'bytes'> & { bytes: string })[]).map((s) => ({ ...s, bytes: new Uint8Array(Buffer.from(s.bytes, 'base64')) }));
      owner.start(initials);
      await checkpoint();
      return { body: {} };
    },
    expand: async (body) => {
      level = body.level as number;
      seq = 0;
      publishFailed = null;
      const expansion = owner.startExpanding();
      try {
        for (;;) {
          check();
          const end = expansion.step(performance.now() + SLICE_MS);
          // Let the stored acknowledgements, the heartbeat and this owner's own incoming batches in.
          while (unacked.size > MAX_UNACKED && !interrupted) await Promise.race([...unacked, reset]);
          await new Promise((resolve) => setImmediate(resolve));
          if (end) break;
        }
      } finally {
        // Everything sent is stored before the reply (a batch of an attempt rolled back is dropped by its
        // receiver, whenever it comes).
        await Promise.race([Promise.allSettled([...unacked]), reset]);
      }
      if (publishFailed !== null) throw publishFailed;
      return { body: { ...expansion.report() } };
    },
    absorb: async (body) => {
      const expected = body.expected as number;
      while (owner.batchesReceived < expected) {
        check();
        await new Promise<void>((resolve) => (arrived = resolve));
      }
      check();
      if (owner.batchesReceived > expected) throw new Error(`owner ${offer.index} took in ${owner.batchesReceived} batches of the ${expected} sent to it`);
      const r = await inSlices(owner.startAbsorbing(), true);
      const keys = bytesOf(r.keys);
      const { keys: _, ...rest } = r;
      if (keys.length <= MAX_INLINE_BYTES) return { body: rest, attachment: keys };
      const name = n.keys(offer.index, level);
      await objects.putBlob({ name }, keys);
      return { body: { ...rest, keysObject: name } };
    },
    rank: async (body, attachment) => {
      const bytes = typeof body.ranksObject === 'string' ? await objects.getBlob(body.ranksObject) : attachment;
      if (bytes === null) throw new Error(`the ranks object ${String(body.ranksObject)} is missing from ${n.objects}`);
      await inSlices(owner.startRanking(uint32sOf(bytes)), false);
      taken.clear();
      receiving = level + 1;
      await checkpoint();
      return { body: {} };
    },
    cut: async (body) => ({ body: { ...owner.cut(body.stop as Stop) } }),
    coverage: async () => ({ body: { ...owner.coverage() } }),
    link: async (body) => ({ body: { ...owner.linkOf(body.hi as number, body.lo as number, body.depth as number) } }),
    ping: async () => ({ body: {} }),
    /** Back to the commit of `level`: this owner as its checkpoints of levels 0..level left it. */
    restore: async (body) => {
      const to = body.level as number;
      const deltas: Uint8Array[] = [];
      for (let l = 0; l <= to; l++) {
        const d = await checkpoints.get(n.checkpoint(offer.index, l));
        if (d === null) throw new Error(`the checkpoint of owner ${offer.index} at level ${l} is missing from ${checkpoints.where}`);
        deltas.push(d);
      }
      owner.restore(deltas);
      taken.clear();
      receiving = to;
      level = to;
      attempt = body.attempt as number;
      unacked = new Set();
      publishFailed = null;
      interrupted = false;
      armReset();
      return { body: {} };
    },
    close: async () => ({ body: {} }),
  };

  let closing: () => void = () => {};
  const closed = new Promise<void>((resolve) => (closing = resolve));
  // One request at a time, in the order they came.
  let queue: Promise<void> = Promise.resolve();
  const requests = nc.subscribe(n.requests(offer.index), {
    callback: (_err, m: Msg) => {
      queue = queue.then(async () => {
        const { body, attachment } = open(m.data);
        // A request of another driver's session, or to another worker, is for the owner that driver recruited
        // (this part was handed to another worker when this one was thought lost): this owner gives up.
        if (body.session !== offer.session || body.to !== worker) {
          stopRun(new Error(`part ${offer.index} is owned by another worker now`));
          return;
        }
        const op = body.op as string;
        try {
          const handler = handlers[op];
          if (!handler) throw new Error(`unknown request '${op}'`);
          const reply = await handler(body, attachment);
          m.respond(seal(reply.body, reply.attachment));
          if (op === 'close') closing();
        } catch (e) {
          if (e instanceof Interrupted) owner.abandonLevel();
          // A NATS error (the server restarting, a timeout) is the cluster's, not the model's: the driver rolls back.
          m.respond(seal({ error: e instanceof Error ? e.message : String(e), interrupted: e instanceof Interrupted, transient: isNatsError(e) }));
        }
      });
    },
  });
  ready();
  try {
    await Promise.race([closed, abandoned, consuming.then(() => Promise.reject(new Error('the stream of batches ended')))]);
  } finally {
    clearInterval(beat);
    requests.unsubscribe();
    driverBeat.unsubscribe();
    resets.unsubscribe();
    messages.stop();
    checkpoints.close();
    owner.close();
    log(`run ${offer.run}: owner ${offer.index} done`);
  }
}

/**
 * The work queues a worker takes units from (jobQueue.ts), by the offer's kind: how it runs their units.
 * Loaded when first offered, so a worker that only owns parts of searches never loads the CI.
 */
const QUEUE_RUNNERS: Record<string, (offer: QueueOffer) => Promise<UnitRunner<never, unknown>>> = {
  swarm: async (offer) => (await import('./clusterSwarm.ts')).walkRunner(offer as SwarmOffer),
  ci: async () => (await import('../../ci/clusterPool.ts')).jobRunner(),
};
