/**
 * Breadth-first search of Immutable.js states with worker threads, giving exactly the counts and traces
 * of the sequential search (bfs.ts) for any number of workers. Workers expand their shares of a level
 * (this thread is one of them: `--workers N` starts N - 1 threads); this thread merges their reports in the
 * sequential order, owns the seen-set and the state log, and decides where the search ends. A new state
 * belongs to the worker that expanded its parent, which makes it again (one action re-run), checks it and
 * expands it next (protocol.ts).
 */
import { Worker } from 'node:worker_threads';
import type { ParamValues } from '../../../spec/spec.ts';
import { Expander } from '../expander.ts';
import { yieldToEventLoop } from '../limits.ts';
import { ImmutableShare } from './immutableShare.ts';
import type { CheckOptions } from '../options.ts';
import type { Limits } from '../limits.ts';
import type { ResumePoint, SearchEnd, SearchOutcome } from '../search.ts';
import type { IncompleteReason } from '../result.ts';
import { CANDIDATE_WORDS, NEW_STATE_WORDS, OUTSIDE_CONSTRAINT, PARENT_HEADER, receiveSpecError, type SentSpecError, type FromWorker, type ToWorker, type WorkerSetup } from './protocol.ts';

/** How a worker thread loads the same model: a module path and the parameters to build it with. */
export interface ModelSource {
  readonly modulePath: string;
  readonly params: ParamValues;
}

/** A worker of the search, as the coordinator talks to it: a thread, or this thread's own share. */
interface ShareHandle {
  send(m: ToWorker): void;
  receive<T extends FromWorker['type']>(type: T): Promise<Extract<FromWorker, { type: T }>>;
  stop(): Promise<void>;
}

class WorkerHandle implements ShareHandle {
  private readonly worker: Worker;
  private waiting: ((m: FromWorker) => void) | null = null;
  private readonly inbox: FromWorker[] = [];
  private failure: Error | null = null;
  /** The thread has loaded the model (its `ready` is in the inbox), or failed (the failure is). */
  settled = false;

  constructor(setup: WorkerSetup) {
    this.worker = new Worker(new URL('./workerEntry.mjs', import.meta.url), { workerData: setup });
    this.worker.on('message', (m: FromWorker) => this.deliver(m));
    this.worker.on('error', (e) => this.fail(e));
    this.worker.on('exit', (code) => {
      if (code !== 0) this.fail(new Error(`worker thread exited with code ${code}`));
    });
  }

  private deliver(m: FromWorker): void {
    if (m.type === 'ready' || m.type === 'failed') this.settled = true;
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = null;
      w(m);
    } else this.inbox.push(m);
  }

  private fail(e: Error): void {
    this.failure = e;
    this.deliver({ type: 'failed', message: e.message });
  }

  send(m: ToWorker): void {
    if (this.failure) throw this.failure;
    this.worker.postMessage(m);
  }

  async receive<T extends FromWorker['type']>(type: T): Promise<Extract<FromWorker, { type: T }>> {
    const m = this.inbox.shift() ?? (await new Promise<FromWorker>((resolve) => (this.waiting = resolve)));
    if (m.type === 'failed') throw new Error(`a worker thread failed: ${m.message}`);
    if (m.type !== type) throw new Error(`worker protocol: expected ${type}, got ${m.type}`);
    return m as Extract<FromWorker, { type: T }>;
  }

  async stop(): Promise<void> {
    await this.worker.terminate();
  }
}

/** How long this thread expands its share before its event loop turns (signals, the limits' timer). */
const SLICE_MS = 40;

/**
 * This thread's own share, the last worker: a message with a reply is carried out when the reply is asked
 * for, so the threads have theirs first and work meanwhile.
 */
class LocalShare implements ShareHandle {
  private pending: ToWorker | null = null;
  private stopped = false;

  constructor(private readonly share: ImmutableShare) {}

  send(m: ToWorker): void {
    if (m.type === 'share') this.share.share();
    else this.pending = m;
  }

  async receive<T extends FromWorker['type']>(type: T): Promise<Extract<FromWorker, { type: T }>> {
    const m = this.pending!;
    this.pending = null;
    return (await this.carryOut(m)) as Extract<FromWorker, { type: T }>;
  }

