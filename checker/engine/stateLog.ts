/**
 * Per distinct state, in discovery order: the id of the state it was first reached from, and the step
 * that reached it (action index and parameter ordinal; for an initial state, its index in `init()`).
 * 8 bytes a state, TLC's trace file in memory. A counterexample is the chain of parents walked back from
 * the bad state, then rebuilt forwards by re-running those steps.
 */
export const NO_PARENT = 0xffffffff;

/** Steps pack the action index into the top bits and the parameter ordinal into the rest. */
const ORDINAL_BITS = 22;
export const MAX_ACTIONS = 1 << (32 - ORDINAL_BITS);
export const MAX_ORDINAL = (1 << ORDINAL_BITS) - 1;

export class StateLog {
  private parents = new Uint32Array(1024);
  private steps = new Uint32Array(1024);
  size = 0;

  get bytes(): number {
    return this.parents.byteLength + this.steps.byteLength;
  }

  /** Records a new state and returns its id. */
  add(parent: number, action: number, ordinal: number): number {
    const id = this.size++;
    if (id === this.parents.length) this.grow();
    this.parents[id] = parent;
    this.steps[id] = ((action << ORDINAL_BITS) | ordinal) >>> 0;
    return id;
  }

  /** Forgets every state from id `size` on. */
  truncate(size: number): void {
    this.size = Math.min(this.size, size);
  }

  parentOf(id: number): number {
    return this.parents[id]!;
  }

  actionOf(id: number): number {
    return this.steps[id]! >>> ORDINAL_BITS;
  }

  ordinalOf(id: number): number {
    return this.steps[id]! & MAX_ORDINAL;
  }

  /** Ids from an initial state down to `id`. */
  pathTo(id: number): number[] {
    const path: number[] = [];
    for (let at = id; at !== NO_PARENT; at = this.parents[at]!) path.push(at);
    return path.reverse();
  }

  /** The raw arrays up to `size`, for a checkpoint. */
  snapshot(): { parents: Uint32Array; steps: Uint32Array } {
    return { parents: this.parents.subarray(0, this.size), steps: this.steps.subarray(0, this.size) };
  }

  static restore(parents: Uint32Array, steps: Uint32Array): StateLog {
    const log = new StateLog();
    let cap = 1024;
    while (cap < parents.length) cap *= 2;
    log.parents = new Uint32Array(cap);
    log.steps = new Uint32Array(cap);
    log.parents.set(parents);
    log.steps.set(steps);
    log.size = parents.length;
    return log;
  }

  private grow(): void {
    // Grown by half, not doubled: at 10^8 states a doubling would strand hundreds of megabytes.
    const cap = Math.ceil(this.parents.length * 1.5);
    const parents = new Uint32Array(cap);
    parents.set(this.parents);
    this.parents = parents;
    const steps = new Uint32Array(cap);
    steps.set(this.steps);
    this.steps = steps;
  }
}
