/**
 * Breadth-first search, level by level, in one thread. The first time a state is reached it is on a
 * shortest path, so its parent link gives a shortest counterexample. States of a level are expanded in
 * discovery order and successors in the expander's fixed order, so runs are deterministic.
 */
import type { ActionParams } from '../../spec/spec.ts';
import type { Expander } from './expander.ts';
import { SpecError } from './expander.ts';
import type { CheckOptions } from './options.ts';
import { Limits, yieldToEventLoop } from './limits.ts';
import { FingerprintSet } from './state/fingerprintSet.ts';
import { MAX_ACTIONS, MAX_ORDINAL, NO_PARENT, StateLog } from './stateLog.ts';
import type { SearchEnd, SearchOutcome } from './search.ts';
import { ByteFrontier, type Frontier, NumberFrontier, ObjectFrontier } from './frontier.ts';
import { isPacked, layoutOf } from './state/packed.ts';
import { tmpdir } from 'node:os';
import { type Checkpoints, writeCheckpoint } from './checkpoint.ts';
import type { LivenessRecorder } from './liveness/checkLiveness.ts';
import { SuccessorBatch } from './successorBatch.ts';
import { join } from 'node:path';

/** Where to write checkpoints at level boundaries, and a checkpoint to start from. */

/** The batch mark of a successor known to be seen already: nothing to look up. */
const KNOWN = 1;
/** The batch mark of a successor outside the model's CONSTRAINT: checked, never looked up or counted. */
const OUTSIDE = 2;

/**
 * With `recorder` (a search from the initial states, not resumed), every state and edge is also given to
 * the liveness check, which then needs no exploration of its own.
 */