  private async carryOut(m: ToWorker): Promise<FromWorker> {
    switch (m.type) {
      case 'start':
        this.share.start(m.initIndexes);
        return { type: 'started' };
      case 'replay':
        this.share.replay(m.newStates);
        return { type: 'replayed' };
      case 'expand':
        this.share.beginExpand(m.seen);
        // A search that a limit ends mid-level stops this share too; its report then goes unread.
        while (!this.share.expandFor(SLICE_MS) && !this.stopped) await yieldToEventLoop();
        return this.share.expanded();
      case 'advance':
        this.share.beginAdvance(m.keep, m.firstId);
        while (!this.share.advanceFor(SLICE_MS) && !this.stopped) await yieldToEventLoop();
        return this.share.advanced();
      default:
        throw new Error(`worker protocol: ${m.type} has no reply`);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
  }
}

/**
 * The Immutable.js search's worker threads: `count` workers are this thread and `count - 1` threads,
 * started with the search, so they load the model while the first levels are searched in one thread.
 * That search hands over once every thread is ready, waiting for them a few seconds at most
 * (`readyWithin`): a thread that never loads leaves the search in one thread, not waiting forever.
 */
export class ImmutableWorkerThreads {
  readonly threads: readonly WorkerHandle[];

  constructor(
    source: ModelSource,
    readonly symmetry: boolean,
    readonly count: number,
  ) {
    this.threads = Array.from({ length: count - 1 }, (_, index) => new WorkerHandle({ modulePath: source.modulePath, params: source.params, symmetry, index, count }));
  }

  /** Every thread has loaded the model (or failed, which the hand-over then reports). */
  get ready(): boolean {
    return this.threads.every((t) => t.settled);
  }

  /** Whether every thread is ready within `ms`; it stops waiting as soon as `stop` says so (a limit, a signal). */
  async readyWithin(ms: number, stop: () => boolean): Promise<boolean> {
    const until = performance.now() + ms;
    while (!this.ready && performance.now() < until && !stop()) await new Promise((resolve) => setTimeout(resolve, 20));
    return this.ready;
  }

  async stop(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.stop()));
  }
}

export async function parallelBreadthFirst<S>(
  expander: Expander<S>,
  pool: ImmutableWorkerThreads,
  options: CheckOptions,
  limits: Limits,
  resume: ResumePoint,
): Promise<SearchOutcome> {
  // `count` workers: this thread, the last, and count - 1 threads (so N workers keep N cores busy).
  const { threads, symmetry, count } = pool;
  // With an expander of its own: the search takes coverage from the workers' reports, so the expander that
  // keeps the search's counts must not also count this share's successors as they are made.
  const own = new LocalShare(new ImmutableShare(new Expander(expander.model, symmetry) as Expander<unknown>, count - 1, count));
  const workers: ShareHandle[] = [...threads, own];
  try {
    // The search in one thread hands over once every thread is ready (ImmutableWorkerThreads): no wait here.
    await Promise.all(threads.map((w) => w.receive('ready')));
    return await search(expander, workers, options, limits, resume);
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
  }
}

