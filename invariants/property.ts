/**
 * Properties of a model.
 *
 * State properties, checked on every reachable state:
 * - `always`: an invariant. A state where it is false is a violation, reported with a shortest trace.
 * - `sometimes`: a reachability witness. If no reachable state satisfies it the model is vacuous for that
 *   purpose (an action never fires, a fault never happens), and the check fails instead of passing.
 * - `initially`: checked on the initial states only, after their invariants (TLC's PROPERTY of a state
 *   predicate); a violation is the initial state that breaks it.
 *
 * A step property, checked on every step from a reachable state:
 * - `everyStep`: TLA+'s `[][A]_vars`. Every step from a reachable state (each successor, new or seen
 *   before, and as in TLC one outside the CONSTRAINT or ACTION_CONSTRAINT too) satisfies A, or changes
 *   nothing. A step where it
 *   is false is a violation, reported with a shortest trace to the state before it, then the step. With a
 *   VIEW or symmetry, the steps are those of the state kept for each class, as in TLC.
 *
 * Temporal properties (`invariants/temporal.ts`: `eventually`, `leadsTo`, `alwaysEventually`,
 * `eventuallyAlways`) are checked
 * over the whole reachable state graph under the actions' fairness, after the search completes.
 */
export type StatePropertyKind = 'always' | 'sometimes' | 'everyStep' | 'initially';
export type TemporalPropertyKind = 'eventually' | 'leadsTo' | 'alwaysEventually' | 'eventuallyAlways';

export interface Property<S> {
  readonly name: string;
  readonly kind: StatePropertyKind | TemporalPropertyKind;
  readonly description: string;
  /**
   * The state predicate: the invariant or witness; for `eventually` and `alwaysEventually` the P that must
   * (keep) coming true; for `eventuallyAlways` the P that must come true for good; for `leadsTo` the Q
   * that must follow every `from` state.
   */
  readonly test: (s: S) => boolean;
  /** `leadsTo` only: the P of P ~> Q. */
  readonly from?: (s: S) => boolean;
  /** `everyStep` only: the A of [][A]_vars, of the state before a step and the state after it (`test` is unused). */
  readonly step?: (before: S, after: S) => boolean;
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

/**
 * A property of the initial states only (TLC's PROPERTY that is a state predicate, such as the `Init` of a
 * refinement mapping): checked on each initial state after its invariants, as TLC checks an implied init.
 */
export function initially<S>(name: string, description: string, test: (s: S) => boolean, options: PropertyOptions = {}): Property<S> {
  return { name, kind: 'initially', description, test, symmetric: options.symmetric ?? false };
}

export function sometimes<S>(name: string, description: string, test: (s: S) => boolean, options: PropertyOptions = {}): Property<S> {
  return { name, kind: 'sometimes', description, test, symmetric: options.symmetric ?? false };
}

/**
 * A step property (TLA+'s `[][A]_vars`, TLC's action PROPERTY): `step(before, after)` holds for every step
 * between reachable states that changes the state. For example, an epoch that never goes back:
 * `everyStep('EpochNeverDecreases', '…', (s, t) => t.epoch >= s.epoch)`.
 */
export function everyStep<S>(name: string, description: string, step: (before: S, after: S) => boolean, options: PropertyOptions = {}): Property<S> {
  return { name, kind: 'everyStep', description, test: () => true, step, symmetric: options.symmetric ?? false };
}

export function isTemporal<S>(p: Property<S>): boolean {
  return p.kind === 'eventually' || p.kind === 'leadsTo' || p.kind === 'alwaysEventually' || p.kind === 'eventuallyAlways';
}
