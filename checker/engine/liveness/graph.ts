/**
 * The reachable state graph as flat typed arrays, the form the fair-cycle search reads: state ids in
 * discovery (BFS) order, edges in compressed sparse rows (CSR). Per edge: its target, the action and the
 * parameter ordinal that produced it (enough to re-run the step when a trace is rebuilt), and its
 * fairness key id (-1 for an unfair step). Which fair keys are enabled in a state needs no store of its
 * own: an enabled action instance always yields an edge, so they are the fair keys of its out-edges.
 * A step out of the model (a successor outside the CONSTRAINT, or a step outside the ACTION_CONSTRAINT)
 * still enables its instance, as TLC's ENABLED knows no constraint: its edge goes to one extra state,
 * `outside`, which stands for every such successor and is in no behaviour of the model.
 * No state object is kept; a state is recovered by re-running the steps of its BFS tree path.
 */
import { GrowableU32, GrowableI32 } from '../state/growable.ts';

/** What the fair-cycle search needs: the shape of the graph and the fairness of its edges. */
export interface FairGraph {
  readonly size: number;
  /** Edges of state `u` are `edgeStart[u] .. edgeStart[u + 1] - 1`. */
  readonly edgeStart: Uint32Array;
  readonly edgeTarget: Uint32Array;
  /** Fairness key id of the edge's action instance, -1 when the action is unfair. */
  readonly edgeFair: Int32Array;
  /** Per fairness key id: 1 for strong fairness, 0 for weak. */
  readonly fairStrong: Uint8Array;
}

/** A `FairGraph` with what a counterexample needs to be rebuilt. */
export interface StateGraph extends FairGraph {
  readonly edgeAction: Uint16Array;
  readonly edgeOrdinal: Uint32Array;
  /** The edge that first reached each state (BFS tree); for an initial state `-1 - index in init()`. */
  readonly parentEdge: Int32Array;
  /** The source state of each edge (the inverse of `edgeStart`, for walking tree paths back). */
  readonly edgeSource: Uint32Array;
  /** Per fairness key id: `action` or `action(key)`, for messages. */
  readonly fairNames: readonly string[];
  /** The state that stands for every successor out of the model (the last), or -1 when no step leaves it. */
  readonly outside: number;
}

/** An edge's target until the graph is built, for a step out of the model. */
const OUT_OF_MODEL = 0xffffffff;

/** Appends states in id order and their edges, then freezes into a `StateGraph`. */
export class StateGraphBuilder {
  private readonly starts = new GrowableU32();
  private readonly targets = new GrowableU32();
  private readonly actions = new GrowableU32();
  private readonly ordinals = new GrowableU32();
  private readonly fair = new GrowableI32();
  private readonly parents = new GrowableI32();
  private open = -1;
  /** The first edge out of the model, or -1. */
  private firstOutEdge = -1;

  get states(): number {
    return this.parents.length;
  }

  get edges(): number {
    return this.targets.length;
  }

  get bytes(): number {
    return this.starts.bytes + this.targets.bytes + this.actions.bytes + this.ordinals.bytes + this.fair.bytes + this.parents.bytes;
  }

  /** A new state with the edge that reached it (or `-1 - initIndex`); returns its id. */
  addState(parentEdge: number): number {
    const id = this.parents.length;
    this.parents.push(parentEdge);
    return id;
  }

  /** Starts the out-edges of `id`; states are expanded in id order. */
  beginEdges(id: number): void {
    if (id !== this.open + 1) throw new Error(`states must be expanded in id order (expected ${this.open + 1}, got ${id})`);
    this.open = id;
    this.starts.push(this.targets.length);
  }

  /** Adds an edge of the open state; returns its index. */
  addEdge(target: number, action: number, ordinal: number, fairKey: number): number {
    const e = this.targets.length;
    this.targets.push(target);
    this.actions.push(action);
    this.ordinals.push(ordinal);
    this.fair.push(fairKey);
    return e;
  }

  /** Adds an edge of the open state to a successor out of the model; returns its index. */
  addOutOfModelEdge(action: number, ordinal: number, fairKey: number): number {
    const e = this.addEdge(OUT_OF_MODEL, action, ordinal, fairKey);
    if (this.firstOutEdge < 0) this.firstOutEdge = e;
    return e;
  }

  build(fairStrong: Uint8Array, fairNames: readonly string[]): StateGraph {
    while (this.open + 1 < this.parents.length) this.beginEdges(this.open + 1);
    // The state out of the model comes last, with no edges of its own.
    const states = this.parents.length;
    const outside = this.firstOutEdge < 0 ? -1 : states;
    const n = outside < 0 ? states : states + 1;
    const m = this.targets.length;
    const edgeStart = new Uint32Array(n + 1);
    edgeStart.set(this.starts.view());
    edgeStart.fill(m, states);
    const edgeSource = new Uint32Array(m);
    for (let u = 0; u < states; u++) edgeSource.fill(u, edgeStart[u]!, edgeStart[u + 1]!);
    const edgeTarget = this.targets.view().slice();
    const parentEdge = new Int32Array(n);
    parentEdge.set(this.parents.view());
    if (outside >= 0) {
      for (let e = 0; e < m; e++) if (edgeTarget[e] === OUT_OF_MODEL) edgeTarget[e] = outside;
      parentEdge[outside] = this.firstOutEdge;
    }
    return {
      size: n,
      edgeStart,
      edgeTarget,
      edgeAction: Uint16Array.from(this.actions.view()),
      edgeOrdinal: this.ordinals.view().slice(),
      edgeFair: this.fair.view().slice(),
      parentEdge,
      edgeSource,
      fairStrong,
      fairNames,
      outside,
    };
  }
}
