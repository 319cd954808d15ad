/**
 * Breadth-first search of packed states with worker threads, giving exactly the counts, coverage and
 * traces of the sequential search (bfs.ts) for any number of workers.
 *
 * Each level lives once, in shared memory, each state as its difference from the one before it
 * (encodedLevel.ts). Workers expand chunks of it and send back, per
 * parent, its counts, and each successor they could not rule out (not in the shared fingerprint set as
 * it stood) with its fingerprint, its properties' verdict and its bytes. This thread merges the chunks
 * in order, which is the sequential order: it alone decides which candidates are new, logs them and
 * appends their bytes to the next level. No state is made twice, and no worker holds a copy of a level.
 *
 * This thread is one of the workers: `--workers N` starts N - 1 threads, and whenever the next chunk to
 * merge is not back yet, this thread claims and expands a chunk itself. So N workers keep N cores busy,
 * not N + 1 threads on N cores, and there is one V8 heap less to collect and compile code for.
 */
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { yieldToEventLoop } from '../limits.ts';
import { isPacked, layoutOf } from '../state/packed.ts';
import { ChunkExpander, PIECE_MS } from './chunkExpander.ts';
import { levelChunks } from './levelChunks.ts';
import type { Expander } from '../expander.ts';
import type { CheckOptions } from '../options.ts';
import type { Limits } from '../limits.ts';
import type { ResumePoint, SearchEnd, SearchOutcome } from '../search.ts';
import type { ByteFrontier } from '../frontier.ts';
import type { ModelSource } from '../modelSource.ts';
import type { Checkpoints } from '../checkpoint.ts';
import { writeCheckpoint } from '../checkpoint.ts';
import { receiveSpecError } from './sentSpecError.ts';
import { decodeLevel, EncodedLevelWriter } from '../state/encodedLevel.ts';
import { CANDIDATE_WORDS, type ChunkReport as Chunk, ERROR_VERDICT, FLAG_ERROR, levelStride, OUTSIDE_CONSTRAINT, PARENT_HEADER, type FromPackedWorker, type PackedWorkerSetup, type ToPackedWorker } from './packedProtocol.ts';

/** How many candidates ahead of the one merged the fingerprint table's slot is fetched. */
const LOOKAHEAD = 8;

/** The longest this thread sleeps waiting for a report before its event loop runs. */
const WAIT_MS = 20;

class WorkerHandle {
  private readonly worker: Worker;
  private readonly reports: MessagePort;

  constructor(setup: Omit<PackedWorkerSetup, 'reports'>, failed: (m: FromPackedWorker) => void) {
    const { port1, port2 } = new MessageChannel();
    this.reports = port1;
    this.worker = new Worker(new URL('./workerEntry.mjs', import.meta.url), { workerData: { ...setup, reports: port2 }, transferList: [port2] });
    this.worker.on('error', (e) => failed({ type: 'failed', message: e.message }));
    this.worker.on('exit', (code) => {
      if (code !== 0) failed({ type: 'failed', message: `worker thread exited with code ${code}` });
    });
  }
  /** The worker's next report, if one is waiting (taken off its port at once, not by the event loop). */
  receive(): FromPackedWorker | undefined {
    return receiveMessageOnPort(this.reports)?.message as FromPackedWorker | undefined;
  }
  send(m: ToPackedWorker): void {
    this.worker.postMessage(m);
  }
  async stop(): Promise<void> {
    this.reports.close();
    await this.worker.terminate();
  }
}

/**
 * The packed search's worker threads: `count` workers are this thread and `count - 1` threads. They are
 * started when the search starts, so loading the model in each overlaps the levels searched in one
 * thread, and the hand-over waits for none of it: a thread still loading takes its first chunks late.
 */
export class PackedWorkerPool {
  readonly workers: readonly WorkerHandle[];
  /** A thread's failure, as the event loop tells it. */
  private readonly failures: FromPackedWorker[] = [];
  private readonly mail = new Int32Array(new SharedArrayBuffer(4));
  /** The worker polled first next time, so no worker's reports wait behind another's. */
  private first = 0;

  constructor(source: ModelSource, symmetry: boolean, readonly count: number) {
    this.workers = Array.from(
      { length: count - 1 },
      (_, index) => new WorkerHandle({ modulePath: source.modulePath, params: source.params, symmetry, index, count, mail: this.mail.buffer as SharedArrayBuffer }, (m) => this.failures.push(m)),
    );
  }

