/**
 * Builds state graphs by running a model: a counterexample with its neighbourhood (the other successors
 * of each trace state, k hops out, violating states marked), or a small model's whole reachable graph.
 * States are identified by the checker's own fingerprint (under the model's VIEW), so a graph has exactly
 * the states the checker counts. Graphs too big to draw legibly are refused with a way to narrow them.
 */
import type { Model } from '../../spec/spec.ts';
import { canonicalJson, stateVariables, type ItfTrace, type ItfValue } from '../../traces/itf/write.ts';
import { addTransition, newStateGraph, type StateGraph } from '../../traces/render/stateGraph.ts';
import { formatParams, stepsOf, titleOf } from '../../traces/render/steps.ts';
import { paramsToItf } from '../../traces/itf/write.ts';
import { Expander } from './expander.ts';
import { accelerateImmutable } from './immutableAcceleration.ts';
import { UserError } from '../run/userError.ts';

/** Graphviz lays out a few hundred states legibly; beyond that a picture stops helping. */
export const DEFAULT_MAX_GRAPH_STATES = 500;

export interface GraphLimits {
  readonly maxStates?: number;
}

/**
 * The model's states along an ITF trace, found by re-running it: the initial state equal to step 0, then
 * at each step the successor by the recorded action whose variables equal the recorded ones.
 */
export function replayItf<S>(model: Model<S>, itf: ItfTrace, expander = new Expander(model, false)): S[] {
  accelerateImmutable();
  const steps = stepsOf(itf);
  const wanted = steps.map((s) => canonicalJson(s.vars));
  const mismatch = (what: string) =>
    new UserError(
      `The trace does not fit the model ${titleOf(itf)}: ${what}. The trace was probably written by another version of the spec or with other parameters; re-run kmc check to get a fresh trace, or give the matching spec with --spec.`,
    );
  const init = expander.initialStates().find((s) => canonicalJson(stateVariables(s)) === wanted[0]);
  if (init === undefined) throw mismatch('no initial state of the model equals step 0');
  const states: S[] = [init];
  for (let i = 1; i < steps.length; i++) {
    const step = steps[i]!;
    let found: S | undefined;
    expander.successors(states[i - 1]!, (t, a) => {
      if (found === undefined && expander.actions[a]!.name === step.action && canonicalJson(stateVariables(t)) === wanted[i]) found = t;
    }, false);
    if (found === undefined) throw mismatch(`step ${step.index} (${step.label}) is not a successor of step ${steps[i - 1]!.index} in the model`);
    states.push(found);
  }
  return states;
}

/**
 * The trace plus every successor of each trace state, and their successors, up to `hops` steps off the
 * trace. Violating states are marked and not expanded further, as the checker would not expand them.
 */