async function search<S>(expander: Expander<S>, workers: ShareHandle[], options: CheckOptions, limits: Limits, resume: ResumePoint): Promise<SearchOutcome> {
  const n = workers.length;
  const { seen, log, newStates } = resume;
  const witnessesReached = new Uint8Array(expander.witnesses.length);
  // Witnesses reached before the hand-over were reached by states older than any later stop point.
  const witnessFirstId = Float64Array.from(resume.witnessesReached, (r) => (r ? 0 : -1));
  const deadlock = options.deadlock ?? true;
  const maxDepth = options.maxDepth ?? Infinity;
  const maxStates = options.maxStates ?? Infinity;
  let generated = resume.generated;
  let depth = resume.depth;


  /** The id of a state outside the CONSTRAINT logged for its violation, or -1 (a rewind may drop it again). */
  let outsideId = -1;
  const outcome = (end: SearchEnd): SearchOutcome => {
    const lastId = log.size - 1;
    const distinct = log.size - (outsideId >= 0 && outsideId < log.size ? 1 : 0);
    witnessFirstId.forEach((id, w) => (witnessesReached[w] = id >= 0 && id <= lastId ? 1 : 0));
    return {
      end,
      log,
      distinct,
      generated,
      // As TLC counts it: the levels that hold a state of the model, the one being found included.
      depth: distinct > 0 ? depth + 1 + (distinct > levelFirstId + levelSize ? 1 : 0) : 0,
      queued: 0,
      newStates,
      witnessesReached,
      offHeapBytes: seen.bytes + log.bytes,
      workers: n,
    };
  };
  const noteWitnesses = (mins: Float64Array) =>
    mins.forEach((id, w) => {
      if (id >= 0 && (witnessFirstId[w] === -1 || id < witnessFirstId[w]!)) witnessFirstId[w] = id;
    });


  // Each worker holds a level of live states in its own heap: those count against the budget too.
  const workerHeaps = new Float64Array(n);
  const memory = () => seen.bytes + log.bytes + workerHeaps.reduce((a, b) => a + b, 0);
  let { levelFirstId, levelSize } = await rebuildLevels(workers, resume);
  /** Per position in the level, the worker that holds the state there. */
  let holders = Uint16Array.from({ length: levelSize }, (_, pos) => pos % n);

  while (levelSize > 0) {
    if (depth >= maxDepth) return outcome({ kind: 'incomplete', reason: 'maxDepth' });
    for (const w of workers) w.send({ type: 'expand', seen: seen.buffer });
    // The limits are watched while the workers expand the level, not only once it is done; a stop here
    // ends the search with the counts of the last whole level.
    const expanded = await withinLimits(Promise.all(workers.map((w) => w.receive('expanded'))), () => limits.exceeded(log.size, memory()));
    if ('reason' in expanded) return outcome({ kind: 'incomplete', reason: expanded.reason });
    const reports = expanded.done;
    reports.forEach((r, i) => (workerHeaps[i] = r.heapUsed));

    // Merge in position order: each worker expanded its share in position order, one record a state.
    const parentCursor = new Array<number>(n).fill(0);
    const candidateCursor = new Array<number>(n).fill(0);
    const accepted: number[] = []; // NEW_STATE_WORDS per new state
    /** Per new state, its index among its parent's successors. */
    const acceptedIndex: number[] = [];
    /** Per new state, the worker that holds its parent, and the parent's index in that worker's share. */
    const acceptedFrom: number[] = [];
    const acceptedParent: number[] = [];
    const parentsMerged = new Array<number>(n).fill(0);
    const parentEnds: { position: number; generatedBefore: number; pairsFrom: number; worker: number }[] = [];
    let stop: SearchEnd | null = null;
    const firstNewId = log.size;
    const generatedAtLevel = generated;
    let mergedTo = -1;
    let pastBudget = false;
    let outsideViolation: SearchEnd | null = null;
    for (let pos = 0; pos < levelSize; pos++) {
      const wi = holders[pos]!;
      const report = reports[wi]!;
      if (report.error !== null && report.error.position === pos && parentCursor[wi]! >= report.parents.length) break;
      const at = parentCursor[wi]!;
      const p = report.parents;
      const gen = p[at]!;
      const cands = p[at + 1]!;
      const flags = p[at + 2]!;
      const pairs = p[at + 3]!;
      parentCursor[wi] = at + PARENT_HEADER + 2 * pairs;
      const generatedBefore = generated;
      generated += gen;
      const parentId = levelFirstId + pos;
      const c = report.candidates;
      for (let k = 0; k < cands; k++) {
        const ci = candidateCursor[wi]! * CANDIDATE_WORDS;
        candidateCursor[wi]!++;
        const hi = c[ci]!;
        const lo = c[ci + 1]!;
        if ((c[ci + 2]! & OUTSIDE_CONSTRAINT) !== 0) {
          // Outside the constraints and breaking invariant `hi` (protocol.ts): logged, not counted, and sent
          // with the new states so that the workers check it in its place. The search ends at it (as TLC,
          // bfs.ts) unless a bad state before it ends it first: the parent's later successors are not merged.
          outsideId = log.add(parentId, c[ci + 2]! & ~OUTSIDE_CONSTRAINT, c[ci + 3]!);
          outsideViolation = { kind: 'violation', stateId: outsideId, invariant: hi };
          accepted.push(pos, c[ci + 2]!, c[ci + 3]!);
          acceptedIndex.push(c[ci + 4]!);
          acceptedFrom.push(wi);
          acceptedParent.push(parentsMerged[wi]!);
          candidateCursor[wi]! += cands - k - 1;
          break;
        }
        if (log.size >= maxStates) {
          // As in bfs.ts: exactly N states; a new one past the budget only makes the run incomplete.
          if (!seen.has(hi, lo)) pastBudget = true;
          continue;
        }
        if (!seen.add(hi, lo)) continue;
        log.add(parentId, c[ci + 2]!, c[ci + 3]!);
        newStates[c[ci + 2]!]!++;
        accepted.push(pos, c[ci + 2]!, c[ci + 3]!);
        acceptedIndex.push(c[ci + 4]!);
        acceptedFrom.push(wi);
        acceptedParent.push(parentsMerged[wi]!);
      }
      parentEnds.push({ position: pos, generatedBefore, pairsFrom: at, worker: wi });
      parentsMerged[wi]!++;
      mergedTo = pos;
      if (report.error !== null && report.error.position === pos) {
        stop = { kind: 'error', stateId: parentId, error: receiveSpecError(report.error.cause) };
        break;
      }
      if (outsideViolation !== null) break;
      if (gen === 0 && deadlock) {
        stop = { kind: 'deadlock', stateId: parentId };
        break;
      }
      if (log.size >= maxStates && (pastBudget || pos < levelSize - 1 || accepted.length > 0)) {
        stop = { kind: 'incomplete', reason: 'maxStates' };
        break;
      }
    }
    if (stop === null && outsideViolation === null && mergedTo < levelSize - 1) throw new Error('parallel merge: a worker report ended early');
    countCoverage(reports.map((r) => r.parents), parentEnds);

    // Each worker makes, and checks, the new states whose parents it holds.
    const keeps = Array.from({ length: n }, () => [] as number[]);
    acceptedFrom.forEach((w, k) => keeps[w]!.push(acceptedParent[k]!, accepted[k * NEW_STATE_WORDS + 1]!, accepted[k * NEW_STATE_WORDS + 2]!, k));
    workers.forEach((w, i) => w.send({ type: 'advance', keep: Uint32Array.from(keeps[i]!), firstId: firstNewId }));
    // Making and checking a level's new states takes as long as expanding it: the limits are watched here
    // too (they once waited for the whole level, past the launcher's grace). A stop here takes the level back.
    const advanced = await withinLimits(Promise.all(workers.map((w) => w.receive('checked'))), () => limits.exceeded(firstNewId, memory()));
    if ('reason' in advanced) {
      rewindLevel();
      return outcome({ kind: 'incomplete', reason: advanced.reason });
    }
    const checks = advanced.done;
    checks.forEach((c, i) => (workerHeaps[i] = c.heapUsed));
    let violation: { id: number; invariant: number } | null = null;
    let checkError: { id: number; cause: SentSpecError } | null = null;
    for (const ch of checks) {
      if (ch.violation && (violation === null || ch.violation.id < violation.id)) violation = ch.violation;
      if (ch.error && (checkError === null || ch.error.id < checkError.id)) checkError = ch.error;
      noteWitnesses(ch.witnessMin);
    }
    const firstBad = Math.min(violation?.id ?? Infinity, checkError?.id ?? Infinity, outsideViolation !== null ? outsideId : Infinity);
    if (firstBad < Infinity) {
      // The sequential search stops at the first bad state, as TLC does (bfs.ts).
      rewindTo(firstBad);
      if (checkError !== null && checkError.id === firstBad) {
        return outcome({ kind: 'error', stateId: firstBad, error: receiveSpecError(checkError.cause) });
      }
      if (violation !== null && violation.id === firstBad) return outcome({ kind: 'violation', stateId: violation.id, invariant: violation.invariant });
      return outcome(outsideViolation!);
    }
    if (stop !== null) return outcome(stop);

    limits.progress({ distinct: log.size, generated, queued: accepted.length / NEW_STATE_WORDS, depth: depth + 1 });
    const reason = limits.exceeded(log.size, memory());
    if (reason !== null) return outcome({ kind: 'incomplete', reason });
    levelFirstId = firstNewId;
    levelSize = accepted.length / NEW_STATE_WORDS;
    holders = Uint16Array.from(acceptedFrom);
    if (levelSize === 0) break;
    depth++;

    /**
     * Counts as they stood when the sequential search reached new state `id` and stopped there (the merge
     * went further): the successors of its parent up to it generated, without the counts of its action and
     * those after it (bfs.ts).
     */
    function rewindTo(id: number): void {
      const k = id - firstNewId;
      const position = accepted[k * NEW_STATE_WORDS]!;
      const stoppedIn = accepted[k * NEW_STATE_WORDS + 1]! & ~OUTSIDE_CONSTRAINT;
      const end = parentEnds.find((e) => e.position === position)!;
      generated = end.generatedBefore + acceptedIndex[k]! + 1;
      log.truncate(id + 1);
      for (let i = (k + 1) * NEW_STATE_WORDS; i < accepted.length; i += NEW_STATE_WORDS) if ((accepted[i + 1]! & OUTSIDE_CONSTRAINT) === 0) newStates[accepted[i + 1]!]!--;
      for (const e of parentEnds) if (e.position > position) uncountCoverage(e.worker, e.pairsFrom, 0);
      uncountCoverage(end.worker, end.pairsFrom, stoppedIn);
    }
    /** Takes back the whole level merged: the counts are those of the last whole level. */
    function rewindLevel(): void {
      generated = generatedAtLevel;
      log.truncate(firstNewId);
      for (let i = 0; i < accepted.length; i += NEW_STATE_WORDS) if ((accepted[i + 1]! & OUTSIDE_CONSTRAINT) === 0) newStates[accepted[i + 1]!]!--;
      for (const e of parentEnds) uncountCoverage(e.worker, e.pairsFrom, 0);
    }
    /** Takes back the counts of the parent's actions from `fromAction` on. */
    function uncountCoverage(worker: number, at: number, fromAction: number): void {
      const p = reports[worker]!.parents;
      const pairs = p[at + 3]!;
      for (let k = 0; k < pairs; k++) {
        const a = p[at + PARENT_HEADER + 2 * k]!;
        if (a < fromAction) continue;
        expander.enabledCount[a]!--;
        expander.firedCount[a]! -= p[at + PARENT_HEADER + 2 * k + 1]!;
      }
    }
  }
  return outcome({ kind: 'complete' });

  function countCoverage(parents: Uint32Array[], ends: { pairsFrom: number; worker: number }[]): void {
    for (const e of ends) {
      const p = parents[e.worker]!;
      const pairs = p[e.pairsFrom + 3]!;
      for (let k = 0; k < pairs; k++) {
        const a = p[e.pairsFrom + PARENT_HEADER + 2 * k]!;
        expander.enabledCount[a]!++;
        expander.firedCount[a]! += p[e.pairsFrom + PARENT_HEADER + 2 * k + 1]!;
      }
    }
  }
}

