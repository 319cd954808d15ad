/**
 * Rebuilds a trace as TLC does, from what the search stored per state: its parent and the step that reached
 * it. The states themselves are made again by running the spec's own actions.
 */
import type { StepEvents } from '../../spec/spec.ts';
import { INIT_ACTION, type TraceStep } from '../../traces/trace.ts';
import { SpecError } from './specError.ts';
import type { Expander } from './expander.ts';

/** What makes a spec's functions give two answers to one question, as the errors about it say. */
export const NONDETERMINISM_CAUSES = 'time, randomness, mutable module state, or the iteration order of a plain JS Set/Map';

/** The model no longer produces the recorded path: its code is not deterministic (a spec error, exit 3). */
export class NondeterminismError extends SpecError {
  constructor(what: string) {
    super('next', 'the spec is not deterministic', new Error(what));
  }
}

/**
 * Re-runs the recorded steps from the recorded initial state: `path` lists, per state, its step as the
 * search logged it (for the first, its index in `init()`; then action index and parameter ordinal).
 */
export function rebuildSteps<S>(expander: Expander<S>, path: readonly { readonly action: number; readonly ordinal: number }[]): TraceStep<S>[] {
  const [first, ...rest] = path;
  if (first === undefined) return [];
  const init = expander.initialStates()[first.ordinal];
  if (init === undefined) throw nondeterministic('the recorded initial state is not among init()\'s states');
  const steps: TraceStep<S>[] = [{ index: 0, action: INIT_ACTION, params: {}, state: init }];
  let current: S = init;
  for (const [i, step] of rest.entries()) {
    const found = expander.nthStep(current, step.action, step.ordinal);
    if (found === null) throw nondeterministic(`step ${i + 1} (${expander.actions[step.action]?.name ?? 'unknown action'}) is no longer enabled where the search took it`);
    const { state, params } = found;
    const act = expander.actions[step.action]!;
    // The same step from the same state, once more: a spec that reads the clock or a random number gives
    // another state, and the trace would not show what the search found.
    const again = expander.nthStep(current, step.action, step.ordinal);
    if (again === null || fingerprintOf(expander, again.state) !== fingerprintOf(expander, state)) {
      throw nondeterministic(`step ${i + 1} (${act.name}) gave two different states when run twice from the same state`);
    }
    const events: StepEvents | undefined = act.describe?.(current, params, state);
    steps.push({ index: i + 1, action: act.name, params, state, ...(events ? { events } : {}) });
    current = state;
  }
  return steps;
}

function nondeterministic(what: string): NondeterminismError {
  return new NondeterminismError(
    `could not rebuild the counterexample: ${what}. The spec's init, params or actions ` +
      `are not deterministic (they depend on ${NONDETERMINISM_CAUSES}), so no trace it gives can be trusted`,
  );
}

function fingerprintOf<S>(expander: Expander<S>, s: S): string {
  expander.fingerprint(s);
  return `${expander.hi}:${expander.lo}`;
}