  /** A message already received, if any (without waiting). */
  poll(): FromPackedWorker | undefined {
    if (this.failures.length > 0) return this.failures.shift();
    const n = this.workers.length;
    for (let k = 0; k < n; k++) {
      const i = (this.first + k) % n;
      const m = this.workers[i]!.receive();
      if (m !== undefined) {
        this.first = (i + 1) % n;
        return m;
      }
    }
    return undefined;
  }

  /**
   * The next message. This thread sleeps until a worker counts a report in `mail`, and at least every
   * WAIT_MS lets its event loop run (signals, timers, and a thread's failure come that way).
   */
  async next(): Promise<FromPackedWorker> {
    for (;;) {
      const posted = Atomics.load(this.mail, 0);
      const m = this.poll();
      if (m !== undefined) return m;
      if (Atomics.wait(this.mail, 0, posted, WAIT_MS) === 'timed-out') await yieldToEventLoop();
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.stop()));
  }
}

/** Goes on from `resume` with the pool's workers (see the file comment); stops them when done. */
export async function packedParallelBreadthFirst<S>(
  expander: Expander<S>,
  pool: PackedWorkerPool,
  options: CheckOptions,
  limits: Limits,
  resume: ResumePoint,
  checkpoint?: NonNullable<Checkpoints['write']>,
): Promise<SearchOutcome> {
  try {
    return await search(expander, pool, options, limits, resume, checkpoint);
  } finally {
    await pool.stop();
  }
}

