/**
 * The liveness check: the reachable graph with every edge kept (compactly, `graph.ts`), recorded while
 * the breadth-first safety search explores it, or by a pass of its own after a search that could not;
 * then a fair cycle on which each temporal property fails (`fairCycle.ts`), shown as a lasso (`lasso.ts`).
 *
 * For each property, the part of the graph a counterexample lives in:
 * - ◇P: ¬P states reachable from a ¬P initial state through ¬P states;
 * - P ~> Q: ¬Q states reachable through ¬Q states from a reachable P ∧ ¬Q state;
 * - □◇P: every reachable ¬P state;
 * - ◇□P: every reachable state, the component holding a ¬P state (visited again and again).
 * A fair component there is a behaviour that fails the property for ever. Under a CONSTRAINT or an
 * ACTION_CONSTRAINT the graph is the model's, as TLC's behaviour graph is: a step out of the model is in
 * no behaviour, but it still enables its action's fairness (graph.ts), so a state whose steps all leave
 * the model may stutter for ever only where no fair action is enabled.
 */
import type { ActionParams, Model } from '../../../spec/spec.ts';
import type { Property } from '../../../invariants/property.ts';
import { isTemporal } from '../../../invariants/property.ts';
import { INIT_ACTION, type Trace, type TraceStep } from '../../../traces/trace.ts';
import type { CheckLabel } from '../label.ts';
import { SpecError, type Expander } from '../expander.ts';
import { type Limits, yieldToEventLoop } from '../limits.ts';
import type { IncompleteReason } from '../result.ts';
import { FairCycleSearch } from './fairCycle.ts';
import { FairnessKeys } from './fairness.ts';
import { GrowableBits } from '../state/growable.ts';
import { StateGraphBuilder, type StateGraph } from './graph.ts';
import { buildLasso, type Lasso } from './lasso.ts';
import { StateIds } from './stateIds.ts';

export interface LivenessStats {
  readonly states: number;
  readonly edges: number;
  readonly fairKeys: number;
  /** Bytes of the graph, predicate bits and id table. */
  readonly bytes: number;
}

export type LivenessOutcome<S> =
  | { readonly kind: 'holds'; readonly stats: LivenessStats }
  | { readonly kind: 'violation'; readonly property: Property<S>; readonly trace: Trace<S>; readonly stats: LivenessStats }
  | { readonly kind: 'incomplete'; readonly reason: IncompleteReason }
  | { readonly kind: 'error'; readonly error: SpecError };

export { livenessRefusal } from './refusal.ts';

/** A limit or a signal came while the fair cycles were looked for. */
class JudgingStopped extends Error {
  constructor(readonly reason: IncompleteReason) {
    super(reason);
  }
}

/**
 * Builds the reachable graph as a breadth-first search visits it: every state numbered in discovery
 * order, every edge with its fairness key, and each temporal property's predicates per state. The
 * safety search feeds it as it goes (`breadthFirst`), so the graph needs no second exploration; the
 * liveness pass below feeds it by itself where the safety search cannot (worker threads, a resumed
 * checkpoint, depth-first). Either way it sees the same states, successors and order.
 */
export class LivenessRecorder<S> {
  private readonly temporal: Property<S>[];
  private readonly keys: FairnessKeys;
  private readonly ids = new StateIds();
  private readonly builder = new StateGraphBuilder();
  // Per property: bit P (its `test`) and, for leadsTo, bit `from`.
  private readonly holds: GrowableBits[];
  private readonly from: GrowableBits[];
  private expanding = 0;
  private source: S | undefined;
  /** The first temporal property that threw: reported once the safety search has found nothing first. */
  private failure: SpecError | undefined;

  constructor(private readonly expander: Expander<S>) {
    this.temporal = expander.model.properties.filter(isTemporal);
    this.keys = new FairnessKeys(expander.actions as never);
    this.holds = this.temporal.map(() => new GrowableBits());
    this.from = this.temporal.map(() => new GrowableBits());
  }

  get states(): number {
    return this.builder.states;
  }

  /** Bytes of the graph, predicate bits and id table. */
  get bytes(): number {
    return this.builder.bytes + this.ids.bytes + this.holds.reduce((n, b) => n + b.bytes, 0) + this.from.reduce((n, b) => n + b.bytes, 0);
  }

