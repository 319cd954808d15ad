/**
 * Owners in this machine's threads: the partitioned search using its cores. The parts are dealt to at
 * most one thread a core: part i to carrier i mod C, carrier 0 being the driver's own thread and each
 * other a worker thread (ownerThread.ts); each part sends its successor batches straight to the others,
 * through its carrier's mailroom (mailroom.ts: one MessagePort between two carriers). The driver's own work (starting levels, merging keys) is small
 * beside a level's, so it shares its thread with owners rather than keeping one more heap and compiled
 * copy of the model for itself.
 *
 * The search does not wait for the threads to load the model: the driver's thread owns every part from
 * the start, and a thread takes its parts over at the first level boundary after it is ready (each
 * part's snapshot, and the carrier's mailroom ports, are handed to it). So a small model is searched before a thread would
 * have loaded it, and a thread that never loads leaves its parts with the driver, the search going on,
 * its limits and signals heard.
 */
import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import type { Expander } from '../expander.ts';
import type { ModelSource } from '../modelSource.ts';
import type { OwnerGroup, OwnerLink } from './ownerProtocol.ts';
import type { OwnerAnswer, OwnerRequest, OwnerThreadSetup } from './ownerThread.ts';
import type { SharedPart } from './owner.ts';
import { type PortOwner, type PortOwnerOp, portOwner } from './portOwner.ts';
import { Mailroom } from './mailroom.ts';

/** Per owner, the depth of the level boundary a worker thread took its part at; null while the driver's thread owns it (the parts it carries, always). */
export type ThreadsJoined = (number | null)[];

/** A worker thread loading the model, then owning the parts handed to it. */
class OwnerThread {
  private readonly worker: Worker;
  private next = 0;
  private readonly waiting = new Map<number, { resolve: (r: unknown) => void; reject: (e: Error) => void }>();
  ready = false;
  failure: Error | null = null;
  private exited = false;
  /** Settles once the thread is ready, or has failed. */
  readonly loaded: Promise<void>;
  private settleLoaded: () => void = () => {};

  constructor(
    /** Its carrier number (1 and on; 0 is the driver's thread). */
    readonly carrier: number,
    setup: OwnerThreadSetup,
  ) {
    this.loaded = new Promise((resolve) => (this.settleLoaded = resolve));
    this.worker = new Worker(new URL('../parallel/workerEntry.mjs', import.meta.url), { workerData: setup });
    this.worker.on('message', (a: OwnerAnswer | 'ready') => {
      if (a === 'ready') {
        this.ready = true;
        this.settleLoaded();
        return;
      }
      const w = this.waiting.get(a.id);
      this.waiting.delete(a.id);
      if ('error' in a) w?.reject(new Error(`owner thread ${carrier}: ${a.error}`));
      else w?.resolve(a.result);
    });
    this.worker.on('error', (e) => this.fail(e));
    this.worker.on('exit', (code) => {
      this.exited = true;
      if (code !== 0) this.fail(new Error(`exited with code ${code}`));
    });
  }

  call<T>(part: number, op: OwnerRequest['op'], args: unknown[], transfer: (MessagePort | ArrayBuffer)[] = []): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<T>((resolve, reject) => {
      const id = this.next++;
      this.waiting.set(id, { resolve: resolve as (r: unknown) => void, reject });
      this.worker.postMessage({ id, part, op, args } satisfies OwnerRequest, transfer);
    });
  }

  /**
   * Ends the thread, once the parts it owns have closed their records files: a file is the process's, not
   * the thread's, and a thread ended without closing it would keep its disk space until the process ends.
   */
  async close(parts: readonly number[]): Promise<void> {
    if (!this.exited && this.ready) await Promise.all(parts.map((part) => this.call(part, 'close', []).catch(() => {})));
    await this.worker.terminate();
  }

  private fail(e: Error): void {
    this.failure ??= new Error(`owner thread ${this.carrier} failed: ${e.message}`);
    this.settleLoaded();
    for (const w of this.waiting.values()) w.reject(this.failure);
    this.waiting.clear();
  }
}

/**
 * `count` owners on `threads` threads at most (the driver's included); `expanderFor` makes the model's
 * expander for each part the driver's thread owns. From the level of depth `waitFromDepth` on, the search
 * waits for the threads still loading (by default never).
 */
