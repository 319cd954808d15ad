/**
 * Owners in this machine's threads: the partitioned search using its cores. Owner 0 is in the driver's
 * thread, every other in a worker thread of its own (ownerThread.ts), each sending its successor
 * batches straight to the others through MessagePorts (portOwner.ts). The driver's own work (starting
 * levels, merging keys) is small beside a level's, so it shares its thread with an owner rather than
 * keeping one more heap and compiled copy of the model for itself.
 */
import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import type { ModelSource } from '../parallel/coordinator.ts';
import type { OwnerGroup, OwnerLink } from './ownerProtocol.ts';
import type { OwnerAnswer, OwnerRequest, OwnerThreadSetup } from './ownerThread.ts';
import type { SharedPart } from './owner.ts';
import { type PortOwnerOp, type PortOwnerSetup, portOwner } from './portOwner.ts';

export async function threadOwners(count: number, source: ModelSource, symmetry: boolean, deadlock: boolean): Promise<OwnerGroup> {
  // A port for each ordered pair of owners: peers[i][j] is i's end towards j.
  const peers: (MessagePort | null)[][] = Array.from({ length: count }, () => new Array<MessagePort | null>(count).fill(null));
  for (let i = 0; i < count; i++) {
    for (let j = i + 1; j < count; j++) {
      const { port1, port2 } = new MessageChannel();
      peers[i]![j] = port1;
      peers[j]![i] = port2;
    }
  }
  const interrupt = new Int32Array(new SharedArrayBuffer(4));
  const claims = new Int32Array(new SharedArrayBuffer(4 * count));
  const setupOf = (index: number): PortOwnerSetup => ({ modulePath: source.modulePath, params: source.params, symmetry, deadlock, index, owners: count, peers: peers[index]!, interrupt, claims });
  const [here, ...threads] = await Promise.all([
    portOwner(setupOf(0)),
    ...Array.from({ length: count - 1 }, (_, i) => {
      const setup: OwnerThreadSetup = { owner: true, ...setupOf(i + 1) };
      const worker = new Worker(new URL('../parallel/workerEntry.mjs', import.meta.url), { workerData: setup, transferList: setup.peers.filter((p): p is MessagePort => p !== null) });
      return new Promise<Worker>((resolve, reject) => {
        worker.once('message', () => resolve(worker));
        worker.once('error', reject);
      });
    }),
  ]);
  // Each owner's table of states held and its level, shared with the others for the next expansion (they
  // read them; they change only when a level is ranked): a successor its owner holds is not sent, as one
  // thread would not queue it, and an owner done with its own part of a level expands what is left of others'.
  const parts: (SharedPart | null)[] = new Array<SharedPart | null>(count).fill(null);
  const linkOf = (index: number, call: <T>(op: PortOwnerOp, ...args: unknown[]) => Promise<T>, close: () => Promise<void>): OwnerLink => ({
    start: async (initials) => void (parts[index] = await call<SharedPart>('start', initials)),
    expand: () => call('expand', parts),
    absorb: (expected) => call('absorb', expected),
    rank: async (ranks) => void (parts[index] = await call<SharedPart>('rank', ranks)),
    cut: (stop) => call('cut', stop),
    coverage: () => call('coverage'),
    linkOf: (hi, lo, depth) => call('link', hi, lo, depth),
    snapshot: () => call('snapshot'),
    restoreSnapshot: async (snapshot) => void (parts[index] = await call<SharedPart>('restoreSnapshot', snapshot)),
    close,
  });
  const links = [
    linkOf(0, <T>(op: PortOwnerOp, ...args: unknown[]) => here!.answer(op, args) as Promise<T>, async () => here!.close()),
    ...(threads as Worker[]).map((worker, i) => {
      const index = i + 1;
      let next = 0;
      const waiting = new Map<number, { resolve: (r: unknown) => void; reject: (e: Error) => void }>();
      const failed = (e: Error) => {
        for (const w of waiting.values()) w.reject(new Error(`owner thread ${index} failed: ${e.message}`));
        waiting.clear();
      };
      worker.on('message', (a: OwnerAnswer) => {
        const w = waiting.get(a.id);
        waiting.delete(a.id);
        if ('error' in a) w?.reject(new Error(`owner thread ${index}: ${a.error}`));
        else w?.resolve(a.result);
      });
      worker.on('error', failed);
      let exited = false;
      worker.on('exit', (code) => {
        exited = true;
        if (code !== 0) failed(new Error(`exited with code ${code}`));
      });
      const call = <T>(op: PortOwnerOp, ...args: unknown[]): Promise<T> =>
        new Promise<T>((resolve, reject) => {
          const id = next++;
          waiting.set(id, { resolve: resolve as (r: unknown) => void, reject });
          worker.postMessage({ id, op, args } satisfies OwnerRequest);
        });
      return linkOf(index, call, async () => {
        // The owner closes its records file first: a file is the process's, not the thread's, and a thread
        // ended without closing it would keep its disk space until the process ends.
        if (!exited) await call('close').catch(() => {});
        await worker.terminate();
      });
    }),
  ];
  return { links, interrupt: () => Atomics.store(interrupt, 0, 1), close: async () => void (await Promise.all(links.map((l) => l.close()))) };
}