  /** The initial state `s`, number `index` of `init()`, just fingerprinted; false if already recorded. */
  initial(s: S, index: number): boolean {
    const { hi, lo } = this.expander;
    if (this.ids.get(hi, lo) >= 0) return false;
    const id = this.builder.addState(-1 - index);
    this.ids.put(hi, lo, id);
    this.evaluate(s, id);
    return true;
  }

  /** The next state in discovery order is being expanded. */
  expand(s: S): void {
    this.builder.beginEdges(this.expanding++);
    this.source = s;
  }

  /** A successor of the state being expanded, just fingerprinted; true if it is a new state. */
  edge(t: S, action: number, params: ActionParams, ordinal: number): boolean {
    const fair = this.keys.idOf(action, params, this.source);
    const { hi, lo } = this.expander;
    let target = this.ids.get(hi, lo);
    const added = target < 0;
    if (added) {
      target = this.builder.states;
      this.ids.put(hi, lo, target);
      this.builder.addState(this.builder.edges);
      this.evaluate(t, target);
    }
    this.builder.addEdge(target, action, ordinal, fair);
    return added;
  }

  /**
   * A successor of the state being expanded, just fingerprinted, that is out of the model (outside the
   * CONSTRAINT, or reached by a step outside the ACTION_CONSTRAINT): no state of the graph, but a fair
   * step enabled here, unless it leads back to the same state (a step an ACTION_CONSTRAINT rules out may
   * change nothing, and such a step enables nothing: fairCycle.ts).
   */
  outOfModel(action: number, params: ActionParams, ordinal: number): void {
    const fair = this.keys.idOf(action, params, this.source);
    if (fair < 0 || this.ids.get(this.expander.hi, this.expander.lo) === this.expanding - 1) return;
    this.builder.addOutOfModelEdge(action, ordinal, fair);
  }

  private evaluate(s: S, id: number): void {
    for (let i = 0; i < this.temporal.length; i++) {
      const p = this.temporal[i]!;
      try {
        this.holds[i]!.set(id, p.test(s));
        if (p.from) this.from[i]!.set(id, p.from(s));
      } catch (e) {
        this.failure ??= new SpecError('property', `property ${p.name} threw`, e);
      }
    }
  }

  /**
   * Once every reachable state has been expanded: a fair cycle on which a temporal property fails, or
   * none; incomplete when a limit or a signal comes while the cycles are looked for.
   */
  judge(label: CheckLabel, limits: Limits): LivenessOutcome<S> {
    if (this.failure) return { kind: 'error', error: this.failure };
    const graph = this.builder.build(this.keys.strongFlags(), this.keys.names);
    const mustStop = (): void => {
      const reason = limits.exceeded(0, this.bytes);
      if (reason !== null) throw new JudgingStopped(reason);
    };
    try {
      return this.findFailing(graph, new FairCycleSearch(graph, mustStop), label);
    } catch (e) {
      if (e instanceof JudgingStopped) return { kind: 'incomplete', reason: e.reason };
      throw e;
    }
  }

  private findFailing(graph: StateGraph, search: FairCycleSearch, label: CheckLabel): LivenessOutcome<S> {
    const stats: LivenessStats = { states: this.builder.states, edges: graph.edgeTarget.length, fairKeys: this.keys.count, bytes: this.bytes };
    /** A state of the model: not the one standing for the steps out of it. */
    const inModel = (u: number) => u !== graph.outside;
    for (let i = 0; i < this.temporal.length; i++) {
      const p = this.temporal[i]!;
      const bitsP = this.holds[i]!;
      const bitsFrom = this.from[i]!;
      const failing = (u: number) => !bitsP.has(u);
      // ◇□P fails on a behaviour that goes anywhere but comes back to a ¬P state for ever.
      const settles = p.kind === 'eventuallyAlways';
      const allowed = settles ? inModel : (u: number) => inModel(u) && failing(u);
      const visited = settles ? failing : () => true;
      const seeds: number[] = [];
      for (let u = 0; u < graph.size; u++) {
        if (!allowed(u)) continue;
        if (p.kind === 'eventually' || settles ? graph.parentEdge[u]! < 0 : p.kind === 'leadsTo' ? bitsFrom.has(u) : true) seeds.push(u);
      }
      const component = search.find(seeds, allowed, visited);
      if (component === null) continue;
      const lasso = buildLasso(graph, seeds, allowed, component, visited);
      const trace = lassoTrace(this.expander, graph, this.ids, lasso, label, p);
      return { kind: 'violation', property: p, trace, stats };
    }
    return { kind: 'holds', stats };
  }
}

