/**
 * Re-executes a saved ITF trace against a spec, step by step: the same initial state, the recorded
 * action with the recorded parameters, and the same resulting state. It says exactly where and why the
 * trace no longer fits, which is how a design change is checked against a known bug.
 */
import type { ActionParams, Model } from '../../spec/spec.ts';
import { canonicalJson, paramsToItf, stateVariables, type ItfTrace, type ItfValue } from '../../traces/itf/write.ts';
import { changesBetween, formatStep, formatValue } from '../../traces/text.ts';
import { Expander } from './expander.ts';
import { accelerateImmutable } from './immutableAcceleration.ts';
import { judgeLasso, type Move } from './liveness/judgeLasso.ts';

export type ReplayOutcome =
  /**
   * Every step fits and step `step` breaks `property` (the recorded bug is reproduced when it is the
   * recorded one); `Deadlock` when the trace was recorded as one and its last state has no successor.
   */
  | { readonly kind: 'reproduced'; readonly step: number; readonly property: string; readonly recorded: string | null }
  /** Every step fits and no invariant or step property fails on the way; `recorded`: the violation the trace was saved for, not reached. */
  | { readonly kind: 'fits'; readonly steps: number; readonly recorded: string | null }
  /** A lasso: every step fits, the loop closes, the cycle is fair and `property` fails on it for ever. */
  | { readonly kind: 'reproduced'; readonly step: number; readonly property: string; readonly recorded: string | null; readonly loop: number }
  /** Step `step` cannot be taken or leads elsewhere. */
  | { readonly kind: 'diverged'; readonly step: number; readonly action: string; readonly reason: string };

export function replayTrace<S>(model: Model<S>, trace: ItfTrace): ReplayOutcome {
  accelerateImmutable();
  const expander = new Expander(model, false);
  const verdict = trace['#meta']?.verdict;
  const recorded = verdict?.property ?? null;
  const [first, ...rest] = trace.states;
  if (first === undefined) return { kind: 'diverged', step: 0, action: 'Init', reason: 'the trace has no states' };

  const inits = expander.initialStates();
  const foreign = unknownVariables(first, inits[0]);
  if (foreign !== null) return { kind: 'diverged', step: 0, action: 'Init', reason: foreign };
  let state = inits.find((s) => sameVariables(stateVariables(s), first));
  if (state === undefined) {
    return { kind: 'diverged', step: 0, action: 'Init', reason: `no initial state of the spec matches step 0: ${describeDifference(first, stateVariables(inits[0]))}` };
  }
  const broken = (s: S, step: number): ReplayOutcome | null => {
    const bad = step === 0 ? expander.firstInitialViolation(s) : expander.firstViolation(s);
    return bad < 0 ? null : { kind: 'reproduced', step, property: expander.invariants[bad]!.name, recorded };
  };
  const stepBroken = (s: S, t: S, step: number): ReplayOutcome | null => {
    const bad = expander.firstStepViolation(s, t);
    return bad < 0 ? null : { kind: 'reproduced', step, property: expander.stepProperties[bad]!.name, recorded };
  };
  // The first violation is the outcome, once every step of the trace is known to fit: steps recorded past
  // it must replay too, or the trace is not the spec's.
  let found = broken(state, 0);
  /** The step whose state is outside the model's CONSTRAINT (or came by a step outside its ACTION_CONSTRAINT): no step may follow it. */
  let outsideAt = expander.withinConstraint(state) ? -1 : 0;
  const visited: S[] = [state];
  const moves: Move[] = [];

  for (const recordedState of rest) {
    const meta = recordedState['#meta'];
    const step = meta.index;
    const shown = formatStep(meta.action, meta.params);
    if (outsideAt >= 0) {
      return { kind: 'diverged', step, action: shown, reason: `the state reached at step ${outsideAt} is outside the model's CONSTRAINT (or was reached by a step outside its ACTION_CONSTRAINT): no behaviour of the model goes on from it` };
    }
    const actionIndex = expander.actions.findIndex((a) => a.name === meta.action);
    if (actionIndex < 0) {
      return { kind: 'diverged', step, action: shown, reason: `the spec has no action ${meta.action}; its actions are ${expander.actions.map((a) => a.name).join(', ')}` };
    }
    const wanted = canonicalJson(meta.params);
    const next = expander.stepBy(state, actionIndex, wanted, keyOf);
    if (next === null) {
      const offered = offeredParams(expander, state, actionIndex);
      const reason = offered.enabled.includes(wanted)
        ? 'unreachable'
        : offered.all.includes(wanted)
          ? `its guard is false in the state reached at step ${step - 1}`
          : `the spec does not offer these parameters in the state reached at step ${step - 1}${offered.shown.length ? ` (it offers: ${offered.shown.join('; ')})` : ''}`;
      return { kind: 'diverged', step, action: shown, reason };
    }
    const got = stateVariables(next.state);
    const extra = unknownVariables(recordedState, next.state);
    if (extra !== null) return { kind: 'diverged', step, action: shown, reason: extra };
    if (!sameVariables(got, recordedState)) {
      return { kind: 'diverged', step, action: shown, reason: `it leads to a different state: ${describeDifference(recordedState, got)}` };
    }
    // As the search does (bfs.ts): a state outside the constraints is checked against the invariants, and goes no further.
    const inModel = expander.admits(state, next.state);
    if (!inModel) outsideAt = step;
    const before = state;
    state = next.state;
    visited.push(state);
    moves.push({ action: actionIndex, params: next.params });
    // The state's invariants first, then the step's properties, on any step, one leaving the constraints too (Expander.checkingSteps).
    found ??= broken(state, step) ?? stepBroken(before, state, step);
  }
  if (found) return found;
  if (trace.loop !== undefined) {
    if (outsideAt >= 0) return { kind: 'diverged', step: outsideAt, action: 'loop', reason: `the lasso passes through a state outside the model's CONSTRAINT (step ${outsideAt}), which no behaviour of the model reaches` };
    return replayLoop(expander, trace, visited, moves);
  }
  // A deadlock is the last state's: the trace reproduces it only while no action is enabled there.
  if (verdict?.kind === 'deadlock' && outsideAt < 0 && expander.successors(state, () => {}, false) === 0) {
    return { kind: 'reproduced', step: trace.states.length - 1, property: verdict.property, recorded };
  }
  return { kind: 'fits', steps: trace.states.length, recorded };
}

