/**
 * The driver's side of a search on a cluster: a JetStream stream for the run's successor batches (one
 * subject and durable consumer per owner), an object store for large attachments, a checkpoint store (that
 * object store, or S3: checkpointStore.ts), workers recruited from the queue group `kmc worker` processes
 * wait in, and an `OwnerLink` per owner.
 *
 * Failures. Every level each owner saves what it holds of it, and the driver then commits its counts.
 * A worker that falls silent (no heartbeat for `silenceSeconds`) or stops answering makes the driver tell
 * the others to drop what they do, purge the stream, hand the lost part to an idle worker (or, when none
 * comes, to a survivor), roll every owner back to the last commit and redo the level. A driver that is
 * killed leaves the run in NATS: `--resume-run` goes on from its last commit, with as many workers as
 * come (each may own several parts).
 */
import { randomBytes } from 'node:crypto';
import { AckPolicy, connect, type NatsConnection, type ObjectStore, RetentionPolicy, StorageType } from 'nats';
import type { ModelSource } from '../modelSource.ts';
import { BUNDLED_SPECS } from '../../run/registry.ts';
import { type AbsorbReport, type CutReport, type DriverCommit, type ExpandReport, type Link, type OwnerGroup, type OwnerLink, OwnerLost } from '../owners/ownerProtocol.ts';
import { type CheckpointStore, openCheckpointStore } from './checkpointStore.ts';
import { ClusterError } from './clusterError.ts';
import { bytesOf, float64sOf, open, seal } from './envelope.ts';
import { NatsCheckpoints } from './natsCheckpoints.ts';
import { isNatsError, onNewStream } from './natsErrors.ts';
import type { Offer } from './natsWorker.ts';
import { HEARTBEAT_SECONDS, MAX_INLINE_BYTES, names, offersTo, RECONNECT, RECRUIT } from './subjects.ts';
import { changedSources, type SpecIdentity } from './specIdentity.ts';
import { closeConnection } from './closeConnection.ts';

export { ClusterError };

/** The spec as a worker loads it: a bundled spec by name, so each worker loads its own installation's copy; a user's by path. */
export function specForWorkers(source: ModelSource): string {
  return Object.entries(BUNDLED_SPECS).find(([, path]) => path === source.modulePath)?.[0] ?? source.modulePath;
}

/** How long after the driver the workers may take to reconnect and drop their level, beyond the silence allowed. */
const RECONNECT_GRACE_SECONDS = 5;

export interface ClusterSetup {
  readonly symmetry: boolean;
  readonly deadlock: boolean;
  /** The spec as the driver loaded it: the workers' copies must be the same. */
  readonly identity: SpecIdentity;
  /** How long to wait for workers to join. */
  readonly waitSeconds: number;
  /** How long a silent worker, or driver, is given before the run stops. */
  readonly silenceSeconds: number;
  /** Go on with this run from its last commit (its driver was stopped). */
  readonly resumeRun?: string;
  /**
   * Where the run's checkpoints and commits are kept, an s3:// URL (checkpointStore.ts), which the workers
   * are told in their offers; by default, the run's object store in NATS.
   */
  readonly checkpointStore?: string;
  /** Told the run's id once its stream exists, so the user can resume it. */
  readonly onRun?: (run: string) => void;
  /** Told what happens to the cluster: a recovery, a resumption. */
  readonly note?: (line: string) => void;
}

interface Worker {
  readonly id: string;
  readonly label: string;
}

/** What the commit object holds: the driver's counts and what the run is a search of. */
interface CommitRecord {
  readonly owners: number;
  readonly spec: string;
  readonly params: unknown;
  readonly symmetry: boolean;
  readonly deadlock: boolean;
  /** The spec the run is a search of (specIdentity.ts). */
  readonly identity: SpecIdentity;
  readonly driver: DriverCommit;
}