export function neighbourhoodGraph<S>(model: Model<S>, itf: ItfTrace, hops: number, limits: GraphLimits = {}): StateGraph {
  const maxStates = limits.maxStates ?? DEFAULT_MAX_GRAPH_STATES;
  const expander = new Expander(model, false);
  const states = replayItf(model, itf, expander);
  const steps = stepsOf(itf);
  const verdict = itf['#meta']?.verdict;
  const g = newStateGraph({
    kind: 'neighbourhood',
    title: titleOf(itf),
    actions: expander.actions.map((a) => a.name),
    hops,
    ...(verdict ? { verdict } : {}),
  });
  const keyOf = fingerprintKey(expander);
  let discovered = 0;

  const traceKeys = states.map((s, i) => {
    const key = keyOf(s);
    if (g.hasNode(key)) {
      g.getNodeAttribute(key, 'steps').push(steps[i]!.index);
    } else {
      g.addNode(key, {
        label: `step ${steps[i]!.index}`,
        vars: stateVariables(s),
        initial: i === 0,
        onTrace: true,
        steps: [steps[i]!.index],
        depth: 0,
        ...(i > 0 ? { parent: keyOf(states[i - 1]!) } : {}),
        ...violation(expander, s),
      });
    }
    if (i > 0) {
      const st = steps[i]!;
      addTransition(g, keyOf(states[i - 1]!), key, { action: st.action, params: st.paramsText, label: st.label, onTrace: true, step: st.index });
    }
    return key;
  });
  const last = traceKeys[traceKeys.length - 1]!;
  if (verdict && g.getNodeAttribute(last, 'violates') === undefined) g.setNodeAttribute(last, 'violates', verdict.property);

  let frontier: { key: string; state: S }[] = [];
  const expanded = new Set<string>();
  states.forEach((s, i) => {
    const key = traceKeys[i]!;
    if (!expanded.has(key)) frontier.push({ key, state: s });
    expanded.add(key);
  });
  for (let depth = 1; depth <= hops && frontier.length > 0; depth++) {
    const next: { key: string; state: S }[] = [];
    for (const { key, state } of frontier) {
      if (g.getNodeAttribute(key, 'violates') !== undefined || !expander.withinConstraint(state)) {
        g.setNodeAttribute(key, 'frontier', true);
        continue;
      }
      const traceNext = traceSuccessorsOf(g, key);
      expander.successors(state, (t, a, p) => {
        const action = expander.actions[a]!.name;
        const params = formatParams(paramsToItf(p) as { [name: string]: ItfValue });
        const tKey = keyOf(t);
        // The trace's own transition is already drawn.
        if (traceNext.delete(`${tKey} ${action}(${params})`)) return;
        // As in the reachable graph: a state reached by a ruled-out step is drawn, not expanded.
        const inModel = expander.admits(state, t);
        if (!g.hasNode(tKey)) {
          if (g.order >= maxStates) throw tooLarge(`the neighbourhood of this trace, ${hops} hop(s) out,`, maxStates, neighbourhoodAdvice(hops));
          g.addNode(tKey, { label: `#${++discovered}`, vars: stateVariables(t), initial: false, onTrace: false, steps: [], depth, parent: key, ...violation(expander, t) });
          if (depth === hops || !inModel) g.setNodeAttribute(tKey, 'frontier', true);
          else next.push({ key: tKey, state: t });
        } else if (inModel && depth < hops && g.getNodeAttribute(tKey, 'frontier') === true && !expanded.has(tKey) && g.getNodeAttribute(tKey, 'violates') === undefined) {
          g.mergeNodeAttributes(tKey, { frontier: false });
          next.push({ key: tKey, state: t });
        }
        addTransition(g, key, tKey, { action, params, label: params ? `${action}(${params})` : action, onTrace: false });
      }, false);
    }
    frontier = next;
  }
  return g;
}

/** `target action(params)` of the trace transitions leaving `key`, to recognise them among its successors. */
function traceSuccessorsOf(g: StateGraph, key: string): Set<string> {
  const out = new Set<string>();
  g.forEachOutEdge(key, (_, e, __, target) => {
    if (e.onTrace) out.add(`${target} ${e.action}(${e.params})`);
  });
  return out;
}

/**
 * Every state reachable from the initial states, and every transition between them. Unlike a check,
 * violating states are expanded too: this is a picture of the model, not a search for a bug.
 */
