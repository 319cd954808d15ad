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
import type { ResumePoint, SearchEnd, SearchOutcome } from './search.ts';
import { ByteFrontier, type Frontier, ObjectFrontier } from './frontier.ts';
import { isPacked, layoutOf } from './state/packed.ts';
import { tmpdir } from 'node:os';
import { type CheckpointIdentity, type CheckpointState, writeCheckpoint } from './checkpoint.ts';
import type { LivenessRecorder } from './liveness/checkLiveness.ts';

/** Where to write checkpoints at level boundaries, and a checkpoint to start from. */
export interface Checkpoints {
  readonly write?: { readonly directory: string; readonly everySeconds: number; readonly identity: CheckpointIdentity };
  readonly resumeFrom?: CheckpointState;
}
import { join } from 'node:path';

/**
 * With `handOver`, the search records how each state was produced and, at the first level boundary where
 * `handOver` says so, stops and returns a `ResumePoint` for the parallel coordinator to go on from.
 * With `recorder` (a search from the initial states, neither handed over nor resumed), every state and
 * edge is also given to the liveness check, which then needs no exploration of its own.
 */
export async function breadthFirst<S>(
  expander: Expander<S>,
  options: CheckOptions,
  limits: Limits,
  handOver?: (distinct: number, seconds: number) => boolean,
  checkpoints: Checkpoints = {},
  recorder?: LivenessRecorder<S>,
): Promise<SearchOutcome | ResumePoint> {
  if (recorder && (handOver || checkpoints.resumeFrom)) throw new Error('the liveness graph is recorded only by a whole search in one thread');
  const resumed = checkpoints.resumeFrom;
  const seen = resumed?.seen ?? new FingerprintSet();
  const log = resumed?.log ?? new StateLog();
  if (expander.actions.length > MAX_ACTIONS) throw new Error(`a model may have at most ${MAX_ACTIONS} actions`);
  const newStates = resumed ? Float64Array.from(resumed.newStates) : new Float64Array(expander.actions.length);
  const witnessesReached = resumed ? Uint8Array.from(resumed.witnessesReached) : new Uint8Array(expander.witnesses.length);
  const deadlock = options.deadlock ?? true;
  const maxDepth = options.maxDepth ?? Infinity;
  const maxStates = options.maxStates ?? Infinity;
  let generated = resumed?.generated ?? 0;
  let depth = resumed?.depth ?? 0; // index of the level being expanded; reported as TLC does, counting states (levels)
  let current: Frontier<S> | null = null;
  let next: Frontier<S> | null = null;
  const levelStarts = resumed ? [...resumed.levelStarts] : [0];
  let lastCheckpointAt = limits.seconds;
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

  const outcome = (end: SearchEnd): SearchOutcome => ({
    end,
    log,
    distinct: log.size,
    generated,
    depth: log.size > 0 ? depth + 1 : 0,
    queued: (current?.remaining ?? 0) + (next?.length ?? 0),
    newStates,
    witnessesReached,
    offHeapBytes: memory(),
    workers: 1,
    spilledBytes,
  });

  // Level 0: the initial states.
  let curId = NO_PARENT;
  try {
    const inits = expander.initialStates();
    if (inits.length > 0) {
      // Packed states are kept as bytes; Immutable.js states as the objects the spec built.
      current = isPacked(inits[0]) ? new ByteFrontier<S>(layoutOf(inits[0]), spillDir, chunkBytes) : new ObjectFrontier<S>();
      next = isPacked(inits[0]) ? new ByteFrontier<S>(layoutOf(inits[0]), spillDir, chunkBytes) : new ObjectFrontier<S>();
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
      expander.fingerprint(s);
      if (!seen.add(expander.hi, expander.lo)) continue;
      recorder?.initial(s, initIndex);
      const id = log.add(NO_PARENT, 0, initIndex);
      curId = id;
      const bad = expander.firstViolation(s);
      expander.markWitnesses(s, witnessesReached);
      if (bad >= 0) return outcome({ kind: 'violation', stateId: id, invariant: bad });
      current!.push(s, expander.bytesOf(s), id);
    }
  } catch (e) {
    if (e instanceof SpecError) return outcome({ kind: 'error', stateId: curId, error: e });
    throw e;
  }

  let parentId = 0;
  let violation: SearchEnd | null = null;
  let pastBudget = false;
  const visit = (t: S, actionIndex: number, _params: unknown, ordinal: number): void => {
    generated++;
    expander.fingerprint(t);
    recorder?.edge(t, actionIndex, _params as ActionParams, ordinal);
    const hi = expander.hi;
    const lo = expander.lo;
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

  if (current === null || next === null) return outcome({ kind: 'complete' });
  let nextQueue: Frontier<S> = next;
  let sinceCheck = 0;
  while (current.remaining > 0) {
    if (depth >= maxDepth) return outcome({ kind: 'incomplete', reason: 'maxDepth' });
    while (current.remaining > 0) {
      const s = current.peekState();
      parentId = current.peekId();
      curId = parentId;
      try {
        if (expander.withinConstraint(s)) {
          recorder?.expand(s);
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
      if (log.size >= maxStates && (pastBudget || current.remaining + next.length > 0)) return outcome({ kind: 'incomplete', reason: 'maxStates' });
      if (++sinceCheck >= 512) {
        sinceCheck = 0;
        if (spillDir !== undefined && mustSpill()) {
          try {
            if (current instanceof ByteFrontier) spilledBytes += current.spillToDisk();
            if (next instanceof ByteFrontier) spilledBytes += next.spillToDisk();
          } catch (e) {
            // A full disk ends the run like any other limit, with the stats so far.
            limits.note(`spilling the frontier to ${spillDir} failed: ${(e as Error).message}`);
            return outcome({ kind: 'incomplete', reason: 'memoryBudget' });
          }
        }
        const reason = limits.exceeded(log.size, memory());
        if (reason !== null) return outcome({ kind: 'incomplete', reason });
        limits.progress({ distinct: log.size, generated, queued: current.remaining + next.length, depth });
        if (limits.shouldYield()) await yieldToEventLoop();
      }
    }
    if (next.length === 0) break;
    depth++;
    [current, next] = [next, current];
    next.reset();
    nextQueue = next;
    levelStarts.push(log.size - current.length);
    const every = checkpoints.write?.everySeconds ?? Infinity;
    if (checkpoints.write && current instanceof ByteFrontier && limits.seconds - lastCheckpointAt >= every) {
      writeCheckpoint(checkpoints.write.directory, {
        identity: checkpoints.write.identity,
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
    }
    if (handOver?.(log.size, limits.seconds)) {
      return { seen, log, levelStarts, generated, depth, newStates, witnessesReached, frontier: current };
    }
  }
  return outcome({ kind: 'complete' });
}
