/**
 * A small direct-mapped cache of 64-bit fingerprints: each sits at `lo & mask`, and a newer one in the
 * same place evicts it. It holds at most MAX_RECENT entries (256 KB), so it fits a core's L2 cache where
 * a fingerprint table of millions of states does not. Its owner decides what an entry means (a state
 * in the table, a state already reported); a hit is exact because only whole fingerprints are compared.
 *
 * A BFS successor is mostly a state seen a moment ago, by a sibling or a cousin: on TwoPhase nine
 * lookups in ten find a state already seen, and this cache answers nine in ten of those.
 */
const MAX_RECENT = 1 << 15;

export class RecentFingerprints {
  /** Pairs (hi, lo); (0, 0) is empty, so a fingerprint 0 is kept as (0, 1), as the tables keep it. */
  private entries: Uint32Array;
  private readonly mask: number;

  /** A cache sized for about `states` states: half as many entries, between 16 and MAX_RECENT. */
  constructor(states: number) {
    let entries = 16;
    while (entries < MAX_RECENT && entries * 2 < states) entries *= 2;
    this.mask = entries - 1;
    this.entries = new Uint32Array(2 * entries);
  }

  get bytes(): number {
    return this.entries.byteLength;
  }

  has(hi: number, lo: number): boolean {
    if (hi === 0 && lo === 0) lo = 1;
    const r = 2 * (lo & this.mask);
    return this.entries[r] === hi && this.entries[r + 1] === lo;
  }

  remember(hi: number, lo: number): void {
    if (hi === 0 && lo === 0) lo = 1;
    const r = 2 * (lo & this.mask);
    this.entries[r] = hi;
    this.entries[r + 1] = lo;
  }

  clear(): void {
    this.entries.fill(0);
  }
}
