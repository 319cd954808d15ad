/**
 * The state graph of a counterexample as a graphology graph: states are nodes, transitions are edges.
 * The same shape holds a bare trace (built here, from ITF alone), a trace with its k-hop neighbourhood,
 * or a small model's whole reachable graph (both built by `checker/engine/reachableGraph.ts`, which runs the model).
 * Every exporter (DOT, SVG, GraphML, GEXF, HTML) reads only this.
 */
import { createHash } from 'node:crypto';
import { MultiDirectedGraph } from 'graphology';
import { canonicalJson, type ItfTrace } from '../itf/write.ts';
import type { TraceVerdict } from '../trace.ts';
import type { StateVars } from './fields.ts';
import { actionsOf, stepsOf, titleOf } from './steps.ts';

export interface StateNode {
  /** `step 3` for a trace state, `#17` (discovery order) for any other. */
  readonly label: string;
  readonly vars: StateVars;
  readonly initial: boolean;
  onTrace: boolean;
  /** Trace positions of this state (more than one when a trace revisits it). */
  readonly steps: number[];
  /** Distance from an initial state (or from the trace, for neighbours) along the way it was found. */
  readonly depth: number;
  /** The node this one was first reached from: what its label's changes are relative to. */
  readonly parent?: string;
  /** Name of the invariant this state violates (or `Deadlock` / `Error` at the end of a trace). */
  violates?: string;
  /** `violates` names a step property, which the trace's last step into this state breaks. */
  byStep?: boolean;
  /** The state was found but not expanded (a violation, outside the constraint, or the hop limit). */
  frontier?: boolean;
}

export interface TransitionEdge {
  readonly action: string;
  /** `rm=r1`; empty without parameters. */
  readonly params: string;
  /** `RMPrepare(rm=r1)` */
  readonly label: string;
  onTrace: boolean;
  /** The trace step this transition is, when it is one. */
  step?: number;
}

export interface GraphInfo {
  readonly kind: 'trace' | 'neighbourhood' | 'reachable';
  readonly title: string;
  /** Every action name in colour order (the model's action order when the model was run). */
  readonly actions: readonly string[];
  verdict?: TraceVerdict;
  /** For `neighbourhood`: how many hops from the trace were explored. */
  readonly hops?: number;
}

export type StateGraph = MultiDirectedGraph<StateNode, TransitionEdge, GraphInfo>;

export function newStateGraph(info: GraphInfo): StateGraph {
  const g: StateGraph = new MultiDirectedGraph<StateNode, TransitionEdge, GraphInfo>({ allowSelfLoops: true });
  g.replaceAttributes(info);
  return g;
}

/** Adds an edge with a key from its position (graphology's own keys start at a random number). */
export function addTransition(g: StateGraph, from: string, to: string, edge: TransitionEdge): string {
  return g.addDirectedEdgeWithKey(`e${g.size}`, from, to, edge);
}

/** A key that identifies a state by its content: equal variables give the same node. */
export function contentKey(vars: StateVars): string {
  return `s${createHash('sha1').update(canonicalJson(vars)).digest('hex').slice(0, 16)}`;
}

/** The trace alone: its states in order and the transitions between them, the last state marked. */
export function traceGraph(itf: ItfTrace): StateGraph {
  const steps = stepsOf(itf);
  const verdict = itf['#meta']?.verdict;
  const g = newStateGraph({ kind: 'trace', title: titleOf(itf), actions: actionsOf(steps), ...(verdict ? { verdict } : {}) });
  let prev: string | undefined;
  for (const step of steps) {
    const key = contentKey(step.vars);
    if (g.hasNode(key)) {
      g.getNodeAttribute(key, 'steps').push(step.index);
    } else {
      g.addNode(key, {
        label: `step ${step.index}`,
        vars: step.vars,
        initial: prev === undefined,
        onTrace: true,
        steps: [step.index],
        depth: step.index,
        ...(prev !== undefined ? { parent: prev } : {}),
      });
    }
    if (prev !== undefined) {
      addTransition(g, prev, key, { action: step.action, params: step.paramsText, label: step.label, onTrace: true, step: step.index });
    }
    prev = key;
  }
  if (prev !== undefined && verdict) {
    g.setNodeAttribute(prev, 'violates', verdict.property);
    if (verdict.kind === 'everyStep') g.setNodeAttribute(prev, 'byStep', true);
  }
  return g;
}

/** Keys of the trace's states in step order (a revisited state appears again). */
export function traceKeys(g: StateGraph): string[] {
  const byStep: [number, string][] = [];
  g.forEachNode((key, a) => a.steps.forEach((s) => byStep.push([s, key])));
  return byStep.sort((x, y) => x[0] - y[0]).map(([, k]) => k);
}
