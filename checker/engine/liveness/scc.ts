/**
 * Tarjan's strongly connected components, iterative (an explicit call stack: Kafka models have paths
 * far deeper than the JS stack), over the part of a graph a caller allows. Work arrays are allocated
 * once per graph and reset only where a run touched them, because the fair-cycle search runs Tarjan
 * again on ever smaller parts of one SCC.
 */
import type { FairGraph } from './graph.ts';

/** Steps (an edge followed or a state left) between two questions whether to stop: a graph of millions of states takes seconds. */
const STEPS_PER_ASK = 1 << 16;

export class Tarjan {
  private readonly index: Int32Array;
  private readonly low: Int32Array;
  private readonly onStack: Uint8Array;
  private readonly stack: Uint32Array;
  private readonly callNode: Uint32Array;
  private readonly callEdge: Uint32Array;
  private readonly touched: Uint32Array;

  constructor(
    private readonly g: FairGraph,
    /** Asked every STEPS_PER_ASK steps whether to stop; it throws to stop the run (a limit came). */
    private readonly mustStop: () => void = () => {},
  ) {
    const n = g.size;
    this.index = new Int32Array(n).fill(-1);
    this.low = new Int32Array(n);
    this.onStack = new Uint8Array(n);
    this.stack = new Uint32Array(n);
    this.callNode = new Uint32Array(n);
    this.callEdge = new Uint32Array(n);
    this.touched = new Uint32Array(n);
  }

  /**
   * Calls `onComponent` for every SCC of the subgraph induced by `allowed` that is reachable from
   * `roots` (each root must be allowed), in Tarjan's order (sinks first). `members` is reused: copy it
   * to keep it. Returning true from `onComponent` stops the run.
   */
  run(roots: Iterable<number>, allowed: (u: number) => boolean, onComponent: (members: Uint32Array) => boolean): boolean {
    const { edgeStart, edgeTarget } = this.g;
    const { index, low, onStack, stack, callNode, callEdge, touched } = this;
    let counter = 0;
    let sp = 0;
    let nTouched = 0;
    let steps = 0;
    try {
      for (const root of roots) {
        if (index[root] !== -1) continue;
        let depth = 0;
        const enter = (u: number) => {
          index[u] = low[u] = counter++;
          touched[nTouched++] = u;
          stack[sp++] = u;
          onStack[u] = 1;
          callNode[depth] = u;
          callEdge[depth] = edgeStart[u]!;
          depth++;
        };
        enter(root);
        while (depth > 0) {
          if (++steps === STEPS_PER_ASK) {
            steps = 0;
            this.mustStop();
          }
          const u = callNode[depth - 1]!;
          const e = callEdge[depth - 1]!;
          if (e < edgeStart[u + 1]!) {
            callEdge[depth - 1] = e + 1;
            const v = edgeTarget[e]!;
            if (!allowed(v)) continue;
            if (index[v] === -1) enter(v);
            else if (onStack[v] && index[v]! < low[u]!) low[u] = index[v]!;
            continue;
          }
          depth--;
          if (depth > 0) {
            const parent = callNode[depth - 1]!;
            if (low[u]! < low[parent]!) low[parent] = low[u]!;
          }
          if (low[u] === index[u]) {
            let start = sp;
            do {
              start--;
              onStack[stack[start]!] = 0;
            } while (stack[start] !== u);
            const members = stack.subarray(start, sp);
            sp = start;
            if (onComponent(members)) {
              return true;
            }
          }
        }
      }
      return false;
    } finally {
      for (let i = 0; i < nTouched; i++) {
        const u = touched[i]!;
        index[u] = -1;
        onStack[u] = 0;
      }
    }
  }
}
