/**
 * What runs a NATS server holds, and dropping one. A search's driver deletes its stream and object store
 * when the run ends, but keeps them when it is stopped or killed, so that `--resume-run` can go on; a work
 * queue (`kmc ci --cluster`, `kmc simulate --cluster`) whose driver was killed leaves its two streams. Both
 * stay on the server's disk until someone drops them: `kmc runs <url>` lists them, `--drop` deletes them.
 */
import { connect, type JetStreamClient, type NatsConnection, type StreamInfo } from 'nats';
import { ClusterError } from './clusterError.ts';
import { HEARTBEAT_SECONDS, names, queueNames } from './subjects.ts';
import { openCheckpointStore } from './checkpointStore.ts';

export interface HeldRun {
  readonly run: string;
  /** A partitioned search (`kmc check --cluster`), or a work queue (checks of `kmc ci`, walks of `kmc simulate`). */
  readonly kind: 'search' | 'queue';
  /** When its first stream was made. */
  readonly created: Date;
  /** Bytes its streams and object store hold on the server. */
  readonly bytes: number;
  /** Its driver is at work (its heartbeat was heard). */
  readonly live: boolean;
  /**
   * A search with a commit in NATS: what it searches, and its counts at its last commit (resumable from
   * there), the depth as `kmc check` reports it (the levels that hold a state).
   */
  readonly search?: { readonly spec: string; readonly params: unknown; readonly owners: number; readonly depth: number; readonly distinct: number };
}

const SEARCH = /^KMC_([0-9a-f]{12})$/;
const QUEUE = /^KMC_(?:QUEUE|RESULTS)_([0-9a-f]{12})$/;
const OBJECTS = /^OBJ_kmc-([0-9a-f]{12})$/;

/**
 * How long to listen for drivers' heartbeats (they come every HEARTBEAT_SECONDS): a list, one beat and a
 * margin; before a drop, three beats, since dropping a run at work would end it.
 */
export const LIST_LISTEN_MS = HEARTBEAT_SECONDS * 1000 + 300;
export const DROP_LISTEN_MS = HEARTBEAT_SECONDS * 1000 * 3 + 300;

async function connectTo(url: string): Promise<NatsConnection> {
  try {
    return await connect({ servers: url, name: `kmc runs ${process.pid}` });
  } catch (e) {
    throw new ClusterError(`cannot reach a NATS server at ${url}: ${e instanceof Error ? e.message : String(e)}. Give the address the drivers use (--cluster).`);
  }
}

/** Every run the server at `url` holds, oldest first; at work if its driver's heartbeat comes within `listenMs`. */
export async function heldRuns(url: string, listenMs = LIST_LISTEN_MS): Promise<HeldRun[]> {
  const nc = await connectTo(url);
  try {
    return await runsOn(nc, listenMs);
  } finally {
    await nc.close();
  }
}

async function runsOn(nc: NatsConnection, listenMs: number): Promise<HeldRun[]> {
  // Drivers say they are alive every second on kmc.<run>.driver.
  const heard = new Set<string>();
  const beats = nc.subscribe('kmc.*.driver', { callback: (_e, m) => heard.add(m.subject.split('.')[1]!) });
  const listened = new Promise((resolve) => setTimeout(resolve, listenMs));
  const streams: StreamInfo[] = [];
  try {
    const jsm = await nc.jetstreamManager();
    for await (const s of jsm.streams.list()) streams.push(s);
  } catch (e) {
    beats.unsubscribe();
    throw new ClusterError(`the NATS server cannot list its streams: ${e instanceof Error ? e.message : String(e)}. kmc's runs are JetStream streams: is JetStream on (nats-server -js)?`);
  }
  const runs = new Map<string, { kind: HeldRun['kind']; created: number; bytes: number; objects: boolean }>();
  for (const s of streams) {
    const name = s.config.name;
    const search = SEARCH.exec(name) ?? OBJECTS.exec(name);
    const queue = QUEUE.exec(name);
    const run = (search ?? queue)?.[1];
    if (run === undefined) continue;
    const held = runs.get(run) ?? { kind: queue ? 'queue' : 'search', created: Infinity, bytes: 0, objects: false };
    held.created = Math.min(held.created, Date.parse(s.created));
    held.bytes += s.state.bytes;
    held.objects ||= OBJECTS.test(name);
    runs.set(run, held);
  }
  const js = nc.jetstream();
  const found: HeldRun[] = [];
  for (const [run, held] of runs) {
    // Opened only where it is: opening an object store that is not there makes one.
    const search = held.objects ? await committed(js, run) : undefined;
    found.push({ run, kind: held.kind, created: new Date(held.created), bytes: held.bytes, live: false, ...(search ? { search } : {}) });
  }
  await listened;
  beats.unsubscribe();
  return found.map((r) => (heard.has(r.run) ? { ...r, live: true } : r)).sort((a, b) => a.created.getTime() - b.created.getTime() || a.run.localeCompare(b.run));
}

/** What a search's commit in its object store says, or undefined (none, or not readable). */
async function committed(js: JetStreamClient, run: string): Promise<HeldRun['search']> {
  try {
    const commit = await (await js.views.os(names(run).objects)).getBlob(names(run).commit);
    if (commit === null) return undefined;
    const c = JSON.parse(new TextDecoder().decode(commit)) as { spec: string; params: unknown; owners: number; driver: { depth: number; distinct: number } };
    // The commit's depth is the level to expand next, counted from 0.
    return { spec: c.spec, params: c.params, owners: c.owners, depth: c.driver.depth + 1, distinct: c.driver.distinct };
  } catch {
    return undefined;
  }
}

/**
 * Deletes `held` (a run `heldRuns` listed, not live) from the server at `url`: its streams and object
 * store, and with `checkpointStore` (an `s3://` location it was started with) its checkpoints there.
 */
export async function dropRun(url: string, held: HeldRun, checkpointStore?: string): Promise<void> {
  const nc = await connectTo(url);
  try {
    const jsm = await nc.jetstreamManager();
    const { run } = held;
    const streams = held.kind === 'search' ? [names(run).stream, `OBJ_${names(run).objects}`] : [queueNames(run).stream, queueNames(run).resultsStream];
    // One of them may be gone already (a driver killed while it made them).
    for (const stream of streams) await jsm.streams.delete(stream).catch(() => false);
  } finally {
    await nc.close();
  }
  if (checkpointStore !== undefined && checkpointStore !== 'nats') {
    const store = await openCheckpointStore(checkpointStore, held.run);
    try {
      await store.destroy();
    } finally {
      store.close();
    }
  }
}