/** `work`, unless `check` names a limit first (polled every 50 ms while the workers run). */
async function withinLimits<T>(work: Promise<T>, check: () => IncompleteReason | null): Promise<{ done: T } | { reason: IncompleteReason }> {
  let timer: NodeJS.Timeout | undefined;
  const stopped = new Promise<{ reason: IncompleteReason }>((resolve) => {
    timer = setInterval(() => {
      const reason = check();
      if (reason !== null) resolve({ reason });
    }, 50);
  });
  try {
    return await Promise.race([work.then((done) => ({ done })), stopped]);
  } finally {
    clearInterval(timer);
  }
}

/**
 * Has every worker rebuild the levels the sequential search explored, up to the one to expand next, and
 * keep its share of that one.
 */
async function rebuildLevels(workers: ShareHandle[], resume: ResumePoint): Promise<{ levelFirstId: number; levelSize: number }> {
  const { levelStarts, log } = resume;
  const levelEnd = (l: number) => levelStarts[l + 1] ?? log.size;
  const initIndexes = Uint32Array.from({ length: levelEnd(0) }, (_, id) => log.ordinalOf(id));
  for (const w of workers) w.send({ type: 'start', initIndexes });
  await Promise.all(workers.map((w) => w.receive('started')));
  for (let l = 1; l < levelStarts.length; l++) {
    const first = levelStarts[l]!;
    const triples = new Uint32Array((levelEnd(l) - first) * NEW_STATE_WORDS);
    for (let id = first; id < levelEnd(l); id++) {
      const at = (id - first) * NEW_STATE_WORDS;
      triples[at] = log.parentOf(id) - levelStarts[l - 1]!;
      triples[at + 1] = log.actionOf(id);
      triples[at + 2] = log.ordinalOf(id);
    }
    for (const w of workers) w.send({ type: 'replay', newStates: triples });
    await Promise.all(workers.map((w) => w.receive('replayed')));
  }
  for (const w of workers) w.send({ type: 'share' });
  const levelFirstId = levelStarts[levelStarts.length - 1]!;
  return { levelFirstId, levelSize: log.size - levelFirstId };
}
