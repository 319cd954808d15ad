/**
 * The contract between a protocol model and the checker: the only file a spec author has to learn.
 *
 * A spec is a TLA+-style model written as TypeScript over Immutable.js values. States are built from
 * Immutable `Record`, `Map`, `Set`, `List`, `OrderedMap`, `OrderedSet` and primitives (string, number,
 * boolean, null). Two states that are `Immutable.is`-equal are the same state to the checker.
 *
 * Every function here must be pure and deterministic: the same state and parameters give the same
 * successors in the same order on every run. Traces are rebuilt by re-executing actions, so an action
 * that depends on anything but its arguments breaks replay.
 */
import type { Property } from '../invariants/property.ts';
import type { RecordType } from './layout/types.ts';

/** A constant of the model (TLA+ CONSTANT), chosen on the command line with `--param NAME=VALUE`. */
export type ParamDef =
  | { readonly name: string; readonly description: string; readonly type: 'int'; readonly default: number; readonly min: number; readonly max: number }
  | { readonly name: string; readonly description: string; readonly type: 'bool'; readonly default: boolean }
  | { readonly name: string; readonly description: string; readonly type: 'enum'; readonly default: string; readonly choices: readonly string[] };

export type ParamValue = number | boolean | string;
export type ParamValues = Readonly<Record<string, ParamValue>>;

/** What a preset is expected to give: the CI gate and the tests hold the checker to it. */
export type Expectation =
  | { readonly verdict: 'holds' }
  | { readonly verdict: 'violates'; readonly property: string };

/** A named, checked-in scenario: a parameter set with the outcome it must have. */
export interface Preset {
  readonly name: string;
  readonly description: string;
  readonly params: Partial<Record<string, ParamValue>>;
  readonly expect: Expectation;
  /** Check options that belong to the scenario, e.g. deadlock detection off for an open system. */
  readonly options?: { readonly deadlock?: boolean; readonly symmetry?: boolean };
}

/** What a step did, for sequence diagrams: who acted, which messages it sent or consumed. */
export interface StepEvents {
  readonly actor?: string;
  readonly sends?: readonly Message[];
  readonly receives?: readonly Message[];
  /** Crash, restart, timeout and other markers drawn on the actor's lifeline. */
  readonly marks?: readonly string[];
}
export interface Message { readonly from: string; readonly to: string; readonly label: string }

/** Action parameters: a plain object whose values are Immutable values or primitives. */
export type ActionParams = Readonly<Record<string, unknown>>;

/**
 * A TLA+ action: `\E params : guard /\ effect`. `params` enumerates the existential choices (omit it for
 * an action without parameters); `enabled` is the guard; `next` is the effect, called only when enabled.
 */
