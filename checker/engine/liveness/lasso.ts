/**
 * A counterexample to a liveness property as a lasso of edges: a stem from an initial state to a state
 * of the fair component, then a cycle inside the component back to that state which takes every fair
 * key taken anywhere in the component and visits, for every weak key enabled in it but never taken, a
 * state where that key is disabled (so the cycle, repeated forever, is itself fair), and a state the
 * property asks to be visited forever (◇□P: a ¬P state). An empty cycle is stuttering: the last state
 * of the stem repeats forever.
 */
import type { StateGraph } from './graph.ts';

export interface Lasso {
  /** The initial state's index in `init()`. */
  readonly initIndex: number;
  /** Edges from the initial state to the loop's first state. */
  readonly stem: readonly number[];
  /** Edges from the loop's first state back to it; empty when the behaviour stutters there. */
  readonly cycle: readonly number[];
}

/**
 * `seeds` are where the failing part starts (e.g. a P-state for P ~> Q); the stem runs through the BFS
 * tree to the seed, then inside `allowed` to the component, whose cycle passes a state `visited` accepts.
 */
export function buildLasso(g: StateGraph, seeds: readonly number[], allowed: (u: number) => boolean, component: Uint32Array, visited: (u: number) => boolean = () => true): Lasso {
  const inC = new Uint8Array(g.size);
  for (const u of component) inC[u] = 1;
  const { edgeStart, edgeTarget, edgeSource } = g;

  // Seed → component, breadth-first inside `allowed` (seeds in id order: the shallowest first).
  const via = new Int32Array(g.size).fill(-2);
  const queue: number[] = [];
  for (const s of seeds) {
    if (via[s] === -2) {
      via[s] = -1;
      queue.push(s);
    }
  }
  let entry = -1;
  for (let head = 0; head < queue.length && entry < 0; head++) {
    const u = queue[head]!;
    if (inC[u]) {
      entry = u;
      break;
    }
    for (let e = edgeStart[u]!; e < edgeStart[u + 1]!; e++) {
      const v = edgeTarget[e]!;
      if (via[v] !== -2 || !allowed(v)) continue;
      via[v] = e;
      queue.push(v);
    }
  }
  if (entry < 0) throw new Error('the fair component is not reachable from the seeds');
  const inner: number[] = [];
  let seed = entry;
  while (via[seed]! >= 0) {
    inner.push(via[seed]!);
    seed = edgeSource[via[seed]!]!;
  }
  inner.reverse();
  const tree: number[] = [];
  let at = seed;
  while (g.parentEdge[at]! >= 0) {
    tree.push(g.parentEdge[at]!);
    at = edgeSource[g.parentEdge[at]!]!;
  }
  tree.reverse();
  return { initIndex: -1 - g.parentEdge[at]!, stem: [...tree, ...inner], cycle: fairCycle(g, component, inC, entry, visited) };
}

function fairCycle(g: StateGraph, component: Uint32Array, inC: Uint8Array, entry: number, visited: (u: number) => boolean): number[] {
  const { edgeStart, edgeTarget, edgeFair } = g;
  // Keys taken inside the component (one edge each), and weak keys enabled in it but never taken.
  const edgeOfKey = new Map<number, number>();
  const enabledSomewhere = new Set<number>();
  for (const u of component) {
    for (let e = edgeStart[u]!; e < edgeStart[u + 1]!; e++) {
      const f = edgeFair[e]!;
      if (f < 0 || edgeTarget[e] === u) continue; // a step back to the same state stutters (fairCycle.ts)
      enabledSomewhere.add(f);
      if (inC[edgeTarget[e]!] && !edgeOfKey.has(f)) edgeOfKey.set(f, e);
    }
  }
  const enabledAt = (u: number, f: number) => {
    for (let e = edgeStart[u]!; e < edgeStart[u + 1]!; e++) if (edgeFair[e] === f && edgeTarget[e] !== u) return true;
    return false;
  };
  const cycle: number[] = [];
  const takenOnCycle = new Set<number>();
  let cur = entry;
  const walk = (isGoal: (u: number) => boolean) => {
    const path = pathInside(g, inC, cur, isGoal);
    for (const e of path) {
      cycle.push(e);
      if (edgeFair[e]! >= 0) takenOnCycle.add(edgeFair[e]!);
    }
    if (path.length > 0) cur = edgeTarget[path[path.length - 1]!]!;
  };
  for (const [f, e] of edgeOfKey) {
    if (takenOnCycle.has(f)) continue;
    const source = g.edgeSource[e]!;
    walk((u) => u === source);
    cycle.push(e);
    takenOnCycle.add(f);
    cur = edgeTarget[e]!;
  }
  // A weak key never taken in the component must be disabled somewhere on the cycle.
  const onCycle = () => [entry, ...cycle.map((e) => edgeTarget[e]!)];
  for (const f of enabledSomewhere) {
    if (edgeOfKey.has(f)) continue;
    if (onCycle().some((u) => !enabledAt(u, f))) continue;
    walk((u) => !enabledAt(u, f));
  }
  if (!onCycle().some(visited)) walk(visited);
  if (cur !== entry) walk((u) => u === entry);
  return cycle;
}

/** Shortest edges from `from` to the first state `isGoal` accepts, inside the component (empty if `from` is one). */
function pathInside(g: StateGraph, inC: Uint8Array, from: number, isGoal: (u: number) => boolean): number[] {
  if (isGoal(from)) return [];
  const { edgeStart, edgeTarget, edgeSource } = g;
  const via = new Map<number, number>([[from, -1]]);
  const queue = [from];
  for (let head = 0; head < queue.length; head++) {
    const u = queue[head]!;
    for (let e = edgeStart[u]!; e < edgeStart[u + 1]!; e++) {
      const v = edgeTarget[e]!;
      if (!inC[v] || via.has(v)) continue;
      via.set(v, e);
      if (isGoal(v)) {
        const path: number[] = [];
        for (let at = v; via.get(at)! >= 0; at = edgeSource[via.get(at)!]!) path.push(via.get(at)!);
        return path.reverse();
      }
      queue.push(v);
    }
  }
  throw new Error('no path inside a strongly connected component');
}