/** The liveness pass on its own: explores the reachable graph again, recording it, then judges it. */
export async function checkLiveness<S>(expander: Expander<S>, limits: Limits, label: CheckLabel): Promise<LivenessOutcome<S>> {
  const recorder = new LivenessRecorder(expander);
  let queue: S[] = [];
  let head = 0;
  try {
    for (const [i, s] of expander.initialStates().entries()) {
      // An initial state outside the CONSTRAINT is no state of the model (the search checked it).
      if (!expander.withinConstraint(s)) continue;
      expander.fingerprint(s);
      if (recorder.initial(s, i)) queue.push(s);
    }
    let source: S;
    const visit = (t: S, action: number, params: ActionParams, ordinal: number) => {
      expander.fingerprint(t);
      if (expander.constrained && !expander.admits(source, t)) return recorder.outOfModel(action, params, ordinal);
      if (recorder.edge(t, action, params, ordinal)) queue.push(t);
    };
    while (head < queue.length) {
      const s = queue[head]!;
      queue[head++] = undefined as unknown as S;
      if (head > 65_536 && head * 2 > queue.length) {
        queue = queue.slice(head);
        head = 0;
      }
      recorder.expand(s);
      source = s;
      expander.successors(s, visit, false);
      if (limits.lookDue()) {
        const reason = limits.exceeded(recorder.states, recorder.bytes);
        if (reason !== null) return { kind: 'incomplete', reason };
        if (limits.shouldYield()) await yieldToEventLoop();
      }
    }
  } catch (e) {
    if (e instanceof SpecError) return { kind: 'error', error: e };
    throw e;
  }
  return recorder.judge(label, limits);
}

/** Re-runs the lasso's steps from its initial state; every state is checked against the recorded graph. */
function lassoTrace<S>(expander: Expander<S>, g: StateGraph, ids: StateIds, lasso: Lasso, label: CheckLabel, p: Property<S>): Trace<S> {
  const init = expander.initialStates()[lasso.initIndex] as S;
  const steps: TraceStep<S>[] = [{ index: 0, action: INIT_ACTION, params: {}, state: init }];
  let state = init;
  const take = (e: number) => {
    const a = g.edgeAction[e]!;
    const { next, params } = nthStep(expander, state, a, g.edgeOrdinal[e]!);
    expander.fingerprint(next);
    if (ids.get(expander.hi, expander.lo) !== g.edgeTarget[e]) {
      throw new Error('could not rebuild the lasso: the model is not deterministic (a step led to another state than when the graph was built)');
    }
    return { next, params, action: expander.actions[a]! };
  };
  const all = [...lasso.stem, ...lasso.cycle];
  for (let i = 0; i < all.length; i++) {
    const isClosing = lasso.cycle.length > 0 && i === all.length - 1;
    const { next, params, action } = take(all[i]!);
    if (isClosing) {
      return {
        spec: label.spec,
        ...(label.preset ? { preset: label.preset } : {}),
        params: label.params,
        steps,
        verdict: verdictOf(p),
        loop: { index: lasso.stem.length, action: action.name, params },
      };
    }
    const events = action.describe?.(state, params, next);
    steps.push({ index: steps.length, action: action.name, params, state: next, ...(events ? { events } : {}) });
    state = next;
  }
  return {
    spec: label.spec,
    ...(label.preset ? { preset: label.preset } : {}),
    params: label.params,
    steps,
    verdict: verdictOf(p),
    loop: { index: steps.length - 1 },
  };
}

function verdictOf<S>(p: Property<S>) {
  return { kind: 'liveness' as const, property: p.name, description: p.description };
}

/** The `ordinal`-th parameter choice of action `a` in `s`, and its successor. */
export function nthStep<S>(expander: Expander<S>, s: S, a: number, ordinal: number): { next: S; params: ActionParams } {
  const action = expander.actions[a]!;
  const params: ActionParams = action.params ? [...action.params(s)][ordinal]! : {};
  return { next: action.next(s, params), params };
}
