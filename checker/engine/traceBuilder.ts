/**
 * Rebuilds a trace from fingerprints, as TLC does: starting from the initial state with the first
 * fingerprint, generate every successor of the current state and keep the first whose fingerprint is the
 * next one on the path. Only fingerprints and parent links are stored during the search.
 */
import type { ActionParams, StepEvents } from '../../spec/spec.ts';
import { INIT_ACTION, type TraceStep } from '../../traces/trace.ts';
import type { Expander } from './expander.ts';

/** The model no longer produces the recorded path: its code is not deterministic. */
export class NondeterminismError extends Error {}

export function rebuildSteps<S>(expander: Expander<S>, fingerprints: readonly (readonly [number, number])[]): TraceStep<S>[] {
  const [first, ...rest] = fingerprints;
  if (first === undefined) return [];
  const init = expander.initialStates().find((s) => matches(expander, s, first));
  if (init === undefined) throw nondeterministic('no initial state has the recorded fingerprint');
  const steps: TraceStep<S>[] = [{ index: 0, action: INIT_ACTION, params: {}, state: init }];
  let current: S = init;
  for (const [i, fp] of rest.entries()) {
    let found: { state: S; action: number; params: ActionParams } | null = null;
    try {
      expander.successors(current, (t, action, params) => {
        if (found === null && matches(expander, t, fp)) found = { state: t, action, params };
      });
    } catch (e) {
      // A later action of the same state may throw (that is what ended the search); the step was found first.
      if (found === null) throw e;
    }
    if (found === null) throw nondeterministic(`no successor of step ${i} has the recorded fingerprint`);
    const { state, action, params } = found as { state: S; action: number; params: ActionParams };
    const act = expander.actions[action]!;
    const events: StepEvents | undefined = act.describe?.(current, params, state);
    steps.push({ index: i + 1, action: act.name, params, state, ...(events ? { events } : {}) });
    current = state;
  }
  return steps;
}

function matches<S>(expander: Expander<S>, s: S, [hi, lo]: readonly [number, number]): boolean {
  expander.fingerprint(s);
  return expander.hi === hi && expander.lo === lo;
}

function nondeterministic(what: string): NondeterminismError {
  return new NondeterminismError(
    `could not rebuild the counterexample: ${what}. This usually means the spec's init, params or actions ` +
      'are not deterministic (they depend on time, randomness, mutable module state, or the iteration order of a plain JS Set/Map).',
  );
}
