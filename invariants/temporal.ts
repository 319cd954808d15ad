/**
 * Temporal (liveness) properties, as TLA+ writes them over behaviours of `Init /\ [][Next]_vars /\ Fairness`:
 *
 * - `eventually(P)`: ◇P, every fair behaviour reaches a P-state.
 * - `leadsTo(P, Q)`: P ~> Q, i.e. □(P ⇒ ◇Q): after every P-state, a Q-state follows (the P-state itself
 *   counts when it also satisfies Q).
 * - `alwaysEventually(P)`: □◇P, P comes true again and again, forever.
 * - `eventuallyAlways(P)`: ◇□P, P comes true and stays true: every fair behaviour ends in P-states for
 *   good (a system that settles, such as a leader that stops changing).
 *
 * A behaviour may stutter (repeat its last state) forever unless a fair action forbids it, as in TLC, so
 * a model where nothing is fair and P is false initially fails ◇P by stopping. Fairness is declared on
 * the actions (`Action.fairness`, `Action.fairnessKey`). A counterexample is a lasso: a stem from an
 * initial state and a fair cycle, repeated forever, on which the property fails. They are checked only by
 * an exhaustive search, never with symmetry reduction or a VIEW (see `checker/engine/liveness/`).
 */
import type { Property } from './property.ts';

export function eventually<S>(name: string, description: string, p: (s: S) => boolean): Property<S> {
  return { name, kind: 'eventually', description, test: p, symmetric: false };
}

export function leadsTo<S>(name: string, description: string, p: (s: S) => boolean, q: (s: S) => boolean): Property<S> {
  return { name, kind: 'leadsTo', description, test: q, from: p, symmetric: false };
}

export function alwaysEventually<S>(name: string, description: string, p: (s: S) => boolean): Property<S> {
  return { name, kind: 'alwaysEventually', description, test: p, symmetric: false };
}

export function eventuallyAlways<S>(name: string, description: string, p: (s: S) => boolean): Property<S> {
  return { name, kind: 'eventuallyAlways', description, test: p, symmetric: false };
}
