/**
 * An owner whose successor batches go to the other owners through its carrier's mailroom (mailroom.ts:
 * directly to the parts on its thread, through MessagePorts to the others, their buffers moved, not
 * copied), and the driver's requests it answers. The same owner runs in a worker thread
 * (ownerThread.ts) and in the driver's own thread (threadOwners.ts: the driver owns a part, so N owners
 * take N threads, not N + 1; and it owns a
 * thread's part until that thread has loaded the model).
 */
import type { Expander } from '../expander.ts';
import { layoutOf, type PackedState } from '../state/packed.ts';
import { Owner, type SharedPart, type Sliced } from './owner.ts';
import type { InitialState, Stop } from './ownerProtocol.ts';
import type { Mailroom } from './mailroom.ts';

export interface PortOwnerSetup {
  readonly deadlock: boolean;
  readonly index: number;
  readonly owners: number;
  /** The mailroom of the carrier this owner is on, through which its batches come and go. */
  readonly mail: Mailroom;
  /** Set to 1 by the driver to stop the level under way (a limit, a signal). */
  readonly interrupt: Int32Array;
  /** Per owner, the next state of its level not yet claimed (Owner's `claims`). */
  readonly claims: Int32Array;
}

/** What the driver asks of an owner on ports. */
export type PortOwnerOp = 'start' | 'expand' | 'absorb' | 'rank' | 'cut' | 'coverage' | 'link' | 'snapshot' | 'restoreSnapshot' | 'close';

export interface PortOwner {
  readonly answer: (op: PortOwnerOp, args: unknown[]) => Promise<unknown>;
  /**
   * Takes no more batches and gives back the disk the owner's records take: the run is over, or the part
   * moves to another thread by its snapshot (at a level boundary, when no batch is on its way).
   */
  readonly close: () => void;
}

/** How long an expansion, or the checking of new states, runs before it looks at the driver's interrupt and takes in the batches come meanwhile. */
const SLICE_MS = 50;

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

export function portOwner<S>(setup: PortOwnerSetup, expander: Expander<S>): PortOwner {
  const layout = layoutOf(expander.initialStates()[0] as unknown as PackedState);
  const owner = new Owner(expander, layout, { index: setup.index, owners: setup.owners, deadlock: setup.deadlock, claims: setup.claims }, (to, batch) => {
    if (to === setup.index) owner.receive(batch);
    else setup.mail.send(to, batch);
  });
  let arrived: () => void = () => {};
  const onBatch = (batch: Uint8Array): void => {
    owner.receive(batch);
    arrived();
  };
  setup.mail.register(setup.index, onBatch);
  /** Runs a phase a slice at a time, between slices taking in the batches come meanwhile and looking at the driver's interrupt. */
  const sliced = async <T>(phase: Sliced<T>): Promise<T> => {
    while (!phase.step(performance.now() + SLICE_MS)) {
      await nextTurn();
      if (Atomics.load(setup.interrupt, 0) === 1) {
        owner.abandonLevel();
        throw new Error('the level was interrupted by the driver');
      }
    }
    return phase.report();
  };
  const handlers: Record<PortOwnerOp, (...args: never[]) => unknown> = {
    start: (initials: InitialState[]) => {
      owner.start(initials);
      return owner.sharedPart();
    },
    expand: async (parts: (SharedPart | null)[]) => {
      owner.sharePeers(parts);
      return await sliced(owner.startExpanding());
    },
    absorb: async (expected: number) => {
      while (owner.batchesReceived < expected) await new Promise<void>((resolve) => (arrived = resolve));
      // The properties of a level's new states may take as long as expanding it: a limit stops this phase too.
      return await sliced(owner.startAbsorbing());
    },
    rank: async (ranks: Uint32Array) => {
      // Not to be interrupted (the level is being committed), but sliced all the same, so the driver's
      // thread hears a signal or its watchdog's question during a level of millions of states.
      const ranking = owner.startRanking(ranks);
      while (!ranking.step(performance.now() + SLICE_MS)) await nextTurn();
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
      setup.mail.unregister(setup.index);
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
  };
}