/** The lasso's closing step leads back to `states[loop]`, the cycle is fair, and the recorded temporal property fails on it. */
function replayLoop<S>(expander: Expander<S>, trace: ItfTrace, states: readonly S[], moves: Move[]): ReplayOutcome {
  const loop = trace.loop!;
  const last = states.length - 1;
  const closing = trace['#meta']?.loopStep;
  const loopStep = closing ? formatStep(closing.action, closing.params) : 'stuttering';
  const diverged = (reason: string): ReplayOutcome => ({ kind: 'diverged', step: last + 1, action: loopStep, reason });
  if (closing === undefined) {
    if (loop !== last) return diverged(`the trace loops back to step ${loop} without saying which step closes the loop ("#meta".loopStep)`);
  } else {
    const actionIndex = expander.actions.findIndex((a) => a.name === closing.action);
    const back = actionIndex < 0 ? null : expander.stepBy(states[last]!, actionIndex, canonicalJson(closing.params), keyOf);
    if (back === null) return diverged(`the step that closes the loop cannot be taken in the last state`);
    moves = [...moves, { action: actionIndex, params: back.params }];
    if (!sameVariables(stateVariables(back.state), stateVariables(states[loop]))) {
      return diverged(`the loop does not close: it leads to ${describeDifference(stateVariables(states[loop]), stateVariables(back.state))} instead of step ${loop}`);
    }
    // The closing step is a step of the behaviour: one that breaks a step property is found before any temporal verdict, as a search finds it.
    const broken = expander.firstStepViolation(states[last]!, back.state);
    if (broken >= 0) return { kind: 'reproduced', step: last + 1, property: expander.stepProperties[broken]!.name, recorded: trace['#meta']?.verdict?.property ?? null };
    if (!expander.admits(states[last]!, back.state)) {
      return diverged('the step that closes the loop leaves the model (it is outside the ACTION_CONSTRAINT): no behaviour of the model takes it');
    }
  }
  const verdict = judgeLasso(expander, trace['#meta']?.verdict?.property ?? null, states, loop, closing ? moves.slice(loop) : []);
  if ('problem' in verdict) return diverged(verdict.problem);
  return { kind: 'reproduced', step: last, property: verdict.fails, recorded: trace['#meta']?.verdict?.property ?? null, loop };
}

const keyOf = (p: ActionParams): string => canonicalJson(paramsToItf(p));

function offeredParams<S>(expander: Expander<S>, s: S, actionIndex: number): { all: string[]; enabled: string[]; shown: string[] } {
  const action = expander.actions[actionIndex]!;
  const choices = action.params ? [...action.params(s)] : [{}];
  const all = choices.map(keyOf);
  const enabled = choices.filter((p) => action.enabled?.(s, p) ?? true).map(keyOf);
  const shown = choices.slice(0, 6).map((p) => formatStep(action.name, paramsToItf(p)));
  return { all, enabled, shown };
}

/** Why the recorded state has variables a state of the spec (`sample`) does not, or null when it has none (ITF's own keys apart). */
function unknownVariables(recorded: { [name: string]: unknown }, sample: unknown): string | null {
  if (sample === undefined) return null;
  const known = new Set(Object.keys(stateVariables(sample)));
  const extra = Object.keys(recorded).filter((k) => k !== '#meta' && !k.startsWith('mbt::') && !known.has(k));
  return extra.length === 0 ? null : `the trace has variables the spec does not: ${extra.join(', ')}`;
}

function sameVariables(vars: { [name: string]: ItfValue }, recorded: { [name: string]: unknown }): boolean {
  return Object.keys(vars).every((k) => canonicalJson(vars[k]) === canonicalJson(recorded[k]));
}

/** The fields that differ, as finely as maps and sets allow: `replicas[r1].role: expected IllegalState, got Prospective`. */
function describeDifference(recorded: { [name: string]: unknown }, got: { [name: string]: ItfValue } | undefined): string {
  if (got === undefined) return 'the spec has no initial state';
  const vars = Object.keys(got);
  const changes = changesBetween(recorded as never, got as never, vars);
  if (changes.length === 0) return 'the trace has variables the spec does not';
  const shown = changes.slice(0, 6).map((c) => {
    if (c.added !== undefined || c.removed !== undefined) {
      const parts = [...(c.removed ?? []).map((x) => `expected also ${formatValue(x)}`), ...(c.added ?? []).map((x) => `got also ${formatValue(x)}`)];
      return `${c.path}: ${parts.join('; ')}`;
    }
    return `${c.path}: expected ${c.before === undefined ? '(absent)' : formatValue(c.before)}, got ${c.after === undefined ? '(absent)' : formatValue(c.after)}`;
  });
  return `${shown.join('; ')}${changes.length > 6 ? `; and ${changes.length - 6} more differences` : ''}`;
}
