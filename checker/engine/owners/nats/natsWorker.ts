/**
 * `kmc worker nats://…`: a process that owns part of a driver's search (ownedSearch.ts). It waits in a
 * queue group to be recruited, loads the model the driver names, and answers the driver's requests with
 * an `Owner`: successors go out in batches to their owners' subjects of the run's JetStream stream, and
 * come in from this owner's subject through a durable consumer. Between slices of work it sends a
 * heartbeat; a driver silent for longer than the offer allows ends the run here.
 */
import { hostname } from 'node:os';
import { connect, type JetStreamClient, type NatsConnection, type ObjectStore, type PubAck, type Msg, type Subscription } from 'nats';
import { Expander } from '../../expander.ts';
import { loadSpec } from '../../../run/loadSpec.ts';
import { layoutOf, type PackedLayout, type PackedState } from '../../state/packed.ts';
import type { ParamValues } from '../../../../spec/spec.ts';
import { Owner } from '../owner.ts';
import type { InitialState, Stop } from '../ownerProtocol.ts';
import { bytesOf, open, seal, uint32sOf } from './envelope.ts';
import { HEARTBEAT_SECONDS, MAX_INLINE_BYTES, names, RECRUIT, WORKERS_QUEUE } from './subjects.ts';

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

export async function runWorker(options: WorkerOptions): Promise<void> {
  const log = options.log ?? (() => {});
  const nc = await connect({ servers: options.url, name: `kmc-worker ${hostname()} ${process.pid}`, maxReconnectAttempts: -1 });
  log(`kmc worker ${process.pid} on ${hostname()}: waiting for a run at ${options.url}`);
  let busy = false;
  let finished: () => void = () => {};
  const done = new Promise<void>((resolve) => (finished = resolve));
  const offers: Subscription = nc.subscribe(RECRUIT, {
    queue: WORKERS_QUEUE,
    callback: (_err, m) => {
      if (busy) return m.respond(seal({ busy: true }));
      busy = true;
      const offer = open(m.data).body as unknown as Offer;
      log(`owner ${offer.index} of ${offer.owners} in run ${offer.run}`);
      // The offer is taken once this worker is ready for the driver's first request.
      const ready = (error?: string) => m.respond(seal(error === undefined ? { ok: true, host: hostname(), pid: process.pid } : { error }));
      serveRun(nc, offer, log, ready)
        .catch((e: unknown) => log(`run ${offer.run} ended here: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`))
        .finally(() => {
          busy = false;
          if (options.once) finished();
        });
    },
  });
  const closed = nc.closed();
  await Promise.race([done, closed]);
  offers.unsubscribe();
  if (!nc.isClosed()) await nc.drain();
}

