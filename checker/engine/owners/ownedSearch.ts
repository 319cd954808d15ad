/**
 * Breadth-first search with the seen set and the frontier partitioned among owners by fingerprint, level
 * by level (Stern and Dill's parallel Murphi; PReach): each owner expands its part of a level and sends
 * every successor to the successor's owner, which keeps the new ones. The driver (this code) holds no
 * state of the model past the initial ones: it starts each level, learns from the owners' message counts
 * when every batch is in, merges the owners' keys into the next level's ranks, and decides where the
 * search ends. An owner is an object here (localOwners.ts), a worker thread (threadOwners.ts) or a worker
 * process on another machine (../cluster/).
 *
 * Counts, coverage, depth and counterexamples are those of the search in one thread (bfs.ts), for any
 * number of owners: see ownerProtocol.ts for why.
 */
import { type Expander, SpecError } from '../expander.ts';
import type { CheckOptions } from '../options.ts';
import type { Limits } from '../limits.ts';
import type { SearchEnd, SearchOutcome } from '../search.ts';
import type { IncompleteReason } from '../result.ts';
import { FingerprintSet } from '../state/fingerprintSet.ts';
import { NO_PARENT, StateLog } from '../stateLog.ts';
import { receiveSpecError } from '../parallel/sentSpecError.ts';
import { isPacked } from '../state/packed.ts';
import type { CheckpointTarget } from '../checkpoint.ts';
import { type OwnerCheckpoint, writeOwnerCheckpoint } from './ownerCheckpoint.ts';
import { type AbsorbReport, type DriverCommit, type InitialState, type OwnerGroup, type OwnerLink, OwnerLost, type Stop, allOf, earlier, KEY_SPAN, ownerOf } from './ownerProtocol.ts';

/** Checkpoints on this machine's disk: where to write them, and one to resume from (owners in this process or its threads). */
export interface OwnerCheckpoints {
  readonly write?: CheckpointTarget;
  readonly resume?: OwnerCheckpoint;
}

/** How often a phase of owners working apart looks for a limit or a signal. */
const STOP_POLL_MS = 100;

/** A limit or a signal came while the owners worked on a level. */
class StopRequested extends Error {
  constructor(readonly reason: IncompleteReason) {
    super(reason);
  }
}

/** After this many lost owners in one run the search gives up: the cluster is not healthy. */
const MAX_RECOVERIES = 5;

/**
 * The owners are made (`ownersFor`) once the initial states are known to be sound, and closed at the end.
 * `resumed`: the owners come with a commit of an earlier driver (a cluster's run), which the search goes on from.
 */