export function reachableGraph<S>(model: Model<S>, label: { spec: string; title?: string }, limits: GraphLimits = {}): StateGraph {
  accelerateImmutable();
  const maxStates = limits.maxStates ?? DEFAULT_MAX_GRAPH_STATES;
  const expander = new Expander(model, false);
  const g = newStateGraph({ kind: 'reachable', title: label.title ?? label.spec, actions: expander.actions.map((a) => a.name) });
  const keyOf = fingerprintKey(expander);
  let queue: { key: string; state: S }[] = [];
  for (const s of expander.initialStates()) {
    const key = keyOf(s);
    if (g.hasNode(key)) continue;
    if (g.order >= maxStates) throw tooLarge(`the reachable state graph of ${label.title ?? label.spec}`, maxStates, REACHABLE_ADVICE);
    g.addNode(key, { label: `#${g.order}`, vars: stateVariables(s), initial: true, onTrace: false, steps: [], depth: 0, ...violation(expander, s) });
    queue.push({ key, state: s });
  }
  for (let depth = 1; queue.length > 0; depth++) {
    const next: { key: string; state: S }[] = [];
    for (const { key, state } of queue) {
      if (!expander.withinConstraint(state)) {
        g.setNodeAttribute(key, 'frontier', true);
        continue;
      }
      expander.successors(state, (t, a, p) => {
        const action = expander.actions[a]!.name;
        const params = formatParams(paramsToItf(p) as { [name: string]: ItfValue });
        const tKey = keyOf(t);
        // A state reached only by steps the constraints rule out is drawn, not expanded (as the check counts it).
        const inModel = expander.admits(state, t);
        if (!g.hasNode(tKey)) {
          if (g.order >= maxStates) throw tooLarge(`the reachable state graph of ${label.title ?? label.spec}`, maxStates, REACHABLE_ADVICE);
          g.addNode(tKey, { label: `#${g.order}`, vars: stateVariables(t), initial: false, onTrace: false, steps: [], depth, parent: key, ...violation(expander, t) });
          if (inModel) next.push({ key: tKey, state: t });
          else g.setNodeAttribute(tKey, 'frontier', true);
        } else if (inModel && g.getNodeAttribute(tKey, 'frontier') === true) {
          // Drawn when a ruled-out step reached it first; a step inside the model reaches it now.
          g.mergeNodeAttributes(tKey, { frontier: false, depth, parent: key });
          next.push({ key: tKey, state: t });
        }
        addTransition(g, key, tKey, { action, params, label: params ? `${action}(${params})` : action, onTrace: false });
      }, false);
    }
    queue = next;
  }
  return g;
}

/**
 * Marks a trace on a graph built from the same model (the reachable graph): its states get their step
 * numbers and its transitions are drawn bold. The trace's verdict becomes the graph's.
 */
export function overlayTrace<S>(g: StateGraph, model: Model<S>, itf: ItfTrace): void {
  const expander = new Expander(model, false);
  const states = replayItf(model, itf, expander);
  const steps = stepsOf(itf);
  const keyOf = fingerprintKey(expander);
  const keys = states.map(keyOf);
  keys.forEach((key, i) => {
    const step = steps[i]!;
    if (!g.hasNode(key)) throw new Error(`overlayTrace: step ${step.index} is not in the graph; the graph was built from another model`);
    g.setNodeAttribute(key, 'onTrace', true);
    g.getNodeAttribute(key, 'steps').push(step.index);
    if (i === 0) return;
    const edge = g.findOutEdge(keys[i - 1]!, key, (_, e) => !e.onTrace && e.action === step.action && e.params === step.paramsText);
    if (edge !== undefined) {
      g.setEdgeAttribute(edge, 'onTrace', true);
      g.setEdgeAttribute(edge, 'step', step.index);
    }
  });
  const verdict = itf['#meta']?.verdict;
  if (verdict) {
    g.mergeAttributes({ verdict });
    const last = keys[keys.length - 1]!;
    if (g.getNodeAttribute(last, 'violates') === undefined) g.setNodeAttribute(last, 'violates', verdict.property);
  }
}

function fingerprintKey<S>(expander: Expander<S>): (s: S) => string {
  return (s) => {
    expander.fingerprint(s);
    return `f${(expander.hi >>> 0).toString(16).padStart(8, '0')}${(expander.lo >>> 0).toString(16).padStart(8, '0')}`;
  };
}

function violation<S>(expander: Expander<S>, s: S): { violates?: string } {
  const i = expander.firstViolation(s);
  return i >= 0 ? { violates: expander.invariants[i]!.name } : {};
}

const REACHABLE_ADVICE =
  'Narrow it: choose smaller parameters (--param, e.g. fewer brokers or a smaller fault budget), draw only a counterexample and its neighbourhood instead (kmc render TRACE --neighbourhood 1), or raise the limit with --max-graph-states N (Graphviz layout slows sharply beyond a few thousand states).';

function neighbourhoodAdvice(hops: number): string {
  return `Narrow it: use fewer hops (--neighbourhood ${Math.max(0, hops - 1)}${hops - 1 === 0 ? ', the trace alone' : ''}), or raise the limit with --max-graph-states N (Graphviz layout slows sharply beyond a few thousand states).`;
}

function tooLarge(what: string, maxStates: number, advice: string): UserError {
  return new UserError(`Not drawing ${what}: it has more than ${maxStates} states, too many for a readable picture. ${advice}`);
}
