/**
 * Depth-first search with an optional depth bound. Counterexamples are not shortest (use BFS for that),
 * but memory grows with the depth rather than the widest level. Under a bound, a state first reached
 * deep is explored again when a shorter path reaches it, so nothing within the bound is missed.
 */
import type { Expander } from './expander.ts';
import { SpecError, StepViolation } from './expander.ts';
import type { CheckOptions } from './options.ts';
import { Limits, yieldToEventLoop } from './limits.ts';
import { FingerprintIndex } from './state/fingerprintIndex.ts';
import { NO_PARENT, StateLog } from './stateLog.ts';
import type { SearchEnd, SearchOutcome } from './search.ts';

interface Frame<S> {
  readonly id: number;
  readonly state: S;
  readonly depth: number;
  readonly successors: S[];
  readonly actions: number[];
  readonly ordinals: number[];
  next: number;
}

export async function depthFirst<S>(expander: Expander<S>, options: CheckOptions, limits: Limits): Promise<SearchOutcome> {
  const seen = new FingerprintIndex();
  const log = new StateLog();
  const depthOf: number[] = [];
  const newStates = new Float64Array(expander.actions.length);
  const witnessesReached = new Uint8Array(expander.witnesses.length);
  const deadlock = options.deadlock ?? true;
  const maxDepth = options.maxDepth ?? Infinity;
  const maxStates = options.maxStates ?? Infinity;
  const stack: Frame<S>[] = [];
  let generated = 0;
  let deepest = 0;
  /**
   * The states the depth bound kept from being expanded and no shorter path has reached since. The search
   * is incomplete only if one is left: one reached at the bound and later by a shorter path (and expanded
   * then) held nothing back, as a breadth-first search under the same bound would find.
   */
  const cutOff = new Set<number>();
  let curId = NO_PARENT;
  /** 1 once a state outside the CONSTRAINT, or an initial state seen before, is logged: the violation that ends the run (see bfs.ts). */
  let outside = 0;

  const outcome = (end: SearchEnd): SearchOutcome => ({
    end,
    log,
    distinct: log.size - outside,
    generated,
    depth: log.size - outside > 0 ? deepest + 1 : 0,
    queued: stack.length,
    newStates,
    witnessesReached,
    offHeapBytes: seen.bytes + log.bytes,
    workers: 1,
  });

  /** Visits `s` reached at `depth` from `from` (null: an initial state); returns a violation, or pushes a frame when it must be explored. */
  const enter = (s: S, from: S | null, parent: number, depth: number, action: number, ordinal: number): SearchEnd | null => {
    curId = parent;
    // The step properties on the step that reached `s`, new or seen before or outside the constraints, once
    // its own invariants are checked (as bfs.ts has them, through Expander.checkingSteps): the search stops
    // at the state before it.
    const stepBroken = (): SearchEnd | null => {
      if (from === null || from === s || expander.stepProperties.length === 0) return null;
      const k = expander.firstStepViolation(from, s);
      return k < 0 ? null : { kind: 'error', stateId: parent, error: new StepViolation(k, expander.stepProperties[k]!.name, action, ordinal) };
    };
    if (from === null ? !expander.withinConstraint(s) : !expander.admits(from, s)) {
      // As TLC: checked each time it is reached, neither counted nor expanded; logged only to show a violation.
      const bad = from === null ? expander.firstInitialViolation(s) : expander.firstViolation(s);
      if (bad < 0) return stepBroken();
      outside = 1;
      return { kind: 'violation', stateId: log.add(parent, Math.max(action, 0), ordinal), invariant: bad };
    }
    expander.fingerprint(s);
    const known = seen.get(expander.hi, expander.lo);
    if (known >= 0 && from === null) {
      // An initial state reached before as a successor had its invariants checked then, but not what only an
      // initial state must satisfy (`initially`): logged again, uncounted, to be the whole counterexample.
      const bad = expander.firstInitialViolation(s);
      if (bad >= 0) {
        outside = 1;
        return { kind: 'violation', stateId: log.add(NO_PARENT, 0, ordinal), invariant: bad };
      }
    }
    // Without a depth bound a state is expanded once. Under a bound, a state reached again at a shallower
    // depth is expanded again: the first visit may have stopped at the bound before its successors.
    if (known >= 0 && (maxDepth === Infinity || depthOf[known]! <= depth)) return stepBroken();
    let id = known;
    if (known < 0) {
      id = log.add(parent, Math.max(action, 0), ordinal);
      seen.insert(expander.hi, expander.lo, id);
      if (action >= 0) newStates[action]!++;
      curId = id;
      // A state of the model counts towards the depth even when it ends the search (as in bfs.ts).
      if (depth > deepest) deepest = depth;
      const bad = from === null ? expander.firstInitialViolation(s) : expander.firstViolation(s);
      expander.markWitnesses(s, witnessesReached);
      if (bad >= 0) return { kind: 'violation', stateId: id, invariant: bad };
    }
    const broken = stepBroken();
    if (broken) return broken;
    depthOf[id] = depth;
    if (depth > deepest) deepest = depth;
    curId = id;
    if (depth >= maxDepth) {
      cutOff.add(id);
      return null;
    }
    cutOff.delete(id);
    const successors: S[] = [];
    const actions: number[] = [];
    const ordinals: number[] = [];
    // Each step's properties are checked as it is taken (`enter`), in depth-first order.
    const count = expander.successors(
      s,
      (t, a, _p, o) => {
        successors.push(t);
        actions.push(a);
        ordinals.push(o);
      },
      false,
    );
    generated += count;
    if (count === 0 && deadlock) return { kind: 'deadlock', stateId: id };
    stack.push({ id, state: s, depth, successors, actions, ordinals, next: 0 });
    return null;
  };

  try {
    for (const [initIndex, s] of expander.initialStates().entries()) {
      generated++;
      const end = enter(s, null, NO_PARENT, 0, -1, initIndex);
      if (end) return outcome(end);
      // --max-states N keeps N states, initial states included (it once entered one successor past it).
      if (log.size >= maxStates) return outcome({ kind: 'incomplete', reason: 'maxStates' });
      while (stack.length > 0) {
        const top = stack[stack.length - 1]!;
        if (top.next === top.successors.length) {
          stack.pop();
          continue;
        }
        const i = top.next++;
        const end2 = enter(top.successors[i]!, top.state, top.id, top.depth + 1, top.actions[i]!, top.ordinals[i]!);
        if (end2) return outcome(end2);
        if (log.size >= maxStates) return outcome({ kind: 'incomplete', reason: 'maxStates' });
        if (limits.lookDue()) {
          const reason = limits.exceeded(log.size, seen.bytes + log.bytes);
          if (reason !== null) return outcome({ kind: 'incomplete', reason });
          limits.progress({ distinct: log.size, generated, queued: stack.length, depth: deepest });
          if (limits.shouldYield()) await yieldToEventLoop();
        }
      }
    }
  } catch (e) {
    if (e instanceof SpecError) return outcome({ kind: 'error', stateId: curId, error: e });
    throw e;
  }
  return outcome(cutOff.size > 0 ? { kind: 'incomplete', reason: 'maxDepth' } : { kind: 'complete' });
}
