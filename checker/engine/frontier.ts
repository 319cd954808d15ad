/**
 * One BFS level's states waiting to be expanded, with their ids, in discovery order.
 * An array plus a head index: `shift()` is O(1), unlike `Array.prototype.shift`.
 */
export class Frontier<S> {
  private states: (S | undefined)[] = [];
  private ids: number[] = [];
  private head = 0;

  get length(): number {
    return this.states.length;
  }

  get remaining(): number {
    return this.states.length - this.head;
  }

  push(s: S, id: number): void {
    this.states.push(s);
    this.ids.push(id);
  }

  peekState(): S {
    return this.states[this.head]!;
  }

  peekId(): number {
    return this.ids[this.head]!;
  }

  shift(): void {
    this.states[this.head++] = undefined; // let the expanded state be collected
  }

  reset(): void {
    this.states = [];
    this.ids = [];
    this.head = 0;
  }
}
