/**
 * Owners in the driver's own process: the partitioned search with nothing between its parts but a
 * function call. They show that the partitioned search is the search in one thread for any number of
 * owners, without a network, and they are what a worker process runs behind its connection (../cluster/).
 */
import type { Expander } from '../expander.ts';
import { layoutOf, type PackedState } from '../state/packed.ts';
import { Owner } from './owner.ts';
import type { OwnerGroup, OwnerLink } from './ownerProtocol.ts';

/**
 * `count` owners, each with an expander of its own (built by `expanderFor`), sending to each other directly.
 * They share memory as owner threads do, and expand one after the other: the first expands its part of a
 * level and then every other's (Owner's `claims`), the others find nothing left. So they run, at its most
 * unbalanced, the path by which owner threads help each other, and show it changes nothing.
 */
export function localOwners<S>(count: number, expanderFor: () => Expander<S>, deadlock: boolean): OwnerGroup {
  const owners: Owner<S>[] = [];
  const claims = new Int32Array(new SharedArrayBuffer(4 * count));
  for (let index = 0; index < count; index++) {
    const expander = expanderFor();
    const layout = layoutOf(expander.initialStates()[0] as unknown as PackedState);
    owners.push(new Owner(expander, layout, { index, owners: count, deadlock, claims }, (to, batch) => owners[to]!.receive(batch)));
  }
  const links = owners.map((o, index): OwnerLink => ({
    start: async (initials) => o.start(initials),
    expand: async () => {
      o.sharePeers(owners.map((peer) => peer.sharedPart()));
      return o.expand();
    },
    absorb: async (expected) => {
      if (o.batchesReceived !== expected) throw new Error(`owner ${index} took in ${o.batchesReceived} batches of the ${expected} sent to it`);
      return o.absorb();
    },
    rank: async (ranks) => o.rank(ranks),
    cut: async (stop) => o.cut(stop),
    coverage: async () => o.coverage(),
    linkOf: async (hi, lo, depth) => o.linkOf(hi, lo, depth),
    snapshot: async () => o.snapshot(),
    restoreSnapshot: async (snapshot) => o.restoreSnapshot(snapshot),
    close: async () => {},
  }));
  return { links, close: async () => owners.forEach((o) => o.close()) };
}
