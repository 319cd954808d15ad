/**
 * A work queue on the cluster: a driver's units of work handed out to `kmc worker` processes through a
 * JetStream work-queue stream, their results gathered by unit index, so what the driver makes of them
 * does not depend on which worker ran what, or when. The swarm of `kmc simulate --cluster` (walks) and
 * `kmc ci --cluster` (checks) run on it; an offer's `kind` tells a worker how to run the units.
 *
 * A worker takes one unit at a time and renews its ack wait while at it; the unit of a worker that dies is
 * delivered again once that wait passes, so the driver offers its queue again while results are out: idle
 * workers (also ones started later) take such units up. A stop (the caller's, or one a result asks for)
 * makes every worker answer the units it has not started with its runner's `notStarted`.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { AckPolicy, connect, type NatsConnection, RetentionPolicy, StorageType } from 'nats';
import { ClusterError } from './clusterError.ts';
import { open, seal } from './envelope.ts';
import { HEARTBEAT_SECONDS, queueNames, RECONNECT, RECRUIT } from './subjects.ts';
import { onNewStream } from './natsErrors.ts';
import { withinSeconds } from './withinSeconds.ts';
import { closeConnection } from './closeConnection.ts';

/** What a driver offers a worker: to take units from the queue of `run`, run as `kind` says. */
export interface QueueOffer {
  readonly kind: string;
  readonly run: string;
  /** The queue was stopped before this worker joined: it answers every unit as not started. */
  readonly stopped: boolean;
  /** How long the worker may take to get ready (load the spec) before it gives the offer back. */
  readonly loadSeconds: number;
}

export interface QueueOptions<R> {
  /** Seconds to wait for the first worker. */
  readonly waitSeconds: number;
  /** Polled once workers have joined: true stops every worker. */
  readonly shouldStop?: () => boolean;
  /** Told what a unit says while it runs (UnitRunner.run's `tell`), if the driver is there to hear it. */
  readonly onNotice?: (index: number, notice: unknown) => void;
  /** Told each unit's result once, as it comes in; true stops every worker. */
  readonly onResult?: (index: number, result: R) => boolean | void;
  /** Per unit, a bound to tell the workers (UnitRunner.run's `bound`): a swarm's first run not to start. Read as the queue works. */
  readonly bounds?: () => readonly number[];
}

export interface QueueRun<R> {
  /** By unit index. */
  readonly results: readonly R[];
  /** How many workers sent results. */
  readonly workers: number;
}

/** How a worker runs the units of one queue. */
export interface UnitRunner<U, R> {
  /**
   * Runs `unit`; `tell` sends the driver a notice meanwhile (QueueOptions.onNotice); `bound` is the latest
   * bound the driver set the unit (QueueOptions.bounds), Infinity while it has set none.
   */
  run(unit: U, shouldStop: () => boolean, tell: (notice: unknown) => void, bound: () => number): Promise<R>;
  /** The result of a unit taken after the stop. */
  notStarted(unit: U): R;
  close?(): Promise<void>;
}

/**
 * A unit may take minutes: its worker says it is still at it every WORKING_MS (the ack wait is per message,
 * renewed), so the wait needs only to outlast a few of those. It is how long the unit of a worker that died
 * waits before another worker runs it. Nothing holds the renewals back: a check runs in a worker thread,
 * and a walk gives the event loop a turn every 50 ms. (A unit delivered twice is run twice; the driver
 * takes its first result.)
 */
const ACK_WAIT_NS = 15_000_000_000;
const WORKING_MS = 3000;
/** How long a worker waits for a unit before it leaves the queue (a unit delivered again goes to whoever is recruited then). */
const IDLE_MS = 2000;
/** How long a worker tries to have a result stored (the server restarting), and the pause between tries. */
const STORE_TRIES_MS = 30_000;
const STORE_RETRY_MS = 500;
/**
 * How long one try waits for the server to say it stored a part. A part sent while the server restarts gets
 * no answer: with the client's default (5 s) the run waited that long before it tried again. A try that
 * times out after the server did store the part is harmless: each part carries a message id, so the server
 * keeps one copy (its duplicate window is 2 minutes).
 */
