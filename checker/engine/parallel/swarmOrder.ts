/**
 * Which finding a swarm reports, the same on every run of one seed however its walks are scheduled
 * (threads, or worker processes on a cluster): the first in the order (run, walk), run 0 of every walk,
 * then run 1 of every walk, and so on.
 *
 * A walk that finds a violation (or an error) in run r bounds every walk: the walks before it may still
 * run up to run r, the ones after it up to run r - 1 (`runsBefore`: the first run a walk is not to
 * start). The walk that comes first is never bounded before its finding, so it always makes it; the
 * others end at their bounds, and one that went past its bound before it heard of it is cut back to it
 * (`reported`), its figures taken from the starts of its runs.
 */
import type { WalkOutcome } from './swarmProtocol.ts';

export class SwarmOrder {
  /** Per walk, the first run it is not to start (in shared memory for threads to read). */
  readonly runsBefore: Int32Array;
  /** Per walk, the run (from 0) it found a violation or an error in, or -1. */
  private readonly foundIn: number[];
  /** The walk whose finding comes first so far, or null. */
  private first: number | null = null;

  constructor(runs: readonly number[], memory: ArrayBufferLike = new SharedArrayBuffer(4 * runs.length)) {
    this.runsBefore = new Int32Array(memory);
    this.runsBefore.set(runs);
    this.foundIn = new Array<number>(runs.length).fill(-1);
  }

  /** Walk `i` found something in run `run`: true when it comes first so far (the other walks' bounds are lowered). */
  found(i: number, run: number): boolean {
    if (this.foundIn[i]! >= 0) return false;
    this.foundIn[i] = run;
    if (this.first !== null && !this.before(i, this.first)) return false;
    this.first = i;
    for (let j = 0; j < this.runsBefore.length; j++) {
      const bound = run + (j <= i ? 1 : 0);
      if (bound < Atomics.load(this.runsBefore, j)) Atomics.store(this.runsBefore, j, bound);
    }
    return true;
  }

  /** Whether walk i's finding comes before walk j's (both found one). */
  before(i: number, j: number): boolean {
    const a = this.foundIn[i]!;
    const b = this.foundIn[j]!;
    return a < b || (a === b && i < j);
  }

  /** The swarm's finding among the walks done: the first in the order (run, walk), or null. */
  winner(outcomes: readonly (WalkOutcome | undefined)[]): number | null {
    let best: number | null = null;
    for (let i = 0; i < outcomes.length; i++) {
      const o = outcomes[i];
      if (o === undefined || (o.status !== 'violation' && o.status !== 'error')) continue;
      // A lasso is told only when its walk is done: found in the last run the walk started.
      this.found(i, o.stats.runs - 1);
      if (best === null || this.before(i, best)) best = i;
    }
    return best;
  }

  /**
   * Walk `i`'s outcome as the swarm reports it: the winner's as it is; any other's as if it had stopped
   * exactly at its bound, whenever the bound reached it. A walk that went past its bound ends there,
   * interrupted, with the figures it had when that run would have started.
   */
  reported(i: number, outcome: WalkOutcome, winner: number | null): WalkOutcome {
    const { runStarts, ...stats } = outcome.stats;
    const bound = this.runsBefore[i]!;
    if (i === winner || runStarts === undefined || outcome.stats.runs <= bound || 2 * bound >= runStarts.length) {
      return runStarts === undefined ? outcome : ({ ...outcome, stats } as WalkOutcome);
    }
    return { status: 'incomplete', reason: 'interrupted', stats: { ...stats, runs: bound, steps: runStarts[2 * bound]!, distinct: runStarts[2 * bound + 1]! } };
  }
}
