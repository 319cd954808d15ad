/**
 * The successors of the state being expanded, with their fingerprints, held until they are looked up
 * together (bfs.ts): the fingerprint table is tens of megabytes, and lookups
 * started together wait for memory at the same time instead of one after another.
 */
export class SuccessorBatch<S> {
  states: (S | undefined)[] = [];
  actionOf = new Int32Array(64);
  ordinalOf = new Int32Array(64);
  /** The successor's position among its parent's successors. */
  indexOf = new Int32Array(64);
  hiOf = new Uint32Array(64);
  loOf = new Uint32Array(64);
  /** A mark per successor, which the search gives its meaning (seen already; to be kept). */
  mark = new Uint8Array(64);
  length = 0;

  push(t: S, action: number, ordinal: number, index: number, hi: number, lo: number, mark: number): void {
    const i = this.length++;
    if (i === this.hiOf.length) this.grow();
    this.states[i] = t;
    this.actionOf[i] = action;
    this.ordinalOf[i] = ordinal;
    this.indexOf[i] = index;
    this.hiOf[i] = hi;
    this.loOf[i] = lo;
    this.mark[i] = mark;
  }

  private grow(): void {
    const cap = this.hiOf.length * 2;
    const more = <A extends Int32Array | Uint32Array | Uint8Array>(a: A, make: (n: number) => A): A => {
      const b = make(cap);
      b.set(a);
      return b;
    };
    this.actionOf = more(this.actionOf, (n) => new Int32Array(n));
    this.ordinalOf = more(this.ordinalOf, (n) => new Int32Array(n));
    this.indexOf = more(this.indexOf, (n) => new Int32Array(n));
    this.hiOf = more(this.hiOf, (n) => new Uint32Array(n));
    this.loOf = more(this.loOf, (n) => new Uint32Array(n));
    this.mark = more(this.mark, (n) => new Uint8Array(n));
  }
}
