/**
 * Rebuilds a trace as TLC does, from what the search stored per state: its parent and the step that reached
 * it. The states themselves are made again by running the spec's own actions.
 */
import type { StepEvents } from '../../spec/spec.ts';
import { INIT_ACTION, type TraceStep } from '../../traces/trace.ts';
import type { Expander } from './expander.ts';

/** The model no longer produces the recorded path: its code is not deterministic. */
export class NondeterminismError extends Error {}

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
    const events: StepEvents | undefined = act.describe?.(current, params, state);
    steps.push({ index: i + 1, action: act.name, params, state, ...(events ? { events } : {}) });
    current = state;
  }
  return steps;
}

function nondeterministic(what: string): NondeterminismError {
  return new NondeterminismError(
    `could not rebuild the counterexample: ${what}. This usually means the spec's init, params or actions ` +
      'are not deterministic (they depend on time, randomness, mutable module state, or the iteration order of a plain JS Set/Map).',
  );
}