export async function breadthFirst<S>(
  expander: Expander<S>,
  options: CheckOptions,
  limits: Limits,
  checkpoints: Checkpoints = {},
  recorder?: LivenessRecorder<S>,
): Promise<SearchOutcome> {
  if (recorder && checkpoints.resumeFrom) throw new Error('the liveness graph is recorded only by a whole search in one thread');
  const resumed = checkpoints.resumeFrom;
  const seen = resumed?.seen ?? new FingerprintSet();
  const log = resumed?.log ?? new StateLog();
  if (expander.actions.length > MAX_ACTIONS) throw new Error(`a model may have at most ${MAX_ACTIONS} actions`);
  const newStates = resumed ? Float64Array.from(resumed.newStates) : new Float64Array(expander.actions.length);
  const witnessesReached = resumed ? Uint8Array.from(resumed.witnessesReached) : new Uint8Array(expander.witnesses.length);
  const deadlock = options.deadlock ?? true;
  const constrained = expander.constrained;
  const maxDepth = options.maxDepth ?? Infinity;
  const maxStates = options.maxStates ?? Infinity;
  let generated = resumed?.generated ?? 0;
  let depth = resumed?.depth ?? 0; // index of the level being expanded; reported as TLC does, counting states (levels)
  let current: Frontier<S> | null = null;
  let next: Frontier<S> | null = null;
  const levelStarts = resumed ? [...resumed.levelStarts] : [0];
  let lastCheckpointAt = limits.seconds;
  /** A stop came while checkpoints are on: the level is finished and checkpointed first. */
  let finishing = false;
  // Frontiers spill to disk only under a memory budget; without one the heap guard and the machine decide.
  const spills = options.memoryBudgetBytes !== undefined || options.frontierMemoryBytes !== undefined;
  const spillDir = spills ? (options.spillDirectory ?? join(tmpdir(), 'kmc-spill')) : undefined;
  // Only whole chunks behind the one being read and before the one being written can go to disk, so
  // under a budget the chunks are a 64th of it: a frontier of a few chunks' worth can spill.
  const chunkBytes = options.frontierChunkBytes ?? (options.memoryBudgetBytes !== undefined ? Math.max(1 << 16, Math.min(1 << 22, Math.floor(options.memoryBudgetBytes / 64))) : undefined);
  const frontierBytes = () => (current?.bytes ?? 0) + (next?.bytes ?? 0);
  const mustSpill = () =>
    options.frontierMemoryBytes !== undefined ? frontierBytes() > options.frontierMemoryBytes : limits.nearBudget(memory());
  let spilledBytes = 0;
  const memory = () => seen.bytes + log.bytes + (current?.bytes ?? 0) + (next?.bytes ?? 0) + (recorder?.bytes ?? 0);
  // The frontier is near empty when the search ends: the most the tables and frontier held together is
  // what a run needs (the worker threads' levels keep the size of the widest one, so theirs is a peak too).
  let peakMemory = 0;
  /** `memory()`, kept as the peak when it is the most yet. */
  const memoryNow = (): number => {
    const m = memory();
    if (m > peakMemory) peakMemory = m;
    return m;
  };
  /** 1 once a state outside the CONSTRAINT is logged: the violation that ends the run, not a state of the model. */
  let outside = 0;

  const outcome = (end: SearchEnd): SearchOutcome => ({
    end,
    log,
    distinct: log.size - outside,
    generated,
    // As TLC counts it: the levels that hold a state of the model, so a run that stops inside a level
    // counts the next one when a state of it was found (the new state that breaks an invariant, say).
    depth: log.size - outside > 0 ? depth + 1 + ((next?.length ?? 0) > 0 ? 1 : 0) : 0,
    queued: (current?.remaining ?? 0) + (next?.length ?? 0),
    newStates,
    witnessesReached,
    offHeapBytes: Math.max(peakMemory, memory()),
    workers: 1,
    spilledBytes,
  });

  // Level 0: the initial states.
  let curId = NO_PARENT;
  try {
    const inits = expander.initialStates();
    if (inits.length > 0) {
      // Packed states are kept as bytes, numbers as numbers; Immutable.js states as the objects the spec built.
      const frontier = (): Frontier<S> =>
        isPacked(inits[0])
          ? new ByteFrontier<S>(layoutOf(inits[0]), spillDir, chunkBytes)
          : typeof inits[0] === 'number'
            ? new NumberFrontier<S>()
            : new ObjectFrontier<S>();
      current = frontier();
      next = frontier();
    }
    if (resumed) {
      if (!(current instanceof ByteFrontier)) throw new Error('only a spec with a layout can resume from a checkpoint');
      expander.enabledCount.set(resumed.enabledCount);
      expander.firedCount.set(resumed.firedCount);
      const w = current.width;
      const count = resumed.level.length / w;
      for (let i = 0; i < count; i++) current.push(inits[0]!, resumed.level.subarray(i * w, (i + 1) * w), log.size - count + i);
    }
    for (const [initIndex, s] of resumed ? [] : inits.entries()) {
      generated++;
      if (!expander.withinConstraint(s)) {
        const bad = expander.firstInitialViolation(s);
        if (bad < 0) continue;
        outside = 1;
        return outcome({ kind: 'violation', stateId: log.add(NO_PARENT, 0, initIndex), invariant: bad });
      }
      expander.fingerprint(s);
      if (!seen.add(expander.hi, expander.lo)) continue;
      recorder?.initial(s, initIndex);
      const id = log.add(NO_PARENT, 0, initIndex);
      curId = id;
      const bad = expander.firstInitialViolation(s);
      expander.markWitnesses(s, witnessesReached);
      if (bad >= 0) return outcome({ kind: 'violation', stateId: id, invariant: bad });
      current!.push(s, expander.bytesOf(s), id);
    }
  } catch (e) {
    if (e instanceof SpecError) return outcome({ kind: 'error', stateId: curId, error: e });
    throw e;
  }

  let parentId = 0;
  /** The state being expanded. */
  let parent: S | null = null;
  let violation: SearchEnd | null = null;
  let pastBudget = false;
  /** Records a successor already fingerprinted (in `hi`, `lo`): counts, parent link, properties, queue. */
  const record = (t: S, actionIndex: number, ordinal: number, hi: number, lo: number): void => {
    if (log.size >= maxStates) {
      // --max-states N keeps exactly N states: a new state past it is only noted, so the run ends incomplete.
      if (!seen.has(hi, lo)) pastBudget = true;
      return;
    }
    if (!seen.add(hi, lo)) return;
    if (ordinal > MAX_ORDINAL) throw new Error(`action ${expander.actions[actionIndex]!.name} has more than ${MAX_ORDINAL} parameter choices`);
    const id = log.add(parentId, actionIndex, ordinal);
    newStates[actionIndex]!++;
    curId = id; // a property that throws is reported at the new state
    const bad = expander.firstViolation(t);
    expander.markWitnesses(t, witnessesReached);
    curId = parentId; // an action that throws is reported at the state being expanded
    if (bad >= 0 && violation === null) violation = { kind: 'violation', stateId: id, invariant: bad };
    nextQueue.push(t, null, id);
  };
  /**
   * A successor outside the CONSTRAINT, or reached by a step outside the ACTION_CONSTRAINT, as TLC treats
   * it: its invariants are checked each time it is reached that way, but it is not a state of the model (not
   * counted, never expanded). Logged only when it breaks one, for the counterexample.
   */
  const checkOutside = (t: S, actionIndex: number, ordinal: number): void => {
    if (violation !== null) return;
    const bad = expander.firstViolation(t);
    if (bad < 0) return;
    outside = 1;
    violation = { kind: 'violation', stateId: log.add(parentId, actionIndex, ordinal), invariant: bad };
  };
  // Per action, the successors the state being expanded gave so far when they go one at a time (below),
  // so that `takeBackFrom` can take back the counts of the action a violation ended the search in.
  const firedNow = recorder === undefined ? null : new Float64Array(expander.actions.length);
  let stoppedIn = -1;
  // The liveness recorder reads each edge's fingerprint as it comes: successors go one at a time.
  const visitNow = (t: S, actionIndex: number, params: unknown, ordinal: number): void => {
    firedNow![actionIndex]!++;
    // As TLC: the search ends at the successor that breaks an invariant; none after it is generated.
    if (violation !== null) return;
    generated++;
    if (constrained && !expander.admits(parent!, t)) {
      checkOutside(t, actionIndex, ordinal);
      expander.fingerprint(t);
      recorder!.outOfModel(actionIndex, params as ActionParams, ordinal);
    } else {
      expander.fingerprint(t);
      recorder!.edge(t, actionIndex, params as ActionParams, ordinal);
      record(t, actionIndex, ordinal, expander.hi, expander.lo);
    }
    if (violation !== null) stoppedIn = actionIndex;
  };
  /**
   * Takes back the counts of actions `from` up to `stop` (the action that threw, or all) of the state just
   * expanded: a search that stops inside an action has not taken that action's counts (the expander adds
   * them once an action is done), nor any later action's.
   */
  const takeBackFrom = (from: number, stop: number, fired: ArrayLike<number>): void => {
    for (let a = from; a < stop; a++) {
      if (fired[a] === 0) continue;
      expander.enabledCount[a]!--;
      expander.firedCount[a]! -= fired[a]!;
    }
  };
  // Otherwise the successors of a state are fingerprinted as they come and looked up in the fingerprint
  // set once the state is expanded whole: the table is tens of megabytes, a lookup is a trip to memory,
  // and lookups issued together wait for memory together instead of one after another (touched as each
  // came, between the spec's steps, they waited one by one). They are recorded in the order they came, so
  // counts, ids and traces are those of visiting each at once.
  const batch = new SuccessorBatch<S>();
  const collect = (t: S, actionIndex: number, _params: unknown, ordinal: number): void => {
    generated++;
    // A step that changed nothing (a write of the value already there gives back the same state, on
    // views as on Immutable.js values) leads to the state being expanded, which was seen already.
    if (t === parent) return batch.push(t, actionIndex, ordinal, 0, 0, 0, KNOWN);
    // As in TLC, the constraints are asked first: a state outside them is in no table (it may share its
    // fingerprint with a state of the model, under a VIEW or a symmetry, or be reached again by a step
    // the ACTION_CONSTRAINT allows).
    if (constrained && !expander.admits(parent!, t)) return batch.push(t, actionIndex, ordinal, 0, 0, 0, OUTSIDE);
    expander.fingerprint(t);
    batch.push(t, actionIndex, ordinal, 0, expander.hi, expander.lo, 0);
  };
  const visit = recorder === undefined ? collect : visitNow;
  /**
   * Records the collected successors, in order. `threw`: expanding the state threw, in the action at
   * `expander.expandingAction` (the successors collected before came first, as they would have).
   */
  const flush = (generatedBefore: number, threw: boolean): void => {
    const n = batch.length;
    if (n === 0) return;
    batch.length = 0;
    const { states, actionOf, ordinalOf, hiOf, loOf, mark: known } = batch;
    // A state the set knows at once (seen a moment ago, by a sibling or a cousin) is not recorded either.
    for (let i = 0; i < n; i++) if (known[i] === 0 && seen.touch(hiOf[i]!, loOf[i]!)) known[i] = KNOWN;
    let i = 0;
    try {
      for (; i < n; i++) {
        if (known[i] === 0) record(states[i]!, actionOf[i]!, ordinalOf[i]!, hiOf[i]!, loOf[i]!);
        else if (known[i] === OUTSIDE) checkOutside(states[i]!, actionOf[i]!, ordinalOf[i]!);
        // As TLC: the search ends at the successor that breaks an invariant; none after it is generated.
        if (violation !== null) return stopAt(i, n, generatedBefore, threw);
      }
    } catch (e) {
      // A property threw at successor i: the search ends there too.
      stopAt(i, n, generatedBefore, threw);
      throw e;
    }
  };
  /**
   * The search ends at successor `i` of the `n` collected: leave the counts as visiting each successor at
   * once would have, when nothing after successor i was generated and its action's counts not yet taken.
   */
  const stopAt = (i: number, n: number, generatedBefore: number, threw: boolean): void => {
    generated = generatedBefore + i + 1;
    const actionOf = batch.actionOf;
    const fired = new Float64Array(expander.actions.length);
    for (let j = 0; j < n; j++) fired[actionOf[j]!]!++;
    takeBackFrom(actionOf[i]!, threw ? expander.expandingAction : expander.actions.length, fired);
  };

  if (current === null || next === null) return outcome({ kind: 'complete' });
  let nextQueue: Frontier<S> = next;
  while (current.remaining > 0) {
    if (depth >= maxDepth) return outcome({ kind: 'incomplete', reason: 'maxDepth' });
    while (current.remaining > 0) {
      const s = current.peekState();
      parent = s;
      parentId = current.peekId();
      curId = parentId;
      try {
        recorder?.expand(s);
        const generatedBefore = generated;
        let count = 0;
        let threw = false;
        try {
          count = expander.successors(s, visit);
        } catch (e) {
          threw = true;
          flush(generatedBefore, true);
          // Unless a successor before the one that threw broke an invariant: the search ended there.
          if (violation === null) throw e;
        }
        flush(generatedBefore, false);
        if (firedNow !== null) {
          if (stoppedIn >= 0) takeBackFrom(stoppedIn, threw ? expander.expandingAction : expander.actions.length, firedNow);
          firedNow.fill(0);
        }
        if (violation === null && count === 0 && deadlock) {
          current.shift();
          return outcome({ kind: 'deadlock', stateId: parentId });
        }
      } catch (e) {
        if (e instanceof SpecError) return outcome({ kind: 'error', stateId: curId, error: e });
        throw e;
      }
      current.shift();
      if (violation !== null) return outcome(violation);
      if (log.size >= maxStates && (pastBudget || current.remaining + next.length > 0)) return outcome({ kind: 'incomplete', reason: 'maxStates' });
      if (limits.lookDue()) {
        if (spillDir !== undefined && mustSpill()) {
          try {
            if (current instanceof ByteFrontier) spilledBytes += current.spillToDisk();
            if (next instanceof ByteFrontier) spilledBytes += next.spillToDisk();
          } catch (e) {
            // A full disk ends the run like any other limit, with the stats so far.
            limits.note(`spilling the frontier to ${spillDir} failed: ${(e as Error).message}`);
            return outcome({ kind: 'incomplete', reason: 'diskWrite' });
          }
        }
        const reason = limits.exceeded(log.size, memoryNow());
        if (reason === 'interrupted' && checkpoints.write && current instanceof ByteFrontier) {
          // Stopped with checkpoints on: finish this level and write a last checkpoint, then stop.
          if (!finishing) options.onFinishingLevel?.();
          finishing = true;
        } else if (reason !== null) return outcome({ kind: 'incomplete', reason });
        limits.progress({ distinct: log.size, generated, queued: current.remaining + next.length, depth });
        if (limits.shouldYield()) await yieldToEventLoop();
      }
    }
    if (next.length === 0) break;
    memoryNow();
    depth++;
    [current, next] = [next, current];
    next.reset();
    nextQueue = next;
    levelStarts.push(log.size - current.length);
    const every = checkpoints.write?.everySeconds ?? Infinity;
    if (checkpoints.write && current instanceof ByteFrontier && (finishing || limits.seconds - lastCheckpointAt >= every)) {
      writeCheckpoint(checkpoints.write, {
        seen,
        log,
        level: current.contiguous(0).bytes,
        levelStarts,
        depth,
        generated,
        newStates,
        witnessesReached,
        enabledCount: expander.enabledCount,
        firedCount: expander.firedCount,
      });
      lastCheckpointAt = limits.seconds;
      if (finishing) return outcome({ kind: 'incomplete', reason: 'interrupted' });
    }
  }
  return outcome({ kind: 'complete' });
}
