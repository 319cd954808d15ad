/**
 * Breadth-first search, level by level, in one thread. The first time a state is reached it is on a
 * shortest path, so its parent link gives a shortest counterexample. States of a level are expanded in
 * discovery order and successors in the expander's fixed order, so runs are deterministic.
 */
import type { Expander } from './expander.ts';
import { SpecError } from './expander.ts';
import type { CheckOptions } from './options.ts';
import { Limits, yieldToEventLoop } from './limits.ts';
import { SeenSet } from './seenSet.ts';
import { NO_PARENT, StateLog } from './stateLog.ts';
import type { ResumePoint, SearchEnd, SearchOutcome } from './search.ts';
import { Frontier } from './frontier.ts';

/**
 * With `handOver`, the search records how each state was produced and, at the first level boundary where
 * `handOver` says so, stops and returns a `ResumePoint` for the parallel coordinator to go on from.
 */
export async function breadthFirst<S>(
  expander: Expander<S>,
  options: CheckOptions,
  limits: Limits,
  handOver?: (distinct: number, seconds: number) => boolean,
): Promise<SearchOutcome | ResumePoint> {
  const seen = new SeenSet();
  const log = new StateLog();
  const newStates = new Float64Array(expander.actions.length);
  const witnessesReached = new Uint8Array(expander.witnesses.length);
  const deadlock = options.deadlock ?? true;
  const maxDepth = options.maxDepth ?? Infinity;
  const maxStates = options.maxStates ?? Infinity;
  let generated = 0;
  let depth = 0; // index of the level being expanded; reported as TLC does, counting states (levels)
  let current = new Frontier<S>();
  let next = new Frontier<S>();
  let steps = new Uint32Array(handOver ? 2048 : 0);
  const levelStarts = [0];
  const recordStep = (id: number, a: number, b: number) => {
    if (2 * id + 1 >= steps.length) {
      const bigger = new Uint32Array(steps.length * 2);
      bigger.set(steps);
      steps = bigger;
    }
    steps[2 * id] = a;
    steps[2 * id + 1] = b;
  };

  const outcome = (end: SearchEnd): SearchOutcome => ({
    end,
    log,
    distinct: log.size,
    generated,
    depth: log.size > 0 ? depth + 1 : 0,
    queued: current.remaining + next.length,
    newStates,
    witnessesReached,
    offHeapBytes: seen.bytes + log.bytes,
    workers: 1,
  });

  // Level 0: the initial states.
  let curId = NO_PARENT;
  try {
    for (const [initIndex, s] of expander.initialStates().entries()) {
      generated++;
      expander.fingerprint(s);
      if (seen.insert(expander.hi, expander.lo, log.size) >= 0) continue;
      const id = log.add(expander.hi, expander.lo, NO_PARENT);
      if (handOver) recordStep(id, initIndex, 0);
      curId = id;
      const bad = expander.firstViolation(s);
      expander.markWitnesses(s, witnessesReached);
      if (bad >= 0) return outcome({ kind: 'violation', stateId: id, invariant: bad });
      current.push(s, id);
    }
  } catch (e) {
    if (e instanceof SpecError) return outcome({ kind: 'error', stateId: curId, error: e });
    throw e;
  }

  let parentId = 0;
  let violation: SearchEnd | null = null;
  const visit = (t: S, actionIndex: number, _params: unknown, ordinal: number): void => {
    generated++;
    expander.fingerprint(t);
    const hi = expander.hi;
    const lo = expander.lo;
    if (seen.insert(hi, lo, log.size) >= 0) return;
    const id = log.add(hi, lo, parentId);
    if (handOver) recordStep(id, actionIndex, ordinal);
    newStates[actionIndex]!++;
    curId = id; // a property that throws is reported at the new state
    const bad = expander.firstViolation(t);
    expander.markWitnesses(t, witnessesReached);
    curId = parentId; // an action that throws is reported at the state being expanded
    if (bad >= 0 && violation === null) violation = { kind: 'violation', stateId: id, invariant: bad };
    next.push(t, id);
  };

  let sinceCheck = 0;
  while (current.remaining > 0) {
    if (depth >= maxDepth) return outcome({ kind: 'incomplete', reason: 'maxDepth' });
    while (current.remaining > 0) {
      const s = current.peekState();
      parentId = current.peekId();
      curId = parentId;
      try {
        if (expander.withinConstraint(s)) {
          const count = expander.successors(s, visit);
          if (count === 0 && deadlock) {
            current.shift();
            return outcome({ kind: 'deadlock', stateId: parentId });
          }
        }
      } catch (e) {
        if (e instanceof SpecError) return outcome({ kind: 'error', stateId: curId, error: e });
        throw e;
      }
      current.shift();
      if (violation !== null) return outcome(violation);
      if (log.size >= maxStates && current.remaining + next.length > 0) return outcome({ kind: 'incomplete', reason: 'maxStates' });
      if (++sinceCheck >= 512) {
        sinceCheck = 0;
        const reason = limits.exceeded(log.size, seen.bytes + log.bytes);
        if (reason !== null) return outcome({ kind: 'incomplete', reason });
        limits.progress({ distinct: log.size, generated, queued: current.remaining + next.length, depth });
        if (limits.shouldYield()) await yieldToEventLoop();
      }
    }
    if (next.length === 0) break;
    depth++;
    [current, next] = [next, current];
    next.reset();
    levelStarts.push(log.size - current.length);
    if (handOver?.(log.size, limits.seconds)) {
      return { seen, log, steps, levelStarts, generated, depth, newStates, witnessesReached };
    }
  }
  return outcome({ kind: 'complete' });
}