export async function ownedBreadthFirst<S>(
  expander: Expander<S>,
  options: CheckOptions,
  limits: Limits,
  ownerCount: number,
  ownersFor: () => Promise<OwnerGroup>,
  resumed = false,
  disk: OwnerCheckpoints = {},
): Promise<SearchOutcome> {
  let group: OwnerGroup = { links: [], close: async () => {} };
  let owners: readonly OwnerLink[] = [];
  /** A run stopped by a limit or a signal is kept where its owners can resume it (a cluster's). */
  let keep = false;
  const actions = expander.actions.length;
  const newStates = new Float64Array(actions);
  const witnessesReached = new Uint8Array(expander.witnesses.length);
  const maxDepth = options.maxDepth ?? Infinity;
  const maxStates = options.maxStates ?? Infinity;
  /** The limits the driver polls; --max-states is not one: the levels end it exactly (`withBudget`). */
  const exceeded = (): IncompleteReason | null => limits.exceeded(0, ownerBytes);
  let distinct = 0;
  let generated = 0;
  let depth = 0;
  let queued = 0;
  let ownerBytes = 0;
  /** The most the owners held at once: each holds the level it expands beside the next one's candidates, at the widest level most. */
  let peakOwnerBytes = 0;
  let log = new StateLog();
  let batches = 0;
  let bytesSent = 0;
  const phases = { expand: [] as number[], absorb: [] as number[], barrier: [] as number[] };

  const outcome = (end: SearchEnd, nextLevel = 0): SearchOutcome => ({
    end,
    log,
    distinct,
    generated,
    depth: distinct > 0 ? depth + 1 + (nextLevel > 0 ? 1 : 0) : 0,
    queued,
    newStates,
    witnessesReached,
    offHeapBytes: peakOwnerBytes,
    workers: ownerCount,
    owned: {
      levels: phases.expand.length,
      batches,
      bytesSent,
      expandMs: median(phases.expand),
      absorbMs: median(phases.absorb),
      barrierMs: median(phases.barrier),
      ...(group.threadsJoined ? { threadsJoined: [...group.threadsJoined] } : {}),
    },
  });

  /** When the last checkpoint on disk was written, and the depth it holds. */
  let savedAt = limits.seconds;
  let savedDepth = -1;

  let failed = false;
  try {
    if (disk.resume) return await resumeFromDisk(disk.resume);
    if (!resumed) return await search();
    group = await ownersFor();
    owners = group.links;
    if (group.resumedFrom === undefined) throw new Error('the owners of a resumed run came without the commit to resume from');
    log = new StateLog();
    return await levels(resumeFrom(group.resumedFrom));
  } catch (e) {
    failed = true;
    throw e;
  } finally {
    await group.close(keep, failed);
  }

  async function search(): Promise<SearchOutcome> {
    // Level 0, here, as the search in one thread does it.
    const initials: InitialState[] = [];
    {
      const seen = new FingerprintSet();
      let at = -1;
      try {
        const inits = expander.initialStates();
        if (inits.length > 0 && !isPacked(inits[0])) throw new Error('a search partitioned among owners needs a spec declared with a layout');
        for (const [initIndex, s] of inits.entries()) {
          generated++;
          if (!expander.withinConstraint(s)) {
            const bad = expander.firstInitialViolation(s);
            if (bad < 0) continue;
            queued = initials.length;
            return outcome({ kind: 'violation', stateId: log.add(NO_PARENT, 0, initIndex), invariant: bad });
          }
          expander.fingerprint(s);
          const hi = expander.hi;
          const lo = expander.lo;
          if (!seen.add(hi, lo)) continue;
          at = log.add(NO_PARENT, 0, initIndex);
          distinct++;
          const bad = expander.firstInitialViolation(s);
          expander.markWitnesses(s, witnessesReached);
          if (bad >= 0) {
          queued = initials.length + 1;
          return outcome({ kind: 'violation', stateId: at, invariant: bad });
        }
          initials.push({ hi, lo, rank: initials.length, initIndex, bytes: expander.bytesOf(s).slice() });
        }
      } catch (e) {
        if (e instanceof SpecError) return outcome({ kind: 'error', stateId: at, error: e });
        throw e;
      }
    }
    // The owners keep their own logs; the driver's holds a counterexample's path once one is found.
    log = new StateLog();
    group = await ownersFor();
    owners = group.links;
    await allOf(owners.map((o, t) => o.start(initials.filter((s) => ownerOf(s.hi, owners.length) === t))));
    let levelSize = initials.length;
    await group.commit?.(commitOf(levelSize));
    return await levels(levelSize);
  }

  async function resumeFromDisk(saved: OwnerCheckpoint): Promise<SearchOutcome> {
    group = await ownersFor();
    owners = group.links;
    await allOf(owners.map((o, t) => o.restoreSnapshot!(saved.snapshots[t]!)));
    savedDepth = saved.commit.depth;
    return await levels(resumeFrom(saved.commit));
  }

  /** At a level boundary: a checkpoint on disk, when one is due (or `now`, as a stopped run ends). */
  async function save(levelSize: number, now: boolean): Promise<void> {
    const target = disk.write;
    if (target === undefined || savedDepth === depth || (!now && limits.seconds - savedAt < target.everySeconds)) return;
    const snapshots = await allOf(owners.map((o) => o.snapshot!()));
    writeOwnerCheckpoint(target, commitOf(levelSize), snapshots);
    savedAt = limits.seconds;
    savedDepth = depth;
  }

  /** Every level from the one of `levelSize` states on, each again from the last commit after a lost owner. */
  async function levels(levelSize: number): Promise<SearchOutcome> {
    let recoveries = 0;
    while (levelSize > 0) {
      if (depth >= maxDepth) return await ended({ kind: 'incomplete', reason: 'maxDepth' });
      let next: number | SearchOutcome;
      try {
        await group.atBoundary?.(depth);
        next = await level(levelSize);
      } catch (e) {
        if (e instanceof StopRequested) {
          keep = true;
          await save(levelSize, true);
          return await ended({ kind: 'incomplete', reason: e.reason });
        }
        if (!(e instanceof OwnerLost) || group.recover === undefined || ++recoveries > MAX_RECOVERIES) throw e;
        limits.note(`${e.message}; the search went back to its last commit`);
        levelSize = resumeFrom(await group.recover(e));
        continue;
      }
      if (typeof next !== 'number') return next;
      if (next === 0) break;
      levelSize = next;
      const reason = exceeded();
      await save(levelSize, reason !== null);
      if (reason !== null) {
        keep = true;
        return await ended({ kind: 'incomplete', reason });
      }
    }
    queued = 0;
    return await ended({ kind: 'complete' });
  }

  /** One level: the size of the next, or how the search ends inside this one. */
  async function level(levelSize: number): Promise<number | SearchOutcome> {
    const t0 = performance.now();
    const expanded = await stoppable(allOf(owners.map((o) => o.expand()), group.interrupt));
    const expected = owners.map((_, t) => expanded.reduce((n, r) => n + r.sent[t]!, 0));
    const t1 = performance.now();
    const absorbed = await stoppable(allOf(owners.map((o, t) => o.absorb(expected[t]!)), group.interrupt));
    const t2 = performance.now();
    for (const r of expanded) bytesSent += r.bytesSent;
    batches += expected.reduce((a, b) => a + b, 0);
    ownerBytes = absorbed.reduce((n, a) => n + a.bytes, 0);
    peakOwnerBytes = Math.max(peakOwnerBytes, ownerBytes);
    let parentStop: Stop | null = null;
    let newStateStop: Stop | null = null;
    for (const r of expanded) parentStop = earlier(parentStop, r.stop);
    for (const a of absorbed) newStateStop = earlier(newStateStop, a.stop);
    const nextSize = absorbed.reduce((n, a) => n + a.count, 0);
    const stop = withBudget(parentStop, newStateStop, absorbed, levelSize, nextSize);
    if (stop !== null) return await stopInside(stop, levelSize);
    const ranks = mergeRanks(absorbed);
    await allOf(owners.map((o, t) => o.rank(ranks[t]!)), group.interrupt);
    for (const r of expanded) generated += r.generated;
    for (const a of absorbed) {
      for (let i = 0; i < actions; i++) newStates[i]! += a.newStates[i]!;
      for (const w of a.witnesses) witnessesReached[w] = 1;
    }
    distinct += nextSize;
    if (nextSize === 0) return 0;
    depth++;
    queued = nextSize;
    await group.commit?.(commitOf(nextSize));
    phases.expand.push(t1 - t0);
    phases.absorb.push(t2 - t1);
    phases.barrier.push(performance.now() - t2);
    limits.progress({ distinct, generated, queued, depth });
    return nextSize;
  }

  /**
   * A phase of owners working apart (on a cluster, minutes for a large level) ends as soon as a limit or a
   * signal comes: the owners are told to drop the level, and once each has, the search stops with the
   * counts of the last level boundary.
   */
  async function stoppable<T>(phase: Promise<T>): Promise<T> {
    let watch: ReturnType<typeof setInterval> | undefined;
    const stop = new Promise<never>((_, reject) => {
      watch = setInterval(() => {
        const reason = exceeded();
        if (reason !== null) reject(new StopRequested(reason));
      }, STOP_POLL_MS);
    });
    try {
      return await Promise.race([phase, stop]);
    } catch (e) {
      if (e instanceof StopRequested) {
        group.interrupt?.();
        await phase.catch(() => {});
      }
      throw e;
    } finally {
      clearInterval(watch);
    }
  }

  /**
   * --max-states N keeps exactly N states, as the search in one thread does: it logs new states up to the
   * Nth and ends once that state's parent is expanded (bfs.ts). So the budget ends in the level that
   * brings the Nth state (or, when the initial states are N already, after the level's first parent,
   * unless nothing is left to do): there the search stops, unless it stops earlier for another reason.
   * Where the search stops earlier: at a parent (`parentStop`: an action threw, a deadlock, a successor
   * outside the constraints broke an invariant) up to the budget's last parent, which is expanded whole;
   * at a new state (`newStateStop`) up to the last one logged. A stop in the budget's last parent past its
   * last state logs nothing past that state.
   */
  function withBudget(parentStop: Stop | null, newStateStop: Stop | null, absorbed: readonly AbsorbReport[], levelSize: number, nextSize: number): Stop | null {
    const stop = earlier(parentStop, newStateStop);
    if (maxStates === Infinity) return stop;
    const room = maxStates - distinct;
    if (nextSize < room) return stop;
    let lastAdmitted: number;
    let budgetKey: number;
    if (room > 0) {
      lastAdmitted = nthKey(absorbed, room);
      budgetKey = lastAdmitted;
    } else {
      if (levelSize === 1 && nextSize === 0) return stop; // one parent, nothing new: the search ends complete
      lastAdmitted = -1;
      budgetKey = 0;
    }
    const lastParent = Math.floor(budgetKey / KEY_SPAN);
    const within = earlier(
      parentStop !== null && Math.floor(parentStop.key / KEY_SPAN) <= lastParent ? parentStop : null,
      newStateStop !== null && newStateStop.key <= lastAdmitted ? newStateStop : null,
    );
    if (within !== null) return { ...within, lastAdmitted };
    const none = { invariant: -1, traceHi: 0, traceLo: 0, stepPast: -1, generatedInParent: 0, keepActionsBelow: actions };
    return { ...none, key: budgetKey, end: 'maxStates', state: room > 0 ? 'queued' : 'none', lastAdmitted };
  }

  /** The driver's counts at a level boundary, as a cluster's checkpoint keeps them. */
  function commitOf(levelSize: number): DriverCommit {
    return { depth, distinct, generated, levelSize, newStates: [...newStates], witnesses: [...witnessesReached] };
  }

  /** The driver's counts back at a commit; returns the size of the level to expand. */
  function resumeFrom(c: DriverCommit): number {
    depth = c.depth;
    distinct = c.distinct;
    generated = c.generated;
    newStates.set(c.newStates);
    witnessesReached.set(c.witnesses);
    queued = c.levelSize;
    return c.levelSize;
  }

  /** The search ends at a level boundary: coverage is the owners' sums. */
  async function ended(end: SearchEnd): Promise<SearchOutcome> {
    const covered = await Promise.all(owners.map((o) => o.coverage()));
    sumCoverage(covered);
    return outcome(end);
  }

  function sumCoverage(covered: readonly { enabled: number[]; fired: number[] }[]): void {
    expander.enabledCount.fill(0);
    expander.firedCount.fill(0);
    for (const c of covered) {
      for (let a = 0; a < actions; a++) {
        expander.enabledCount[a]! += c.enabled[a]!;
        expander.firedCount[a]! += c.fired[a]!;
      }
    }
  }

  /** The search ends at `stop`, inside the level being expanded: every count as one thread has it there. */
  async function stopInside(stop: Stop, levelSize: number): Promise<SearchOutcome> {
    const cuts = await Promise.all(owners.map((o) => o.cut(stop)));
    sumCoverage(cuts);
    let nextLevel = 0;
    generated += stop.generatedInParent;
    for (const c of cuts) {
      generated += c.generated;
      distinct += c.logged;
      nextLevel += c.queued;
      for (let i = 0; i < actions; i++) newStates[i]! += c.newStates[i]!;
      for (const w of c.witnesses) witnessesReached[w] = 1;
    }
    const parentRank = Math.floor(stop.key / KEY_SPAN);
    queued = levelSize - parentRank - (stop.end === 'error' ? 0 : 1) + nextLevel;
    if (stop.end === 'maxStates') return outcome({ kind: 'incomplete', reason: 'maxStates' }, nextLevel);
    // The trace ends at a parent of this level, or at a new state of the next (found while taking it in).
    const stateId = await pathTo(stop.traceHi, stop.traceLo, stop.state === 'none' ? depth : depth + 1, stop.stepPast);
    const end: SearchEnd =
      stop.end === 'violation'
        ? { kind: 'violation', stateId, invariant: stop.invariant }
        : stop.end === 'deadlock'
          ? { kind: 'deadlock', stateId }
          : { kind: 'error', stateId, error: receiveSpecError(stop.error!) };
    return outcome(end, nextLevel);
  }

  /** Follows parent fingerprints from owner to owner, a level at a time, back to an initial state; logs the path; returns its last id. */
  async function pathTo(hi: number, lo: number, at: number, stepPast: number): Promise<number> {
    const steps: { action: number; ordinal: number }[] = [];
    for (; ; at--) {
      const link = await owners[ownerOf(hi, owners.length)]!.linkOf(hi, lo, at);
      steps.push({ action: link.action, ordinal: link.ordinal });
      if (link.initial) break;
      hi = link.parentHi;
      lo = link.parentLo;
    }
    steps.reverse();
    let id = NO_PARENT;
    for (const [k, s] of steps.entries()) id = k === 0 ? log.add(NO_PARENT, 0, s.ordinal) : log.add(id, s.action, s.ordinal);
    if (stepPast >= 0) id = log.add(id, Math.floor(stepPast / (1 << 22)), stepPast % (1 << 22));
    return id;
  }
}