const STORE_WAIT_MS = 1000;
/** How often the driver offers its queue again while results are out. */
const RECRUIT_AGAIN_MS = 5000;
/** Busy workers in a row that end a round of offers, and the pause after each. */
const MAX_BUSY = 8;
const BUSY_PAUSE_MS = 50;

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));

/**
 * Runs `units` on the workers that take `offer` (kind and what the runner needs), `what` naming the run in
 * messages ("swarm"). Throws a ClusterError when there is no server, no JetStream or no worker.
 */
export async function runQueue<U, R>(url: string, what: string, offer: { readonly kind: string } & Record<string, unknown>, units: readonly U[], options: QueueOptions<R>): Promise<QueueRun<R>> {
  if (units.length === 0) return { results: [], workers: 0 };
  let nc: NatsConnection;
  try {
    nc = await connect({ servers: url, name: `kmc ${what} driver ${process.pid}`, ...RECONNECT });
  } catch (e) {
    throw new ClusterError(`cannot reach a NATS server at ${url}: ${messageOf(e)}. Start one with JetStream on (nats-server -js).`);
  }
  const run = randomBytes(6).toString('hex');
  const n = queueNames(run);
  const results = new Array<R>(units.length);
  const arrived = new Array<boolean>(units.length).fill(false);
  const workers = new Set<string>();
  let stopped = false;
  let closed = false;
  let poll: NodeJS.Timeout | undefined;
  let stopping: NodeJS.Timeout | undefined;
  let bounding: NodeJS.Timeout | undefined;
  // Said every second while the queue is at work, as a search's driver does: `kmc runs` tells it from one left behind.
  const beat = setInterval(() => nc.publish(n.driver), HEARTBEAT_SECONDS * 1000);
  nc.publish(n.driver);
  try {
    try {
      const jsm = await nc.jetstreamManager();
      await jsm.streams.add({ name: n.stream, subjects: [n.units], retention: RetentionPolicy.Workqueue, storage: StorageType.File });
      await onNewStream(() => jsm.consumers.add(n.stream, { durable_name: n.consumer, ack_policy: AckPolicy.Explicit, ack_wait: ACK_WAIT_NS, max_deliver: -1 }));
      await jsm.streams.add({ name: n.resultsStream, subjects: [n.results], retention: RetentionPolicy.Limits, storage: StorageType.File });
    } catch (e) {
      throw new ClusterError(`the NATS server at ${url} cannot hold the ${what}'s queue: ${messageOf(e)}. kmc needs JetStream: start the server with -js.`);
    }
    let allIn: () => void = () => {};
    let unreadable: (e: unknown) => void = () => {};
    const done = new Promise<void>((resolve, reject) => {
      allIn = resolve;
      unreadable = (e) => reject(new ClusterError(`the ${what} cannot take a result stored on the cluster: ${messageOf(e)}`));
    });
    let pending = units.length;
    // Said again every second until every result is in: a worker that joins after the first stop hears the next.
    const stopAll = () => {
      stopped = true;
      nc.publish(n.stop);
      stopping ??= setInterval(() => nc.publish(n.stop), 1000);
    };
    const parts = new Map<string, Uint8Array[]>();
    /** One message of a result: the result is taken once all its parts are in, the first time it comes. */
    const take = (data: Uint8Array): void => {
      const { body, attachment } = open(data);
      const { index, by, sending, part, count } = body as { index: number; by: string; sending: string; part: number; count: number };
      if (arrived[index]) return;
      // Per sending, not per worker: a unit a worker ran twice (delivered again) may give parts of other sizes.
      const key = `${index} ${by} ${sending}`;
      const got = parts.get(key) ?? new Array<Uint8Array>(count);
      got[part] = attachment;
      if (got.filter(Boolean).length < count) return void parts.set(key, got);
      parts.delete(key);
      arrived[index] = true;
      workers.add(by);
      const result = JSON.parse(decoder.decode(Buffer.concat(got))) as R;
      results[index] = result;
      if (options.onResult?.(index, result) === true) stopAll();
      if (--pending === 0) allIn();
    };
    if (options.onNotice) {
      nc.subscribe(n.notices, {
        callback: (_err, m) => {
          const { index, notice } = open(m.data).body as { index: number; notice: unknown };
          if (!arrived[index]) options.onNotice!(index, notice);
        },
      });
    }
    // The results are read from the stream the server stores them in (an ordered consumer, which goes on
    // from where it was when the driver's connection comes back): none is lost while the driver is away.
    const stored = await (await nc.jetstream().consumers.get(n.resultsStream)).consume();
    // A result that cannot be read ends the queue with an error: it is acknowledged, so none would come after it.
    void (async () => {
      for await (const m of stored) {
        try {
          take(m.data);
        } catch (e) {
          unreadable(e);
        }
      }
    })().catch(() => {});
    if (options.bounds) {
      // Told as soon as they change, and again every second for a worker that joins later.
      let told = '';
      let toldAt = 0;
      bounding = setInterval(() => {
        const bounds = options.bounds!();
        const text = bounds.join();
        if (text === told && Date.now() - toldAt < 1000) return;
        nc.publish(n.bounds, seal({ bounds }));
        told = text;
        toldAt = Date.now();
      }, 50);
    }
    await nc.flush();
    const js = nc.jetstream();
    for (const [index, unit] of units.entries()) await js.publish(n.units, seal({ index, unit }));
    // The queue group hands each offer to one worker, busy or not: a round goes on past busy ones (a moment
    // later: one may be just leaving another queue), and ends when `most` joined, when MAX_BUSY in a row
    // were busy, or when none answered (no worker at all).
    const round = async (most: number): Promise<number> => {
      let joined = 0;
      for (let busy = 0; joined < most && busy < MAX_BUSY && !closed; ) {
        // A worker answers once it is ready, or has failed to be within loadSeconds; with no idle worker
        // there, the request fails at once (no responders).
        const reply = await nc.request(RECRUIT, seal({ ...offer, run, stopped, loadSeconds: options.waitSeconds } satisfies QueueOffer), { timeout: (options.waitSeconds + 5) * 1000 }).catch(() => null);
        const body = reply ? open(reply.data).body : null;
        if (typeof body?.error === 'string') throw new ClusterError(`a worker could not join the ${what}: ${body.error}`);
        if (body?.ok === true) joined++;
        else if (body?.busy !== true) break;
        else if (++busy < MAX_BUSY) await sleep(BUSY_PAUSE_MS);
      }
      return joined;
    };
    // The queue ends once every result is in, whatever offer is still out: an offer made while the server
    // restarts gets no answer, and its request waits out its whole timeout.
    const recruiting = (async (): Promise<void> => {
      const deadline = Date.now() + options.waitSeconds * 1000;
      let joined = 0;
      while ((joined += await round(units.length)) === 0 && Date.now() <= deadline) await sleep(250);
      if (closed) return;
      if (joined === 0) throw new ClusterError(`no worker joined the ${what} at ${url} within ${options.waitSeconds} s. Start some with: kmc worker ${url}`);
      if (options.shouldStop) poll = setInterval(() => options.shouldStop!() && stopAll(), 50);
      for (;;) {
        await sleep(RECRUIT_AGAIN_MS);
        if (closed) return;
        await round(pending);
      }
    })();
    try {
      await Promise.race([done, recruiting]);
    } finally {
      recruiting.catch(() => {}); // a round still under way when the queue ends fails with the connection
    }
  } finally {
    closed = true;
    clearInterval(beat);
    clearInterval(poll);
    clearInterval(stopping);
    clearInterval(bounding);
    for (const stream of [n.stream, n.resultsStream]) {
      try {
        await (await nc.jetstreamManager()).streams.delete(stream);
      } catch {
        // the server went away: nothing of the queue is left to delete that it still holds
      }
    }
    await closeConnection(nc);
  }
  return { results, workers: workers.size };
}

