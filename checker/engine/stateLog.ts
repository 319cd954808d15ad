/**
 * Per distinct state, in discovery order: its fingerprint and the id of the state it was first reached
 * from (TLC's trace file, in memory, 12 bytes a state). A counterexample is the chain of parents walked
 * back from the bad state, then rebuilt forwards by re-executing actions.
 */
export const NO_PARENT = 0xffffffff;

export class StateLog {
  private fp = new Uint32Array(2 * 1024);
  private parents = new Uint32Array(1024);
  size = 0;

  get bytes(): number {
    return this.fp.byteLength + this.parents.byteLength;
  }

  /** Records a new state and returns its id. */
  add(hi: number, lo: number, parent: number): number {
    const id = this.size++;
    if (id === this.parents.length) this.grow();
    this.fp[2 * id] = hi;
    this.fp[2 * id + 1] = lo;
    this.parents[id] = parent;
    return id;
  }

  /** Forgets every state from id `size` on. */
  truncate(size: number): void {
    this.size = Math.min(this.size, size);
  }

  parentOf(id: number): number {
    return this.parents[id]!;
  }

  fingerprintOf(id: number): [number, number] {
    return [this.fp[2 * id]!, this.fp[2 * id + 1]!];
  }

  /** Ids from an initial state down to `id`. */
  pathTo(id: number): number[] {
    const path: number[] = [];
    for (let at = id; at !== NO_PARENT; at = this.parents[at]!) path.push(at);
    return path.reverse();
  }

  private grow(): void {
    const fp = new Uint32Array(this.fp.length * 2);
    fp.set(this.fp);
    this.fp = fp;
    const parents = new Uint32Array(this.parents.length * 2);
    parents.set(this.parents);
    this.parents = parents;
  }
}
