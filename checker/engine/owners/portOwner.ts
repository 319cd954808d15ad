/**
 * An owner whose successor batches go to the other owners through MessagePorts (their buffers are moved,
 * not copied), and the driver's requests it answers. The same owner runs in a worker thread
 * (ownerThread.ts) and in the driver's own thread (threadOwners.ts: the driver owns a part, as the
 * packed search's coordinator expands chunks, so N owners take N threads, not N + 1; and it owns a
 * thread's part until that thread has loaded the model).
 */
import type { MessagePort } from 'node:worker_threads';
import type { Expander } from '../expander.ts';
import { layoutOf, type PackedState } from '../state/packed.ts';
import { Owner, type SharedPart } from './owner.ts';
import type { InitialState, Stop } from './ownerProtocol.ts';

export interface PortOwnerSetup {
  readonly deadlock: boolean;
  readonly index: number;
  readonly owners: number;
  /** A port to each owner, by index (null at this owner's own). */
  readonly peers: (MessagePort | null)[];
  /** Set to 1 by the driver to stop the level under way (a limit, a signal). */
  readonly interrupt: Int32Array;
  /** Per owner, the next state of its level not yet claimed (Owner's `claims`). */
  readonly claims: Int32Array;
}

/** What the driver asks of an owner on ports. */
export type PortOwnerOp = 'start' | 'expand' | 'absorb' | 'rank' | 'cut' | 'coverage' | 'link' | 'snapshot' | 'restoreSnapshot' | 'close';

export interface PortOwner {
  readonly answer: (op: PortOwnerOp, args: unknown[]) => Promise<unknown>;
  /** Closes the ports to the other owners and gives back the disk the owner's records take. */
  readonly close: () => void;
  /**
   * Stops listening on the ports to the other owners, open, and gives back the disk the records take:
   * the part moves to another thread, which is handed the ports (at a level boundary, none carries a batch).
   */
  readonly release: () => void;
}

/** How long an expansion runs before it looks at the driver's interrupt and takes in the batches come meanwhile. */
const SLICE_MS = 50;

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

export function portOwner<S>(setup: PortOwnerSetup, expander: Expander<S>): PortOwner {
  const layout = layoutOf(expander.initialStates()[0] as unknown as PackedState);
  const owner = new Owner(expander, layout, { index: setup.index, owners: setup.owners, deadlock: setup.deadlock, claims: setup.claims }, (to, batch) => {
    if (to === setup.index) owner.receive(batch);
    else setup.peers[to]!.postMessage(batch, [batch.buffer as ArrayBuffer]);
  });
  let arrived: () => void = () => {};
  const onBatch = (batch: Uint8Array): void => {
    owner.receive(batch);
    arrived();
  };
  for (const peer of setup.peers) peer?.on('message', onBatch);
  const handlers: Record<PortOwnerOp, (...args: never[]) => unknown> = {
    start: (initials: InitialState[]) => {
      owner.start(initials);
      return owner.sharedPart();
    },
    expand: async (parts: (SharedPart | null)[]) => {
      owner.sharePeers(parts);
      const expansion = owner.startExpanding();
      while (!expansion.step(performance.now() + SLICE_MS)) {
        await nextTurn();
        if (Atomics.load(setup.interrupt, 0) === 1) {
          owner.abandonLevel();
          throw new Error('the level was interrupted by the driver');
        }
      }
      return expansion.report();
    },
    absorb: async (expected: number) => {
      while (owner.batchesReceived < expected) await new Promise<void>((resolve) => (arrived = resolve));
      return owner.absorb();
    },
    rank: (ranks: Uint32Array) => {
      owner.rank(ranks);
      return owner.sharedPart();
    },
    cut: (stop: Stop) => owner.cut(stop),
    coverage: () => owner.coverage(),
    link: (hi: number, lo: number, depth: number) => owner.linkOf(hi, lo, depth),
    snapshot: () => owner.snapshot(),
    restoreSnapshot: (snapshot: Uint8Array) => {
      owner.restoreSnapshot(snapshot);
      return owner.sharedPart();
    },
    close: () => {
      for (const peer of setup.peers) peer?.close();
      owner.close();
    },
  };
  return {
    answer: async (op, args) => {
      // In the driver's thread the request is made beside those to the worker threads: it starts once
      // they are all sent, else this owner's share of a phase would run before the others' began.
      await null;
      return (handlers[op] as (...a: unknown[]) => unknown)(...args);
    },
    close: () => void handlers.close(),
    release: () => {
      for (const peer of setup.peers) peer?.off('message', onBatch);
      owner.close();
    },
  };
}