/**
 * A worker's part of a queue: takes units until none comes for IDLE_MS, each run by the runner `prepare`
 * makes (a unit taken after the stop is answered `notStarted`), and publishes each result signed `worker`.
 * `ready` answers the offer, with the reason when the runner cannot be made (a spec that does not load).
 */
export async function takeUnits<U, R>(nc: NatsConnection, offer: QueueOffer, worker: string, ready: (error?: string) => void, prepare: () => Promise<UnitRunner<U, R>>): Promise<void> {
  const n = queueNames(offer.run);
  let runner: UnitRunner<U, R>;
  try {
    runner = await withinSeconds(prepare(), offer.loadSeconds, `it was not ready within ${offer.loadSeconds} s on ${hostname()} (--cluster-wait): what its units need first, such as the spec, did not finish loading`);
  } catch (e) {
    ready(messageOf(e));
    throw e;
  }
  let stopped = offer.stopped;
  const stops = nc.subscribe(n.stop, { callback: () => (stopped = true) });
  let bounds: readonly number[] = [];
  const bounding = nc.subscribe(n.bounds, {
    callback: (_err, m) => {
      try {
        bounds = (open(m.data).body as { bounds: readonly number[] }).bounds;
      } catch {
        // not the driver's: the bounds stay as they were
      }
    },
  });
  try {
    const consumer = await nc.jetstream().consumers.get(n.stream, n.consumer);
    ready();
    for (;;) {
      // The driver deletes the queue once every result is in (a wait under way then fails), and offers it
      // again while results are out: a worker whose wait fails, for whatever reason, can just leave.
      const m = await consumer.next({ expires: IDLE_MS }).catch(() => null);
      if (m === null) break;
      const { index, unit } = open(m.data).body as { index: number; unit: U };
      const working = setInterval(() => m.working(), WORKING_MS);
      try {
        const tell = (notice: unknown): void => nc.publish(n.notices, seal({ index, notice }));
        const result = stopped ? runner.notStarted(unit) : await runner.run(unit, () => stopped, tell, () => bounds[index] ?? Infinity);
        // Acknowledged once the server has stored the result: a unit whose result could not be stored is
        // delivered again after its ack wait, to this worker or another. A queue deleted meanwhile has
        // every result (the driver took this one from another worker): this worker leaves it at once.
        const stored = await publishResult(nc, n.results, n.resultsStream, index, worker, result);
        if (stored === 'queue gone') break;
        if (stored === 'not stored') continue;
        m.ack();
      } finally {
        clearInterval(working);
      }
    }
  } finally {
    stops.unsubscribe();
    bounding.unsubscribe();
    await runner.close?.();
  }
}

