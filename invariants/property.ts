/**
 * Properties of a model.
 *
 * State properties, checked on every reachable state:
 * - `always`: an invariant. A state where it is false is a violation, reported with a shortest trace.
 * - `sometimes`: a reachability witness. If no reachable state satisfies it the model is vacuous for that
 *   purpose (an action never fires, a fault never happens), and the check fails instead of passing.
 *
 * Temporal properties (`invariants/temporal.ts`: `eventually`, `leadsTo`, `alwaysEventually`) are checked
 * over the whole reachable state graph under the actions' fairness, after the search completes.
 */
export type StatePropertyKind = 'always' | 'sometimes';
export type TemporalPropertyKind = 'eventually' | 'leadsTo' | 'alwaysEventually';

export interface Property<S> {
  readonly name: string;
  readonly kind: StatePropertyKind | TemporalPropertyKind;
  readonly description: string;
  /**
   * The state predicate: the invariant or witness; for `eventually` and `alwaysEventually` the P that must
   * (keep) coming true; for `leadsTo` the Q that must follow every `from` state.
   */
  readonly test: (s: S) => boolean;
  /** `leadsTo` only: the P of P ~> Q. */
  readonly from?: (s: S) => boolean;
  /**
   * True when the property gives the same answer for every permutation of the model's symmetry sets.
   * The checker refuses to combine symmetry reduction with a property not declared symmetric.
   */
  readonly symmetric: boolean;
}

export interface PropertyOptions {
  readonly symmetric?: boolean;
}

export function always<S>(name: string, description: string, test: (s: S) => boolean, options: PropertyOptions = {}): Property<S> {
  return { name, kind: 'always', description, test, symmetric: options.symmetric ?? false };
}

export function sometimes<S>(name: string, description: string, test: (s: S) => boolean, options: PropertyOptions = {}): Property<S> {
  return { name, kind: 'sometimes', description, test, symmetric: options.symmetric ?? false };
}

export function isTemporal<S>(p: Property<S>): boolean {
  return p.kind === 'eventually' || p.kind === 'leadsTo' || p.kind === 'alwaysEventually';
}