async function search<S>(
  expander: Expander<S>,
  pool: PackedWorkerPool,
  options: CheckOptions,
  limits: Limits,
  resume: ResumePoint,
  checkpoint: NonNullable<Checkpoints['write']> | undefined,
): Promise<SearchOutcome> {
  const { seen, log, newStates } = resume;
  const workers = pool.workers;
  const levelStarts = [...resume.levelStarts];
  let lastCheckpointAt = limits.seconds;
  /** A stop came while checkpoints are on: the level is finished and checkpointed first. */
  let finishing = false;
  const witnessesReached = Uint8Array.from(resume.witnessesReached);
  const frontier = resume.frontier as ByteFrontier<unknown>;
  const width = frontier.width;
  const stride = levelStride(width);
  const deadlock = options.deadlock ?? true;
  const maxDepth = options.maxDepth ?? Infinity;
  const maxStates = options.maxStates ?? Infinity;
  let generated = resume.generated;
  let depth = resume.depth;
  let levelSize = frontier.remaining;
  let levelFirstId = log.size - levelSize;
  /** The level being expanded: the one searched in one thread is handed over encoded as the search encodes its own. */
  let levelBuffer = handedOver(frontier, width, stride);
  let level = levelBuffer.level();
  let nextLevel = new EncodedLevelWriter(width, stride, levelSize * 2);
  // The workers' heaps count against the budget too; each reports its own with every chunk.
  const workerHeaps = new Float64Array(workers.length);
  const first = expander.initialStates()[0];
  if (!isPacked(first)) throw new Error('the packed search needs a spec declared with a layout');
  const own = new ChunkExpander(expander as Expander<unknown>, layoutOf(first), -1);
  const actions = expander.actions.length;
  /** The search's own tables and levels, as one thread reports its tables and frontier. */
  const searchBytes = () => seen.bytes + log.bytes + levelBuffer.bytes + nextLevel.bytes;
  /** What the memory budget holds the search to: its tables and levels, and the workers' heaps. */
  const memory = () => searchBytes() + workerHeaps.reduce((a, b) => a + b, 0);
  let pastBudget = false;
  /** 1 once a state outside the CONSTRAINT is logged: the violation that ends the run (see bfs.ts). */
  let outside = 0;

  const outcome = (end: SearchEnd): SearchOutcome => ({
    end,
    log,
    distinct: log.size - outside,
    generated,
    // As TLC counts it: the levels that hold a state of the model, the one being found included.
    depth: log.size - outside > 0 ? depth + 1 + (nextLevel.count > 0 ? 1 : 0) : 0,
    queued: 0,
    newStates,
    witnessesReached,
    offHeapBytes: searchBytes(),
    workers: pool.count,
  });

  while (levelSize > 0) {
    if (depth >= maxDepth) return outcome({ kind: 'incomplete', reason: 'maxDepth' });
    const starts = levelChunks(levelSize, pool.count);
    const chunks = starts.length - 1;
    const nextChunk = new SharedArrayBuffer(4);
    const claim = new Int32Array(nextChunk);
    for (const w of workers) {
      w.send({ type: 'level', level, starts, nextChunk, seen: seen.buffer, witnessesReached });
    }
    // This thread's chunks see the witnesses as the workers do: as they were when the level started.
    own.startLevel(level, seen, Uint8Array.from(witnessesReached));
    /** Reports back and not yet merged, by the position they start at. */
    const waiting = new Map<number, Chunk>();
    const take = (m: FromPackedWorker): void => {
      if (m.type === 'failed') throw new Error(`a worker thread failed: ${m.message}`);
      if (m.type === 'chunk') {
        waiting.set(m.start, m);
        workerHeaps[m.worker] = m.heapUsed;
      }
    };
    /** What is left of the chunk this thread claimed last: [ownAt, ownEnd). */
    let ownAt = 0;
    let ownEnd = 0;
    let stop: SearchEnd | null = null;
    for (let merged = 0; merged < levelSize && stop === null; ) {
      while (!waiting.has(merged)) {
        const m = pool.poll();
        if (m !== undefined) {
          take(m);
          continue;
        }
        if (ownAt === ownEnd) {
          // Chunks are claimed in increasing order, so the one this thread takes is merged after every
          // chunk it took before (which its own record of candidates sent relies on).
          const mine = Atomics.add(claim, 0, 1);
          if (mine >= chunks) {
            take(await pool.next());
            continue;
          }
          ownAt = starts[mine]!;
          ownEnd = starts[mine + 1]!;
        }
        const piece = own.expand(ownAt, ownEnd, performance.now() + PIECE_MS);
        waiting.set(ownAt, piece);
        ownAt = piece.end;
        // The workers' reports need no turn of the event loop (see PackedWorkerPool.poll); signals
        // and timers get one every 50 ms.
        if (limits.shouldYield()) await yieldToEventLoop();
      }
      const c = waiting.get(merged)!;
      waiting.delete(merged);
      stop = merge(c, merged);
      merged = c.end;
      if (stop === null) {
        const reason = limits.exceeded(log.size, memory());
        if (reason === 'interrupted' && checkpoint) {
          // Stopped with checkpoints on: finish this level and write a last checkpoint, then stop.
          if (!finishing) options.onFinishingLevel?.();
          finishing = true;
        } else if (reason !== null) stop = { kind: 'incomplete', reason };
        limits.progress({ distinct: log.size, generated, queued: levelSize - merged + nextLevel.count, depth });
      }
    }
    if (stop !== null) {
      // The workers may still be busy with this level; they are stopped with the search.
      return outcome(stop);
    }
    if (nextLevel.count === 0) break;
    depth++;
    levelFirstId = log.size - nextLevel.count;
    level = nextLevel.level();
    levelSize = nextLevel.count;
    const spare = levelBuffer;
    levelBuffer = nextLevel;
    levelStarts.push(levelFirstId);
    if (checkpoint && (finishing || limits.seconds - lastCheckpointAt >= checkpoint.everySeconds)) {
      writeCheckpoint(checkpoint, {
        seen,
        log,
        level: decodeLevel(level, width, stride),
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
    // Memory already written is reused: each first write to a page of a fresh buffer is a page fault.
    nextLevel = spare.emptied();
  }
  return outcome({ kind: 'complete' });

  /** Merges one chunk whose first parent is at `firstPos`; returns how the search ends, if it does here. */
  function merge(c: Chunk, firstPos: number): SearchEnd | null {
    const p = c.parents;
    const cand = c.candidates;
    const bytes = c.bytes;
    let at = 0;
    let ci = 0;
    let pos = firstPos;
    // The fingerprint table is tens of megabytes: each lookup starts the one LOOKAHEAD candidates on,
    // so that many trips to memory overlap instead of following one another.
    const total = cand.length / CANDIDATE_WORDS;
    for (let k = 0; k < LOOKAHEAD && k < total; k++) seen.touch(cand[k * CANDIDATE_WORDS]!, cand[k * CANDIDATE_WORDS + 1]!);
    while (at < p.length) {
      const gen = p[at]!;
      const count = p[at + 1]!;
      const flags = p[at + 2]!;
      const parentId = levelFirstId + pos;
      at += PARENT_HEADER;
      for (let k = 0; k < count; k++, ci++) {
        const o = ci * CANDIDATE_WORDS;
        if (ci + LOOKAHEAD < total) seen.touch(cand[o + LOOKAHEAD * CANDIDATE_WORDS]!, cand[o + LOOKAHEAD * CANDIDATE_WORDS + 1]!);
        if ((cand[o + 2]! & OUTSIDE_CONSTRAINT) !== 0) {
          // Outside the constraints: sent only because an invariant fails on it or spec code threw (bfs.ts).
          const verdict = cand[o + 5]!;
          stopAt(firstPos, pos, cand[o + 2]! & ~OUTSIDE_CONSTRAINT, cand[o + 4]!);
          if (verdict === ERROR_VERDICT) return { kind: 'error', stateId: parentId, error: receiveSpecError(c.errors[cand[o + 6]!]!) };
          // As TLC (bfs.ts): the search ends at the successor that breaks an invariant; none after it is generated.
          outside = 1;
          return { kind: 'violation', stateId: log.add(parentId, cand[o + 2]! & ~OUTSIDE_CONSTRAINT, cand[o + 3]!), invariant: verdict - 1 };
        }
        if (log.size >= maxStates) {
          // As in bfs.ts: exactly N states; a new one past the budget only makes the run incomplete.
          if (!seen.has(cand[o]!, cand[o + 1]!)) pastBudget = true;
          continue;
        }
        if (!seen.add(cand[o]!, cand[o + 1]!)) continue;
        const action = cand[o + 2]!;
        const id = log.add(parentId, action, cand[o + 3]!);
        newStates[action]!++;
        const verdict = cand[o + 5]!;
        if (verdict === ERROR_VERDICT) {
          stopAt(firstPos, pos, action, cand[o + 4]!);
          return { kind: 'error', stateId: id, error: receiveSpecError(c.errors[cand[o + 6]!]!) };
        }
        const bits = cand[o + 6]!;
        if (bits !== 0) for (let w = 0; w < 32; w++) if (bits & (1 << w)) witnessesReached[w] = 1;
        nextLevel.push(bytes, ci * stride);
        if (verdict !== 0) {
          stopAt(firstPos, pos, action, cand[o + 4]!);
          return { kind: 'violation', stateId: id, invariant: verdict - 1 };
        }
      }
      generated += gen;
      if (flags & FLAG_ERROR) {
        own.countParents(firstPos, pos, actions);
        return { kind: 'error', stateId: parentId, error: receiveSpecError(c.errors[flags >>> 2]!) };
      }
      if (gen === 0 && deadlock) {
        own.countParents(firstPos, pos, actions);
        return { kind: 'deadlock', stateId: parentId };
      }
      if (log.size >= maxStates && (pastBudget || pos < levelSize - 1 || nextLevel.count > 0)) {
        own.countParents(firstPos, pos, actions);
        return { kind: 'incomplete', reason: 'maxStates' };
      }
      pos++;
    }
    const counts = c.counts;
    for (let a = 0; a < actions; a++) {
      expander.enabledCount[a]! += counts[a]!;
      expander.firedCount[a]! += counts[actions + a]!;
    }
    return null;
  }

  /**
   * The search ends at successor `index` of the parent at `last`, in `action` (it breaks an invariant, or
   * spec code threw on it): the sequential search stops at once, having generated the successors up to
   * this one, and without the counts of this one's action and those after it (bfs.ts takes them back).
   */
  function stopAt(first: number, last: number, action: number, index: number): void {
    generated += index + 1;
    own.countParents(first, last, action);
  }
}

/** The level the search in one thread hands over, encoded (it is the first few hundred states). */
function handedOver(frontier: ByteFrontier<unknown>, width: number, stride: number): EncodedLevelWriter {
  const { bytes } = frontier.contiguous(0, stride);
  const level = new EncodedLevelWriter(width, stride, frontier.remaining * 2);
  for (let i = 0; i < frontier.remaining; i++) level.push(bytes, i * stride);
  return level;
}