export async function natsOwners(url: string, count: number, source: ModelSource, setup: ClusterSetup): Promise<OwnerGroup> {
  let nc: NatsConnection;
  try {
    nc = await connect({ servers: url, name: `kmc driver ${process.pid}`, ...RECONNECT });
  } catch (e) {
    throw new ClusterError(`cannot reach a NATS server at ${url}: ${e instanceof Error ? e.message : String(e)}. Start one with JetStream on (nats-server -js) or give its address with --cluster nats://host:port.`);
  }
  const spec = specForWorkers(source);
  const run = setup.resumeRun ?? randomBytes(6).toString('hex');
  const n = names(run);
  // A store in S3 first: a bucket that cannot be used stops the run before anything of it is made in NATS.
  let external: CheckpointStore | undefined;
  if (setup.checkpointStore !== undefined) {
    try {
      external = await openCheckpointStore(setup.checkpointStore, run);
      await external.check();
    } catch (e) {
      external?.close();
      await nc.close();
      throw e;
    }
  }
  let objects: ObjectStore;
  let checkpoints: CheckpointStore;
  let resumedFrom: CommitRecord | undefined;
  /** Owner parts: the run's owner count, which a resumed run keeps whatever the workers. */
  let parts = count;
  try {
    const jsm = await nc.jetstreamManager();
    if (setup.resumeRun === undefined) {
      await jsm.streams.add({ name: n.stream, subjects: [n.batches], retention: RetentionPolicy.Workqueue, storage: StorageType.File });
      for (let i = 0; i < count; i++) {
        await onNewStream(() => jsm.consumers.add(n.stream, { durable_name: n.consumerFor(i), filter_subject: n.batchesFor(i), ack_policy: AckPolicy.Explicit, max_ack_pending: 1024 }));
      }
    } else {
      await jsm.streams.info(n.stream).catch(() => {
        throw new ClusterError(`there is no run ${run} at ${url} to resume (no stream ${n.stream}): a run is kept until it ends; start a new one without --resume-run.`);
      });
    }
    objects = await onNewStream(() => nc.jetstream().views.os(n.objects));
    checkpoints = external ?? new NatsCheckpoints(objects, n.objects);
    if (setup.resumeRun !== undefined) {
      const c = await checkpoints.get(n.commit);
      if (c === null) {
        throw new ClusterError(`run ${run} at ${url} has no commit in ${checkpoints.where} to resume from: it stopped before its first level was saved, or it keeps its checkpoints elsewhere (resume it with the --checkpoint-store it was started with). Start it again without --resume-run.`);
      }
      resumedFrom = JSON.parse(new TextDecoder().decode(c)) as CommitRecord;
      if (resumedFrom.spec !== spec || JSON.stringify(resumedFrom.params) !== JSON.stringify(source.params) || resumedFrom.symmetry !== setup.symmetry || resumedFrom.deadlock !== setup.deadlock) {
        throw new ClusterError(`run ${run} is a search of ${resumedFrom.spec} with ${JSON.stringify(resumedFrom.params)}${resumedFrom.symmetry ? ' and symmetry' : ''}, not of ${spec} with ${JSON.stringify(source.params)}: resume it with the same spec, preset, parameters and options.`);
      }
      const then = resumedFrom.identity;
      const changed = then === undefined ? 'its module file differs' : (changedSources(then, setup.identity) ?? (then.rules !== setup.identity.rules ? 'its rules give the initial states other successors' : null));
      if (changed !== null) {
        throw new ClusterError(`run ${run} is a search of ${spec} as it was when the run started, and the spec has changed since (${changed}): its states were reached by the old rules, so going on with the new ones would count neither. Resume it with the spec as it was, or start a new run without --resume-run.`);
      }
      parts = resumedFrom.owners;
      // A driver of this run still at work sends its heartbeats: two drivers would take each other's workers,
      // fail, and delete the run between them.
      if (await heardWithin(nc, n.driver, (2 * HEARTBEAT_SECONDS + 0.5) * 1000)) {
        throw new ClusterError(`run ${run} at ${url} is still at work: its driver is sending heartbeats. Wait for that driver to end (or stop it: it keeps the run), then resume.`);
      }
    }
  } catch (e) {
    external?.close();
    await nc.close();
    if (e instanceof ClusterError) throw e;
    throw new ClusterError(`the NATS server at ${url} cannot hold the run's stream: ${e instanceof Error ? e.message : String(e)}. kmc needs JetStream: start the server with -js (nats-server -js).`);
  }
  setup.onRun?.(run);

  // A request or its reply sent while the connection is down may be lost with it: every request under way
  // when the connection drops fails (the level is rolled back), rather than wait for a reply that never comes.
  const onDisconnect = new Set<() => void>();
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type !== 'disconnect' && s.type !== 'reconnect') continue;
      for (const f of onDisconnect) f();
      onDisconnect.clear();
    }
  })().catch(() => {});

  // Heartbeats both ways.
  const lastHeard = new Array<number>(parts).fill(Date.now());
  const beats = nc.subscribe(n.aliveAny, { callback: (_e, m) => (lastHeard[Number(m.subject.split('.').at(-1))] = Date.now()) });
  const session = randomBytes(6).toString('hex');
  const beat = setInterval(() => nc.publish(n.driver, session), HEARTBEAT_SECONDS * 1000);
  nc.publish(n.driver, session);

  const offerFor = (index: number): Offer => ({
    run,
    index,
    owners: parts,
    spec,
    params: source.params,
    symmetry: setup.symmetry,
    deadlock: setup.deadlock,
    silenceSeconds: setup.silenceSeconds,
    loadSeconds: setup.waitSeconds,
    session,
    identity: setup.identity,
    ...(setup.checkpointStore !== undefined ? { checkpointStore: setup.checkpointStore } : {}),
  });
  /** The worker owning each part. */
  const owners: (Worker | null)[] = new Array<Worker | null>(parts).fill(null);
  let level = resumedFrom?.driver.depth ?? 0;
  let attempt = 0;
  /** Resets repeated while a failed level winds down. */
  let resetting: ReturnType<typeof setInterval> | undefined;
  let last: DriverCommit | undefined = resumedFrom?.driver;

  const teardown = async (keep: boolean): Promise<void> => {
    clearInterval(beat);
    clearInterval(resetting);
    beats.unsubscribe();
    if (!keep) {
      try {
        const jsm = await nc.jetstreamManager();
        await jsm.streams.delete(n.stream);
        // The run's object store, and the checkpoints in it unless they are kept elsewhere.
        await objects.destroy();
      } catch {
        // the server went away: nothing of the run is left to delete that it still holds
      }
      await external?.destroy().catch((e: unknown) => setup.note?.(`the checkpoints of run ${run} are left behind: ${e instanceof Error ? e.message : String(e)}`));
    }
    external?.close();
    await closeConnection(nc);
  };

  /** How long a worker offered a part has to answer: the time it may take to load the spec, and a margin. */
  const answerWithinMs = (setup.waitSeconds + 5) * 1000;
  /** Offers part `index` to an idle worker, until `deadline`; the worker, or null. */
  const recruit = async (index: number, deadline: number): Promise<Worker | null> => {
    while (Date.now() < deadline) {
      // A worker answers once it has loaded the spec, or failed to within the offer's loadSeconds; with no
      // idle worker there, the request fails at once (no responders).
      const reply = await nc.request(RECRUIT, seal({ ...offerFor(index) }), { timeout: answerWithinMs }).catch(() => null);
      const body = reply ? open(reply.data).body : null;
      if (typeof body?.error === 'string') throw joinFailed(body.error);
      if (body?.ok) {
        lastHeard[index] = Date.now();
        return { id: String(body.id), label: `worker ${String(body.id)} (${String(body.host)}, pid ${String(body.pid)})` };
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    return null;
  };
  /** Offers part `index` to a worker that owns another part already. */
  const adopt = async (index: number, worker: Worker): Promise<boolean> => {
    const reply = await nc.request(offersTo(worker.id), seal({ ...offerFor(index) }), { timeout: answerWithinMs }).catch(() => null);
    const body = reply ? open(reply.data).body : null;
    if (typeof body?.error === 'string') throw joinFailed(body.error);
    if (body?.ok) lastHeard[index] = Date.now();
    return Boolean(body?.ok);
  };
  /** A worker's refusal; one that could not load the spec says where a worker looks for it (another says what to do itself). */
  const joinFailed = (error: string) =>
    new ClusterError(
      /^cannot load the spec /.test(error)
        ? `a worker could not join the run: ${error}. A worker loads a bundled spec from its own installation and a spec of yours from the driver's path: run the workers from the same image, with the spec at the same path.`
        : `a worker could not join the run: ${error}`,
    );

  /**
   * Gives every part without a worker one: idle workers first, until the wait is over; then the workers
   * already in the run, round the circle. `needed`: how many idle workers to wait for before sharing.
   */
  const staff = async (needed: number): Promise<void> => {
    const deadline = Date.now() + setup.waitSeconds * 1000;
    let joined = 0;
    for (let index = 0; index < parts; index++) {
      if (owners[index] !== null || joined >= needed) continue;
      const w = await recruit(index, deadline);
      if (w !== null) {
        owners[index] = w;
        joined++;
      }
    }
    const present = [...new Set(owners.filter((w): w is Worker => w !== null))];
    const missing = owners.filter((w) => w === null).length;
    if (joined < needed && (setup.resumeRun === undefined || present.length === 0) && last === undefined) {
      throw new ClusterError(`only ${joined} of ${needed} workers joined the run at ${url} within ${setup.waitSeconds} s. Start ${needed - joined} more with: kmc worker ${url} (one per node), or ask for fewer with --owners ${Math.max(1, joined)}.`);
    }
    if (missing > 0 && present.length === 0) throw new ClusterError(`no worker is left in run ${run} at ${url} and none joined within ${setup.waitSeconds} s: start workers with kmc worker ${url}, then resume with --resume-run ${run}.`);
    let k = 0;
    for (let index = 0; index < parts; index++) {
      if (owners[index] !== null) continue;
      const w = present[k++ % present.length]!;
      if (!(await adopt(index, w))) throw new ClusterError(`${w.label} did not take over part ${index} of run ${run}`);
      owners[index] = w;
      setup.note?.(`part ${index} of run ${run} is owned by ${w.label}, which owns another part too`);
    }
  };

  /** Every part back at the last commit, under a new attempt number (batches of the failed one are dropped). */
  const rollBack = async (): Promise<DriverCommit> => {
    if (last === undefined) throw new ClusterError(`run ${run} lost an owner before its first commit: start it again.`);
    clearInterval(resetting);
    resetting = undefined;
    const jsm = await nc.jetstreamManager();
    await jsm.streams.purge(n.stream);
    attempt++;
    const target = last.depth;
    await Promise.all(links.map((_, i) => call(i, 'restore', { level: target, attempt })));
    level = target;
    return last;
  };

  /** A request to part `index`; an owner that falls silent or stops answering is lost (OwnerLost). */
  const call = async (index: number, op: string, body: Record<string, unknown> = {}, attachment?: Uint8Array): Promise<{ body: Record<string, unknown>; attachment: Uint8Array }> => {
    const who = owners[index]?.label ?? `part ${index}`;
    const lost = (why: string) => new OwnerLost(`${who} ${why}`);
    let watch: ReturnType<typeof setInterval> | undefined;
    let dropped: () => void = () => {};
    const silent = new Promise<never>((_, reject) => {
      watch = setInterval(() => {
        if (Date.now() - lastHeard[index]! > setup.silenceSeconds * 1000) reject(lost(`sent no heartbeat for ${setup.silenceSeconds} s while the driver waited for its '${op}'`));
      }, HEARTBEAT_SECONDS * 1000);
      dropped = () => reject(lost(`may not have had its '${op}', or its answer was lost: the connection to NATS at ${url} dropped`));
      onDisconnect.add(dropped);
    });
    try {
      const request = nc.request(n.requests(index), seal({ op, session, to: owners[index]?.id, ...body }, attachment), { timeout: 24 * 3600 * 1000 }).catch((e: unknown) => {
        throw lost(`did not answer its '${op}' (${e instanceof Error ? e.message : String(e)})`);
      });
      const reply = open((await Promise.race([request, silent])).data);
      if (typeof reply.body.error === 'string') {
        if (reply.body.interrupted === true) throw new OwnerLost(`${who} dropped its '${op}': another owner was lost`);
        if (reply.body.transient === true) throw new OwnerLost(`${who} could not finish its '${op}': ${reply.body.error}`);
        throw new ClusterError(`${who} failed in '${op}': ${reply.body.error}`);
      }
      return reply;
    } finally {
      clearInterval(watch);
      onDisconnect.delete(dropped);
    }
  };

  /** A failure of NATS itself (the server restarting, a timeout) loses the level, not the run. */
  const orLost = async <T>(what: string, f: () => Promise<T>): Promise<T> => {
    try {
      return await f();
    } catch (e) {
      if (isNatsError(e)) throw new OwnerLost(`${what} failed: ${(e as Error).message}`);
      throw e;
    }
  };

  const links = Array.from({ length: parts }, (_, index): OwnerLink => ({
    start: async (initials) => {
      await call(index, 'start', { initials: initials.map((s) => ({ ...s, bytes: Buffer.from(s.bytes).toString('base64') })) });
    },
    expand: async () => (await call(index, 'expand', { level })).body as unknown as ExpandReport,
    absorb: async (expected) =>
      orLost('reading the keys of an owner', async () => {
        const r = await call(index, 'absorb', { expected });
        const keysBytes = typeof r.body.keysObject === 'string' ? await objects.getBlob(r.body.keysObject) : r.attachment;
        if (keysBytes === null) throw new ClusterError(`the keys of part ${index} are missing from the object store`);
        if (typeof r.body.keysObject === 'string') await objects.delete(r.body.keysObject);
        return { ...(r.body as unknown as Omit<AbsorbReport, 'keys'>), keys: float64sOf(keysBytes) };
      }),
    rank: async (ranks) =>
      orLost('sending the ranks of an owner', async () => {
        const bytes = bytesOf(ranks);
        if (bytes.length <= MAX_INLINE_BYTES) return void (await call(index, 'rank', {}, bytes));
        const name = n.ranks(index, level);
        await objects.putBlob({ name }, bytes);
        await call(index, 'rank', { ranksObject: name });
        await objects.delete(name);
      }),
    cut: async (stop) => (await call(index, 'cut', { stop })).body as unknown as CutReport,
    coverage: async () => (await call(index, 'coverage')).body as { enabled: number[]; fired: number[] },
    linkOf: async (hi, lo, depth) => (await call(index, 'link', { hi, lo, depth })).body as unknown as Link,
    close: async () => {
      await call(index, 'close').catch(() => {});
    },
  }));

  try {
    if (resumedFrom !== undefined) {
      setup.note?.(`resuming run ${run} from its commit at depth ${resumedFrom.driver.depth} (${resumedFrom.driver.distinct.toLocaleString('en-US')} states)`);
      await staff(Math.min(count, parts));
      await rollBack();
    } else await staff(parts);
  } catch (e) {
    // The workers recruited so far are let go at once (else they would wait out the driver's silence).
    await Promise.all(owners.map((w, i) => (w === null ? undefined : nc.request(n.requests(i), seal({ op: 'close', session, to: w.id }), { timeout: 2000 }).catch(() => {}))));
    await teardown(setup.resumeRun !== undefined);
    throw e;
  }

  let closed = false;
  return {
    links,
    ...(resumedFrom !== undefined ? { resumedFrom: resumedFrom.driver } : {}),
    commit: async (state) => {
      const record: CommitRecord = { owners: parts, spec, params: source.params, symmetry: setup.symmetry, deadlock: setup.deadlock, identity: setup.identity, driver: state };
      await orLost('saving the commit', () => checkpoints.put(n.commit, new TextEncoder().encode(JSON.stringify(record))));
      last = state;
      level = state.depth;
    },
    // Said again every second until the roll-back: a reset sent while the server restarts can be lost.
    interrupt: () => {
      const ending = String(attempt);
      nc.publish(n.reset, ending);
      resetting ??= setInterval(() => nc.publish(n.reset, ending), HEARTBEAT_SECONDS * 1000);
    },
    recover: async (cause) => {
      // The server may be restarting: the roll-back is tried again until it is back, for as long as a worker is given.
      const deadline = Date.now() + Math.max(setup.waitSeconds, setup.silenceSeconds) * 1000;
      for (;;) {
        try {
          return await recoverOnce(cause);
        } catch (e) {
          if (!(isNatsError(e) || e instanceof OwnerLost) || Date.now() > deadline) throw e;
          await new Promise((resolve) => setTimeout(resolve, 1000));
        }
      }
    },
    close: async (keep, failed) => {
      if (closed) return;
      closed = true;
      // A run that failed after a commit (its workers gone, the server away) is kept to be resumed, as its error says.
      const kept = keep || (failed === true && last !== undefined);
      await Promise.all(links.map((l) => l.close()));
      await teardown(kept);
      if (kept) setup.note?.(`run ${run} is kept on ${url} at its last commit (depth ${last?.depth ?? 0}): go on with --resume-run ${run}`);
    },
  };

  /** Waits until the server answers this driver (a restarting server comes back), or the deadline. */
  async function untilConnected(deadline: number): Promise<void> {
    for (;;) {
      const flushed = await Promise.race([nc.flush().then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 1000))]).catch(() => false);
      if (flushed) return;
      if (Date.now() > deadline) throw new OwnerLost(`the NATS server at ${url} has not answered since the connection dropped`);
    }
  }

  /** Finds the lost workers (those that do not answer a ping), replaces them, and rolls every owner back. */
  async function recoverOnce(cause: OwnerLost): Promise<DriverCommit> {
    const started = performance.now();
    // A worker is lost when it does not answer for as long as a silent worker is given, counted from when
    // this driver can reach NATS again (a restarting server is no lost worker).
    await untilConnected(Date.now() + (setup.silenceSeconds + setup.waitSeconds) * 1000);
    // (Workers reconnect a moment after the driver, and end what they were doing when the reset reaches them.)
    const deadline = Date.now() + (setup.silenceSeconds + RECONNECT_GRACE_SECONDS) * 1000;
    const answers = (i: number, w: Worker): Promise<boolean> =>
      nc.request(n.requests(i), seal({ op: 'ping', session, to: w.id }), { timeout: 1000 }).then(
        () => true,
        () => (Date.now() < deadline ? new Promise<boolean>((resolve) => setTimeout(() => resolve(answers(i, w)), 500)) : false),
      );
    const gone = new Set<string>();
    await Promise.all(
      owners.map(async (w, i) => {
        if (w !== null && !(await answers(i, w))) gone.add(w.id);
      }),
    );
    for (let i = 0; i < parts; i++) if (owners[i] !== null && gone.has(owners[i]!.id)) owners[i] = null;
    setup.note?.(`${cause.message}; ${gone.size} worker${gone.size === 1 ? '' : 's'} lost, rolling back to depth ${last?.depth ?? 0}`);
    await staff(owners.filter((w) => w === null).length);
    const back = await rollBack();
    setup.note?.(`back at depth ${back.depth} (${back.distinct.toLocaleString('en-US')} states) after ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return back;
  }
}

/** Whether anything is published on `subject` within `ms`. */
async function heardWithin(nc: NatsConnection, subject: string, ms: number): Promise<boolean> {
  let heard = false;
  const sub = nc.subscribe(subject, { callback: () => (heard = true) });
  await new Promise((resolve) => setTimeout(resolve, ms));
  sub.unsubscribe();
  return heard;
}