export interface Action<S, P extends ActionParams = ActionParams> {
  readonly name: string;
  readonly params?: (s: S) => Iterable<P>;
  /**
   * Written as an arrow function of the state alone (`(s) => ...`), the guard cannot depend on the
   * parameters, and the checker asks it once per state rather than once per parameter choice.
   */
  readonly enabled?: (s: S, p: P) => boolean;
  readonly next: (s: S, p: P) => S;
  /** Optional narration of a step for pictures; never affects the search. */
  readonly describe?: (before: S, p: P, after: S) => StepEvents;
  /**
   * Fairness, used only by temporal properties (TLA+ `WF_vars` / `SF_vars`); without it the action is
   * unfair: a behaviour may leave it enabled forever and never take it.
   * - `weak`: an instance that stays enabled from some point on is eventually taken (`WF_vars(A)`).
   * - `strong`: an instance enabled again and again, even with gaps, is eventually taken (`SF_vars(A)`).
   */
  readonly fairness?: 'weak' | 'strong';
  /**
   * Which parameter choices share one fairness obligation. By default every distinct parameter value
   * is its own instance (`\A p : WF_vars(A(p))`), e.g. one per message for a delivery action. Return the
   * same key for choices that count as one: `({ s }) => s` gives fairness per voter, as the KRaft TLA+
   * specs write `\A v \in Voters : WF_vars(\E m : Receive(v, m))`; `({ s, t }) => s + '>' + t` per pair.
   */
  readonly fairnessKey?: (p: P) => string;
  /**
   * Restricts fairness to the states where this holds: the obligation is on the sub-action
   * `A(p) /\ fairWhen` (`WF_vars(A(p) /\ C)`), so a step taken elsewhere is allowed but never owed. A
   * timer that must fire when what it waits for cannot arrive, but may also fire early as a budgeted
   * fault, is fair only in the first case.
   */
  readonly fairWhen?: (s: S, p: P) => boolean;
  /**
   * Set at build time when the parameters rule this action out (a fault whose budget is zero, a step a
   * variant merges into another), saying why, e.g. `'maxCrashes = 0'`. The checker then never runs it,
   * and coverage reports it as disabled by parameters instead of warning that it was never enabled,
   * which is kept for actions that are dead for no stated reason (usually a modelling bug). Keep the
   * action in the list rather than leaving it out, so that every instance of a spec has the same actions.
   */
  readonly disabledBy?: string;
  /**
   * Says why this action can never be enabled although the checker still runs it: a binding of a
   * TLC-ordered spec (one action per parameter choice) that the model's structure rules out, say. Coverage
   * then reports it as dead by construction instead of warning, and warns instead if it is ever enabled.
   */
  readonly deadByConstruction?: string;
}

/** The interchangeable identities of a model: every permutation of each list maps states to equivalent states. */
export type Symmetry = readonly (readonly (string | number)[])[];

/** One instance of a spec, built for a concrete set of parameters. */
export interface Model<S> {
  readonly init: () => Iterable<S>;
  /**
   * Each state's successors are computed in this order: the first action with each of its parameter
   * choices, then the next action (TLC's order for Next's disjuncts). For TLC's order of
   * `\E x \in X : A(x) \/ B(x)` (`A(x1)`, `B(x1)`, `A(x2)`, …), list one action per binding, each with its
   * one choice. The order moves only the counts of a search that stops at a violation.
   */
  // Actions are heterogeneous in their parameter types; this is the one sanctioned `any`.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly actions: readonly Action<S, any>[];
  readonly properties: readonly Property<S>[];
  /**
   * TLC CONSTRAINT: a state for which this is false is, as in TLC, checked against the invariants (and
   * the step to it against the step properties) each time it is reached, but is no state of the model:
   * not counted, not expanded.
   */
  readonly constraint?: (s: S) => boolean;
  /**
   * TLC ACTION_CONSTRAINT: a step from `s` to `t` for which this is false leads, as in TLC, out of the
   * model: `t` is checked against the invariants, and the step against the step properties, but `t` is
   * not counted or expanded through that step.
   */
  readonly actionConstraint?: (s: S, t: S) => boolean;
  /** TLC VIEW: the part of the state that makes two states equal (drop auxiliary counters here). */
  readonly view?: (s: S) => unknown;
  /** TLC SYMMETRY: id sets whose permutation preserves behaviour. Used only with `--symmetry`. */
  readonly symmetry?: Symmetry;
  /**
   * The state's layout (docs/layouts.md): the root record type built with `layout.record`, whose views
   * `init` and the actions return. It declares the state's bounds (a value outside them is a spec error
   * naming the field) and lets kmc store, hash and permute states as `layout.width` bytes. Each symmetry
   * set must then be one of the layout's `layout.ids` domains. Omit it for Immutable.js states.
   */
  readonly layout?: RecordType;
}

/** What a spec module exports (as `default` or as `spec`). */
export interface SpecDefinition<S = unknown> {
  readonly name: string;
  readonly description: string;
  readonly params: readonly ParamDef[];
  readonly presets: readonly Preset[];
  readonly build: (params: ParamValues) => Model<S>;
}

/** Identity function that gives a spec module its types. */
export function defineSpec<S>(spec: SpecDefinition<S>): SpecDefinition<S> {
  return spec;
}
