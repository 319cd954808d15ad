/**
 * A walk is a trace as the simulator and shrinker keep it: which initial state, then which action with
 * which parameters at each step. Parameters are matched by their canonical ITF text, so a walk also
 * survives being edited (steps dropped) and re-executed.
 */
import type { ActionParams } from '../../spec/spec.ts';
import { INIT_ACTION, type Trace, type TraceStep } from '../../traces/trace.ts';
import { canonicalJson, paramsToItf } from '../../traces/itf/write.ts';
import type { Expander } from './expander.ts';
import type { CheckLabel } from './check.ts';

export interface WalkStep {
  readonly action: number;
  readonly params: ActionParams;
}
export interface Walk {
  readonly init: number;
  readonly steps: WalkStep[];
}

export const paramsKey = (p: ActionParams): string => canonicalJson(paramsToItf(p));

/** Re-executes a walk that is known to fit the model, as a trace with narration. */
export function buildTrace<S>(expander: Expander<S>, walk: Walk, label: CheckLabel): Trace<S> {
  let state: S = expander.initialStates()[walk.init]!;
  const steps: TraceStep<S>[] = [{ index: 0, action: INIT_ACTION, params: {}, state }];
  walk.steps.forEach((step, i) => {
    const next = expander.stepBy(state, step.action, paramsKey(step.params), paramsKey);
    if (next === null) throw new Error(`walk step ${i + 1} no longer fits the model`);
    const action = expander.actions[step.action]!;
    const events = action.describe?.(state, next.params, next.state);
    steps.push({ index: i + 1, action: action.name, params: next.params, state: next.state, ...(events ? { events } : {}) });
    state = next.state;
  });
  return { spec: label.spec, ...(label.preset ? { preset: label.preset } : {}), params: label.params, steps };
}