async function serveRun(nc: NatsConnection, offer: Offer, log: (line: string) => void, ready: (error?: string) => void): Promise<void> {
  const n = names(offer.run);
  const js: JetStreamClient = nc.jetstream();
  let expander: Expander<unknown>;
  let layout: PackedLayout;
  let objects: ObjectStore;
  try {
    const { definition } = await loadSpec(offer.spec);
    expander = new Expander(definition.build(offer.params), offer.symmetry);
    layout = layoutOf(expander.initialStates()[0] as unknown as PackedState);
    objects = await js.views.os(n.objects);
  } catch (e) {
    const message = `cannot load the spec ${offer.spec}: ${e instanceof Error ? e.message : String(e)}`;
    ready(message);
    throw new Error(message);
  }

  let level = 0;
  /** The level whose batches this owner takes in: the one after the last it ranked. */
  let receiving = 0;
  let seq = 0;
  const unacked = new Set<Promise<PubAck>>();
  const owner = new Owner(expander, layout, { index: offer.index, owners: offer.owners, deadlock: offer.deadlock }, (to, batch) => {
    const ack = js.publish(n.batchesFor(to), batch, { msgID: `${level}.${offer.index}.${to}.${seq++}` });
    unacked.add(ack);
    void ack.then(
      () => unacked.delete(ack),
      () => {},
    );
  });

  // Batches for this owner, whenever they come; a batch of another level (a redelivery) is dropped.
  let arrived: () => void = () => {};
  const taken = new Set<number>();
  const consumer = await js.consumers.get(n.stream, n.consumerFor(offer.index));
  const messages = await consumer.consume({ max_messages: 256 });
  const consuming = (async () => {
    for await (const m of messages) {
      const id = m.headers?.get('Nats-Msg-Id') ?? '';
      if (Number(id.split('.')[0]) === receiving && !taken.has(m.seq)) {
        taken.add(m.seq);
        owner.receive(m.data);
        arrived();
      }
      m.ack();
    }
  })();

  let lastFromDriver = Date.now();
  const driverBeat = nc.subscribe(n.driver, { callback: () => (lastFromDriver = Date.now()) });
  let stopRun: (why: Error) => void = () => {};
  const abandoned = new Promise<never>((_, reject) => (stopRun = reject));
  const beat = setInterval(() => {
    nc.publish(n.alive(offer.index));
    if (Date.now() - lastFromDriver > offer.silenceSeconds * 1000) stopRun(new Error(`the driver has been silent for ${offer.silenceSeconds} s`));
  }, HEARTBEAT_SECONDS * 1000);
  nc.publish(n.alive(offer.index));

  const handlers: Record<string, (body: Record<string, unknown>, attachment: Uint8Array) => Promise<{ body: Record<string, unknown>; attachment?: Uint8Array }>> = {
    start: async (body) => {
      const initials = (body.initials as (Omit<InitialState, 'bytes'> & { bytes: string })[]).map((s) => ({ ...s, bytes: new Uint8Array(Buffer.from(s.bytes, 'base64')) }));
      owner.start(initials);
      return { body: {} };
    },
    expand: async (body) => {
      level = body.level as number;
      seq = 0;
      const expansion = owner.startExpanding();
      for (;;) {
        const end = expansion.step(performance.now() + SLICE_MS);
        // Let the stored acknowledgements, the heartbeat and this owner's own incoming batches in.
        while (unacked.size > MAX_UNACKED) await Promise.race(unacked);
        await new Promise((resolve) => setImmediate(resolve));
        if (end) break;
      }
      await Promise.all(unacked);
      return { body: { ...expansion.report() } };
    },
    absorb: async (body) => {
      const expected = body.expected as number;
      while (owner.batchesReceived < expected) await new Promise<void>((resolve) => (arrived = resolve));
      if (owner.batchesReceived > expected) throw new Error(`owner ${offer.index} took in ${owner.batchesReceived} batches of the ${expected} sent to it`);
      const r = owner.absorb();
      const keys = bytesOf(r.keys);
      const { keys: _, ...rest } = r;
      if (keys.length <= MAX_INLINE_BYTES) return { body: rest, attachment: keys };
      const name = `keys.${level}.${offer.index}`;
      await objects.putBlob({ name }, keys);
      return { body: { ...rest, keysObject: name } };
    },
    rank: async (body, attachment) => {
      const bytes = typeof body.ranksObject === 'string' ? await objects.getBlob(body.ranksObject) : attachment;
      if (bytes === null) throw new Error(`the ranks object ${String(body.ranksObject)} is missing from ${n.objects}`);
      owner.rank(uint32sOf(bytes));
      taken.clear();
      receiving = level + 1;
      return { body: {} };
    },
    cut: async (body) => ({ body: { ...owner.cut(body.stop as Stop) } }),
    coverage: async () => ({ body: { ...owner.coverage() } }),
    link: async (body) => ({ body: { ...owner.linkOf(body.hi as number, body.lo as number) } }),
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
        const op = body.op as string;
        try {
          const handler = handlers[op];
          if (!handler) throw new Error(`unknown request '${op}'`);
          const reply = await handler(body, attachment);
          m.respond(seal(reply.body, reply.attachment));
          if (op === 'close') closing();
        } catch (e) {
          m.respond(seal({ error: e instanceof Error ? e.message : String(e) }));
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
    messages.stop();
    log(`run ${offer.run} done`);
  }
}