/** Calls `each(owner, key)` for the first `n` keys of every owner's new states, merged, least first. */
function mergeKeys(absorbed: readonly AbsorbReport[], n: number, each: (owner: number, key: number) => void): void {
  const heads = new Array<number>(absorbed.length).fill(0);
  for (let k = 0; k < n; k++) {
    let best = -1;
    let bestKey = Infinity;
    for (let t = 0; t < absorbed.length; t++) {
      const h = heads[t]!;
      if (h < absorbed[t]!.count && absorbed[t]!.keys[h]! < bestKey) {
        bestKey = absorbed[t]!.keys[h]!;
        best = t;
      }
    }
    heads[best]!++;
    each(best, bestKey);
  }
}

/** The `n`th least key (from 1) of every owner's new states. */
function nthKey(absorbed: readonly AbsorbReport[], n: number): number {
  let last = -1;
  mergeKeys(absorbed, n, (_, key) => (last = key));
  return last;
}

/** Each owner's ranks for its new states: their positions when every owner's keys are merged. */
function mergeRanks(absorbed: readonly AbsorbReport[]): Uint32Array[] {
  const ranks = absorbed.map((a) => new Uint32Array(a.count));
  const next = new Array<number>(absorbed.length).fill(0);
  let rank = 0;
  mergeKeys(absorbed, absorbed.reduce((n, a) => n + a.count, 0), (t) => (ranks[t]![next[t]!++] = rank++));
  return ranks;
}

function median(xs: readonly number[]): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[s.length >> 1]! * 10) / 10;
}
