/**
 * An owner in a worker thread (threadOwners.ts): the same `Owner` as in a cluster's worker process, with
 * a MessagePort to every other owner for the successor batches (their buffers are moved, not copied) and
 * the driver's requests on the thread's own port.
 */
import { type MessagePort, parentPort } from 'node:worker_threads';
import { Expander } from '../expander.ts';
import { importDefinition } from '../../run/loadSpec.ts';
import { layoutOf, type PackedState } from '../state/packed.ts';
import type { ParamValues } from '../../../spec/spec.ts';
import { Owner, type SharedPart } from './owner.ts';
import type { InitialState, Stop } from './ownerProtocol.ts';

export interface OwnerThreadSetup {
  readonly owner: true;
  readonly modulePath: string;
  readonly params: ParamValues;
  readonly symmetry: boolean;
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

/** How long an expansion runs before it looks at the driver's interrupt and takes in the batches come meanwhile. */
const SLICE_MS = 50;

/** A request of the driver, and the answer. */
export interface OwnerRequest {
  readonly id: number;
  readonly op: 'start' | 'expand' | 'absorb' | 'rank' | 'cut' | 'coverage' | 'link' | 'snapshot' | 'restoreSnapshot';
  readonly args: unknown[];
}
export type OwnerAnswer = { readonly id: number; readonly result: unknown } | { readonly id: number; readonly error: string };

export async function runOwnerThread(setup: OwnerThreadSetup): Promise<void> {
  const port = parentPort!;
  const definition = await importDefinition(setup.modulePath);
  const expander = new Expander(definition.build(setup.params), setup.symmetry);
  const layout = layoutOf(expander.initialStates()[0] as unknown as PackedState);
  const owner = new Owner(expander, layout, { index: setup.index, owners: setup.owners, deadlock: setup.deadlock, claims: setup.claims }, (to, batch) => {
    if (to === setup.index) owner.receive(batch);
    else setup.peers[to]!.postMessage(batch, [batch.buffer as ArrayBuffer]);
  });
  let arrived: () => void = () => {};
  for (const peer of setup.peers) {
    peer?.on('message', (batch: Uint8Array) => {
      owner.receive(batch);
      arrived();
    });
  }
  const handlers: Record<OwnerRequest['op'], (...args: never[]) => unknown> = {
    start: (initials: InitialState[]) => {
      owner.start(initials);
      return owner.sharedPart();
    },
    expand: async (parts: (SharedPart | null)[]) => {
      owner.sharePeers(parts);
      const expansion = owner.startExpanding();
      while (!expansion.step(performance.now() + SLICE_MS)) {
        await new Promise((resolve) => setImmediate(resolve));
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
    link: (hi: number, lo: number) => owner.linkOf(hi, lo),
    snapshot: () => owner.snapshot(),
    restoreSnapshot: (snapshot: Uint8Array) => {
      owner.restoreSnapshot(snapshot);
      return owner.sharedPart();
    },
  };
  port.on('message', (m: OwnerRequest | 'close') => {
    if (m === 'close') {
      port.close();
      for (const peer of setup.peers) peer?.close();
      return;
    }
    void (async () => {
      try {
        const result = await (handlers[m.op] as (...args: unknown[]) => unknown)(...m.args);
        port.postMessage({ id: m.id, result } satisfies OwnerAnswer);
      } catch (e) {
        // The model's own errors come back in the reports (an Owner catches them): this is the owner failing.
        port.postMessage({ id: m.id, error: e instanceof Error ? (e.stack ?? e.message) : String(e) } satisfies OwnerAnswer);
      }
    })();
  });
  port.postMessage('ready');
}