/**
 * A result in as many messages as the server's max_payload needs (a check's counterexample may be large),
 * each stored by the server before the next is sent; tried again while the server is away, up to
 * STORE_TRIES_MS. The parts of one sending carry its id, so the driver never joins parts of two.
 */
async function publishResult(nc: NatsConnection, subject: string, stream: string, index: number, by: string, result: unknown): Promise<'stored' | 'not stored' | 'queue gone'> {
  const js = nc.jetstream();
  const bytes = encoder.encode(JSON.stringify(result));
  const size = Math.max(1024, (nc.info?.max_payload ?? 1024 * 1024) - 1024);
  const count = Math.max(1, Math.ceil(bytes.length / size));
  const until = Date.now() + STORE_TRIES_MS;
  const sending = randomBytes(6).toString('hex');
  for (let part = 0; part < count; part++) {
    const message = seal({ index, by, sending, part, count }, bytes.subarray(part * size, (part + 1) * size));
    for (;;) {
      try {
        await js.publish(subject, message, { msgID: `${index}.${sending}.${part}`, timeout: STORE_WAIT_MS });
        break;
      } catch (e) {
        if (await deleted(nc, stream, e)) return 'queue gone';
        if (Date.now() >= until || nc.isClosed()) return 'not stored';
        await sleep(STORE_RETRY_MS);
      }
    }
  }
  return 'stored';
}

/**
 * Whether a result could not be stored because its stream is gone: no stream took it (503) and the server
 * says there is none (404), so the driver has every result and deleted its queue. A server starting again
 * answers 503 too, while its streams are still there: then the result is tried again.
 */
async function deleted(nc: NatsConnection, stream: string, e: unknown): Promise<boolean> {
  if ((e as { code?: string }).code !== '503') return false;
  try {
    await (await nc.jetstreamManager()).streams.info(stream);
    return false;
  } catch (f) {
    return (f as { code?: string }).code === '404';
  }
}
