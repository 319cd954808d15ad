/**
 * Shrinks a simulation counterexample (delta debugging): drop chunks of steps, halving the chunk size,
 * re-execute leniently (a step whose action is no longer enabled is skipped), and keep the shorter walk
 * whenever it still ends in the same violation. Random walks are long and noisy; what remains is
 * usually close to a shortest trace.
 */
import type { Expander } from './expander.ts';
import { type Limits, yieldToEventLoop } from './limits.ts';
import { paramsKey, type Walk, type WalkStep } from './walkTrace.ts';

export type ShrinkTarget = { readonly kind: 'always'; readonly invariant: number } | { readonly kind: 'everyStep'; readonly property: number } | { readonly kind: 'deadlock' };

/** The shortest walk found, and why shrinking ended before it had tried every cut, if a limit ended it. */
export interface Shrunk {
  readonly walk: Walk;
  readonly stoppedBy?: 'timeLimit' | 'interrupted';
}

/**
 * Shrinks `walk` until no cut shortens it, or until `stopBy` names a limit (a time limit, Ctrl-C): each
 * try re-runs the walk, so with slow steps shrinking takes longer than the search that found it, and the
 * walk found so far is the counterexample a limit must not lose. Signals and timers get a turn every 50 ms.
 */
export async function shrink<S>(expander: Expander<S>, walk: Walk, target: ShrinkTarget, limits: Limits): Promise<Shrunk> {
  let best = walk;
  // Every try starts from the walk's initial state: init() is asked once, not once a try.
  const init = expander.initialStates()[walk.init]!;
  for (let chunk = Math.max(1, Math.floor(best.steps.length / 2)); chunk >= 1; ) {
    let improved = false;
    for (let start = 0; start < best.steps.length; start += chunk) {
      if (limits.shouldYield()) await yieldToEventLoop();
      const reason = limits.exceeded(0, 0);
      if (reason === 'timeLimit' || reason === 'interrupted') return { walk: best, stoppedBy: reason };
      const candidate = { init: best.init, steps: [...best.steps.slice(0, start), ...best.steps.slice(start + chunk)] };
      const executed = reproduce(expander, init, candidate, target);
      if (executed !== null && executed.steps.length < best.steps.length) {
        best = executed;
        improved = true;
        start -= chunk;
      }
    }
    if (!improved) chunk = Math.floor(chunk / 2);
  }
  return { walk: best };
}

/**
 * Runs the walk leniently; returns the steps actually taken up to the first violation of the target, or
 * null. A walk that breaks another invariant, or a step property, first is no counterexample of the target:
 * the search would have stopped there, with that one (and its trace replays to that one).
 */
function reproduce<S>(expander: Expander<S>, init: S, walk: Walk, target: ShrinkTarget): Walk | null {
  let s: S = init;
  let verdict = hits(expander, s, target);
  if (verdict !== 'no') return verdict === 'target' ? { init: walk.init, steps: [] } : null;
  // No behaviour of the model goes on from a state outside its constraints.
  if (!expander.withinConstraint(s)) return null;
  const taken: WalkStep[] = [];
  for (const step of walk.steps) {
    const next = expander.stepBy(s, step.action, paramsKey(step.params), paramsKey);
    if (next === null) continue;
    taken.push({ action: step.action, params: next.params });
    const from = s;
    s = next.state;
    verdict = hits(expander, s, target);
    if (verdict !== 'no') return verdict === 'target' ? { init: walk.init, steps: taken } : null;
    // A step that breaks a step property is where a simulation stops, with that property: the target's, or another's first.
    if (expander.stepProperties.length > 0) {
      const broken = expander.firstStepViolation(from, s);
      if (broken >= 0) return target.kind === 'everyStep' && broken === target.property ? { init: walk.init, steps: taken } : null;
    }
    if (!expander.admits(from, s)) return null;
  }
  return null;
}

/** Whether `s` is where the target fails, where another invariant fails (first, in the order they are checked), or neither. */
function hits<S>(expander: Expander<S>, s: S, target: ShrinkTarget): 'target' | 'other' | 'no' {
  const first = expander.firstViolation(s);
  if (target.kind === 'always') return first === target.invariant ? 'target' : first >= 0 ? 'other' : 'no';
  // A step property's target is met by a step (`reproduce`): a state only says whether an invariant fails first.
  if (target.kind === 'everyStep') return first >= 0 ? 'other' : 'no';
  if (first >= 0) return 'other';
  let any = false;
  expander.successors(s, () => {
    any = true;
  }, false);
  return any ? 'no' : 'target';
}
