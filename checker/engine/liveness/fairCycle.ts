/**
 * The search for a fair cycle (a Streett-style SCC refinement, as in Emerson–Lei and TLC's liveness
 * checker): in the part of the graph where the property fails, find a strongly connected component C,
 * reachable from the seeds, that a fair behaviour can stay in forever (and, for ◇□P, that holds a ¬P
 * state, which such a behaviour then visits again and again).
 *
 * A behaviour that stays in C and visits all of it, taking every edge of C again and again, is fair iff
 * - every weak key enabled in *every* state of C is taken by some edge inside C (else it stays enabled
 *   and is never taken), and
 * - every strong key enabled in *some* state of C is taken by some edge inside C.
 * Visiting all of C is the best a behaviour inside C can do for weak keys, so a weak failure rules out
 * C and every part of it. A strong key enabled in C but never taken inside it rules out only the states
 * where it is enabled: they are removed and the SCCs of what remains are examined again.
 *
 * Stuttering: every state may repeat forever (TLA+'s `[Next]_vars`), so a single state is a component
 * too; it is fair when no fair key is enabled in it, i.e. only fairness forbids stopping (as in TLC). A
 * deadlocked state with the property failing is therefore a counterexample (it stops for ever).
 *
 * A step from a state to itself changes no variable: fairness is about `<<A>>_vars`, so such a step
 * neither enables its key (`ENABLED <<A>>_vars`) nor discharges it. A key whose only step in a state
 * goes back to it is not owed there, and one with another step there is not paid by the loop.
 */
import type { FairGraph } from './graph.ts';
import { Tarjan } from './scc.ts';

/** How much work the search did, for the report. */
export interface FairCycleStats {
  components: number;
  refinements: number;
}

export class FairCycleSearch {
  private readonly outer: Tarjan;
  private readonly inner: Tarjan;
  private readonly mark: Int32Array;
  private tag = 0;
  private stamp = 0;
  private readonly seenAt: Int32Array;
  private readonly enabledIn: Uint32Array;
  private readonly taken: Uint8Array;
  private readonly bad: Uint8Array;
  private readonly listed: Uint8Array;
  private readonly keys: Uint32Array;
  readonly stats: FairCycleStats = { components: 0, refinements: 0 };

  constructor(
    private readonly g: FairGraph,
    /** Asked now and then whether to stop; it throws to stop the search (see Tarjan). */
    mustStop: () => void = () => {},
  ) {
    this.outer = new Tarjan(g, mustStop);
    this.inner = new Tarjan(g, mustStop);
    this.mark = new Int32Array(g.size);
    const k = g.fairStrong.length;
    this.seenAt = new Int32Array(k);
    this.enabledIn = new Uint32Array(k);
    this.taken = new Uint8Array(k);
    this.bad = new Uint8Array(k);
    this.listed = new Uint8Array(k);
    this.keys = new Uint32Array(k);
  }

  /**
   * A fair component inside the states `allowed` accepts, reachable from `seeds` through them, holding a
   * state `visited` accepts (any, by default); its members (a copy), or null when every fair behaviour
   * from the seeds leaves `allowed` or ends up away from the `visited` states.
   */
  find(seeds: Iterable<number>, allowed: (u: number) => boolean, visited: (u: number) => boolean = () => true): Uint32Array | null {
    let found: Uint32Array | null = null;
    this.outer.run(seeds, allowed, (members) => {
      this.stats.components++;
      found = this.fairPart(members.slice(), visited);
      return found !== null;
    });
    return found;
  }

  /** The first fair component inside `c` (itself or after removing states) that holds a `visited` state, or null. */
  private fairPart(c: Uint32Array, visited: (u: number) => boolean): Uint32Array | null {
    const queue: Uint32Array[] = [c];
    while (queue.length > 0) {
      const d = queue.shift()!;
      // A part with no state to visit holds none of the behaviours looked for, nor do its own parts.
      if (!d.some(visited)) continue;
      const verdict = this.judge(d);
      if (verdict === 'fair') return d;
      if (verdict === 'unfair') continue;
      // Remove every state where a bad strong key is enabled, then split what remains into SCCs.
      this.stats.refinements++;
      const remaining: number[] = [];
      const { edgeStart, edgeTarget, edgeFair } = this.g;
      for (const u of d) {
        let keep = true;
        for (let e = edgeStart[u]!; e < edgeStart[u + 1]! && keep; e++) {
          const f = edgeFair[e]!;
          if (f >= 0 && this.bad[f] && edgeTarget[e] !== u) keep = false;
        }
        if (keep) remaining.push(u);
      }
      this.clearBad(verdict.badKeys);
      if (remaining.length === 0) continue;
      const tag = ++this.tag;
      for (const u of remaining) this.mark[u] = tag;
      this.inner.run(remaining, (u) => this.mark[u] === tag, (members) => {
        queue.push(members.slice());
        return false;
      });
    }
    return null;
  }

  /** Fair, ruled out entirely, or the strong keys that are enabled in `d` but never taken inside it. */
  private judge(d: Uint32Array): 'fair' | 'unfair' | { badKeys: number[] } {
    const { edgeStart, edgeTarget, edgeFair, fairStrong } = this.g;
    const tag = ++this.tag;
    for (const u of d) this.mark[u] = tag;
    let nKeys = 0;
    for (const u of d) {
      const stamp = ++this.stamp;
      for (let e = edgeStart[u]!; e < edgeStart[u + 1]!; e++) {
        const f = edgeFair[e]!;
        // A step back to the same state is a stuttering step: it neither enables its key nor takes it.
        if (f < 0 || edgeTarget[e] === u) continue;
        if (!this.listed[f]) {
          this.listed[f] = 1;
          this.keys[nKeys++] = f;
        }
        if (this.seenAt[f] !== stamp) {
          this.seenAt[f] = stamp;
          this.enabledIn[f]!++;
        }
        if (this.mark[edgeTarget[e]!] === tag) this.taken[f] = 1;
      }
    }
    let weakFailure = false;
    const badKeys: number[] = [];
    for (let i = 0; i < nKeys; i++) {
      const f = this.keys[i]!;
      if (!this.taken[f]) {
        if (fairStrong[f]) badKeys.push(f);
        else if (this.enabledIn[f] === d.length) weakFailure = true;
      }
      this.enabledIn[f] = 0;
      this.taken[f] = 0;
      this.listed[f] = 0;
    }
    if (weakFailure) return 'unfair';
    if (badKeys.length === 0) return 'fair';
    for (const f of badKeys) this.bad[f] = 1;
    return { badKeys };
  }

  private clearBad(keys: number[]): void {
    for (const f of keys) this.bad[f] = 0;
  }
}