export function threadOwners<S>(
  count: number,
  threads: number,
  source: ModelSource,
  expanderFor: () => Expander<S>,
  symmetry: boolean,
  deadlock: boolean,
  waitFromDepth = Infinity,
): OwnerGroup & { readonly threadsJoined: ThreadsJoined } {
  const carriers = Math.max(1, Math.min(count, threads));
  const carrierOf = (part: number): number => part % carriers;
  // A port for each ordered pair of carriers: ports[a][b] is a's end towards b.
  const ports: (MessagePort | null)[][] = Array.from({ length: carriers }, () => new Array<MessagePort | null>(carriers).fill(null));
  for (let a = 0; a < carriers; a++) {
    for (let b = a + 1; b < carriers; b++) {
      const { port1, port2 } = new MessageChannel();
      ports[a]![b] = port1;
      ports[b]![a] = port2;
    }
  }
  // Every carrier's mailroom is in this thread until its thread takes it over.
  const mailrooms: (Mailroom | null)[] = ports.map((p, c) => new Mailroom(c, p, carrierOf));
  const interrupt = new Int32Array(new SharedArrayBuffer(4));
  const claims = new Int32Array(new SharedArrayBuffer(4 * count));
  const shared = { deadlock, owners: count, interrupt, claims };
  const here: (PortOwner | null)[] = Array.from({ length: count }, (_, i) => portOwner({ ...shared, index: i, mail: mailrooms[carrierOf(i)]! }, expanderFor()));
  const workers = Array.from(
    { length: carriers - 1 },
    (_, t) => new OwnerThread(t + 1, { owner: true, modulePath: source.modulePath, params: source.params, symmetry, carrier: t + 1, carriers, ...shared }),
  );
  /** The thread that carries part `i`, or null for the driver's. */
  const threadOf = (i: number): OwnerThread | null => workers[carrierOf(i) - 1] ?? null;
  const threadsJoined: ThreadsJoined = new Array<number | null>(count).fill(null);
  // Each owner's table of states held and its level, shared with the others for the next expansion (they
  // read them; they change only when a level is ranked): a successor its owner holds is not sent, as one
  // thread would not queue it, and an owner done with its own part of a level expands what is left of others'.
  const parts: (SharedPart | null)[] = new Array<SharedPart | null>(count).fill(null);
  const call = <T>(index: number, op: PortOwnerOp, ...args: unknown[]): Promise<T> => {
    const local = here[index];
    return (local ? local.answer(op, args) : threadOf(index)!.call(index, op, args)) as Promise<T>;
  };
  const links = Array.from(
    { length: count },
    (_, index): OwnerLink => ({
      start: async (initials) => void (parts[index] = await call<SharedPart>(index, 'start', initials)),
      expand: () => call(index, 'expand', parts),
      absorb: (expected) => call(index, 'absorb', expected),
      rank: async (ranks) => void (parts[index] = await call<SharedPart>(index, 'rank', ranks)),
      cut: (stop) => call(index, 'cut', stop),
      coverage: () => call(index, 'coverage'),
      linkOf: (hi, lo, depth) => call(index, 'link', hi, lo, depth),
      snapshot: () => call(index, 'snapshot'),
      restoreSnapshot: async (snapshot) => void (parts[index] = await call<SharedPart>(index, 'restoreSnapshot', snapshot)),
      close: async () => here[index]?.close(),
    }),
  );
  /**
   * Every carrier whose thread is ready since the last boundary moves there: its parts, by their
   * snapshots, and its mailroom's ports, which carry no batch between levels.
   */
  const atBoundary = async (depth: number): Promise<void> => {
    if (depth >= waitFromDepth) await Promise.all(workers.map((t) => t.loaded));
    const failed = workers.find((t) => mailrooms[t.carrier] !== null && t.failure !== null);
    if (failed) throw failed.failure;
    await Promise.all(
      workers
        .filter((t) => mailrooms[t.carrier] !== null && t.ready)
        .map(async (t) => {
          const moving = here.flatMap((local, i) => (local !== null && carrierOf(i) === t.carrier ? [i] : []));
          const snapshots = await Promise.all(moving.map((i) => here[i]!.answer('snapshot', []) as Promise<Uint8Array>));
          for (const i of moving) {
            here[i]!.close();
            here[i] = null;
          }
          mailrooms[t.carrier]!.release();
          mailrooms[t.carrier] = null;
          // The first part brings the carrier's ports; the thread takes its requests in the order sent.
          const carried = ports[t.carrier]!;
          await Promise.all(
            moving.map(async (i, k) => {
              const [withPorts, transfer] = k === 0 ? [carried, carried.filter((p): p is MessagePort => p !== null)] : [null, []];
              parts[i] = await t.call<SharedPart>(i, 'adopt', [withPorts, snapshots[k]!], [...transfer, snapshots[k]!.buffer as ArrayBuffer]);
              threadsJoined[i] = depth;
            }),
          );
        }),
    );
  };
  return {
    links,
    atBoundary,
    threadsJoined,
    interrupt: () => Atomics.store(interrupt, 0, 1),
    close: async () => {
      await Promise.all(links.map((l) => l.close()));
      for (const m of mailrooms) m?.close();
      await Promise.all(workers.map((t) => t.close(threadsJoined.flatMap((d, i) => (d !== null && threadOf(i) === t ? [i] : [])))));
    },
  };
}
