/**
 * Expands chunks of a level of the packed search into the reports the coordinator merges (see
 * packedProtocol.ts). A worker thread runs one, and so does the coordinator's own thread, which expands
 * chunks too whenever the next chunk to merge is not back yet.
 */
import { getHeapStatistics } from 'node:v8';
import { type Expander, SpecError } from '../expander.ts';
import { FingerprintSet } from '../state/fingerprintSet.ts';
import { RecentFingerprints } from '../state/recentFingerprints.ts';
import { GrowableBytes, GrowableU32 } from '../state/growable.ts';
import type { PackedLayout, PackedState } from '../state/packed.ts';
import { type EncodedLevel, EncodedLevelReader } from '../state/encodedLevel.ts';
import { ERROR_VERDICT, FLAG_ERROR, OUTSIDE_CONSTRAINT, PARENT_HEADER, type ChunkReport, levelStride } from './packedProtocol.ts';
import { SuccessorBatch } from '../successorBatch.ts';
import { sendSpecError, type SentSpecError } from './sentSpecError.ts';

/** What a chunk's expansion reads of the fingerprints seen: the shared set, or a view of it. */
export interface SeenFingerprints {
  has(hi: number, lo: number): boolean;
  /** Brings the fingerprint's slot into the cache ahead of `has`. */
  touch(hi: number, lo: number): void;
}

/** The batch mark of a successor outside the model's CONSTRAINT. */
const OUTSIDE = 2;

/**
 * The longest a piece of a chunk runs before it is reported: a stop (a limit, Ctrl-C) is heard between
 * merges, so with steps of milliseconds a whole chunk would hold it for seconds.
 */
export const PIECE_MS = 50;
/** How many states a chunk's expansion expands between looks at the clock. */
const CLOCK_EVERY = 16;

/** How often a worker's heap is measured for the memory budget (measuring costs a call into V8). */
const HEAP_EVERY_MS = 100;

export class ChunkExpander {
  private readonly actions: number;
  private readonly enabledBefore: Float64Array;
  private readonly firedBefore: Float64Array;
  // Reused for every chunk and level: a chunk's streams are copied out when sent, so nothing here is
  // allocated per chunk, and the visitor is one function for the whole run (not a closure per parent).
  private readonly parents = new GrowableU32();
  private readonly candidates = new GrowableU32();
  private readonly bytes = new GrowableBytes();
  private errors: SentSpecError[] = [];
  // Candidates this expander already reported in this level. Its chunks are claimed in increasing
  // order, which is the merge order, so a later copy of one is a state the coordinator has by the time
  // it merges it: it would drop it anyway. Skipping it here spares its properties, its bytes and its merge.
  private readonly sent = new FingerprintSet(1 << 12);
  // Fingerprints this expander found seen or reported, kept across levels: a state reported in one level
  // is in the fingerprints seen once that level is merged. Most successors are answered here, without a
  // trip to either table.
  private readonly known = new RecentFingerprints(1 << 16);
  private seen: SeenFingerprints | null = null;
  private witnessesReached: Uint8Array = new Uint8Array(0);
  private states: EncodedLevelReader | null = null;
  /** Bytes from one state of a level, or of a report, to the next (levelStride). */
  private readonly stride: number;
  private parent: unknown = null;
  // Per parent being expanded: successors generated, candidates reported.
  private generated = 0;
  private count = 0;
  private heapUsed = 0;
  private heapMeasuredAt = -Infinity;
  private readonly batch = new SuccessorBatch<unknown>();
  private readonly visit: (t: unknown, action: number, params: unknown, ordinal: number) => void;

  constructor(
    private readonly expander: Expander<unknown>,
    private readonly layout: PackedLayout,
    private readonly index: number,
  ) {
    this.actions = expander.actions.length;
    this.stride = levelStride(layout.width);
    this.enabledBefore = new Float64Array(this.actions);
    this.firedBefore = new Float64Array(this.actions);
    const constrained = expander.constrained;
    this.visit = (t: unknown, action: number, _params: unknown, ordinal: number): void => {
      const index = this.generated++;
      // A step that changed nothing gives back the state being expanded (as in bfs.ts), which is in the
      // level, so seen: no fingerprint to compute, no lookup.
      if (t === this.parent) return;
      // As in TLC (and bfs.ts), the constraints are asked before any table: a state outside them is in none.
      if (constrained && !expander.admits(this.parent, t)) return this.batch.push(t, action, ordinal, index, 0, 0, OUTSIDE);
      expander.fingerprint(t);
      if (this.known.has(expander.hi, expander.lo)) return;
      this.batch.push(t, action, ordinal, index, expander.hi, expander.lo, 0);
    };
  }

  /**
   * Reports the successors of the state just expanded that are neither in this level's record of
   * candidates sent nor in the fingerprints seen, in the order they came. Both tables are probed for the
   * whole batch before any answer is used, so their trips to memory overlap (as in bfs.ts). The record is
   * probed first: most successors are copies of states this expander reported earlier in the level.
   */
  private flush(): void {
    const batch = this.batch;
    const n = batch.length;
    if (n === 0) return;
    batch.length = 0;
    // mark: 1 for a successor not reported earlier in the level; OUTSIDE (set as it came) for one outside the constraint.
    const { hiOf, loOf, mark: keep } = batch;
    const { sent, known } = this;
    const seen = this.seen!;
    for (let i = 0; i < n; i++) if (keep[i] !== OUTSIDE) sent.touch(hiOf[i]!, loOf[i]!);
    let kept = 0;
    for (let i = 0; i < n; i++) {
      if (keep[i] === OUTSIDE) {
        kept++;
        continue;
      }
      const hi = hiOf[i]!;
      const lo = loOf[i]!;
      const fresh = sent.add(hi, lo);
      keep[i] = fresh ? 1 : 0;
      if (fresh) {
        kept++;
        seen.touch(hi, lo);
      }
      known.remember(hi, lo);
    }
    if (kept === 0) return;
    // The batch's states are left to be overwritten, as in bfs.ts: clearing them with `fill` was a
    // builtin call per parent, a third of a microsecond each.
    for (let i = 0; i < n; i++) {
      if (keep[i] === OUTSIDE) this.reportOutside(batch.states[i]!, batch.actionOf[i]!, batch.ordinalOf[i]!, batch.indexOf[i]!);
      else if (keep[i] === 1 && !seen.has(hiOf[i]!, loOf[i]!)) this.report(batch.states[i]!, batch.actionOf[i]!, batch.ordinalOf[i]!, batch.indexOf[i]!, hiOf[i]!, loOf[i]!);
    }
  }

  /** A candidate: its words (what its properties say of it) and its bytes. */
  private report(t: unknown, action: number, ordinal: number, index: number, hi: number, lo: number): void {
    const { expander } = this;
    const witnesses = expander.witnesses;
    let verdict = 0;
    let witnessBits = 0;
    try {
      verdict = expander.firstViolation(t) + 1;
      const reached = this.witnessesReached;
      for (let i = 0; i < witnesses.length && i < 32; i++) {
        if (reached[i] === 0 && expander.holdsWitness(t, i)) witnessBits |= 1 << i;
      }
    } catch (e) {
      if (!(e instanceof SpecError)) throw e;
      verdict = ERROR_VERDICT;
      witnessBits = this.errors.length;
      this.errors.push(sendSpecError(e));
    }
    this.push(t, hi, lo, action, ordinal, index, verdict, witnessBits);
  }

  /**
   * A successor outside the model's CONSTRAINT, no state of the model (bfs.ts): a candidate, flagged
   * OUTSIDE_CONSTRAINT, only when an invariant fails on it or it makes a property throw.
   */
  private reportOutside(t: unknown, action: number, ordinal: number, index: number): void {
    let verdict: number;
    let error = 0;
    try {
      verdict = this.expander.firstViolation(t) + 1;
      if (verdict === 0) return;
    } catch (e) {
      if (!(e instanceof SpecError)) throw e;
      verdict = ERROR_VERDICT;
      error = this.errors.length;
      this.errors.push(sendSpecError(e));
    }
    this.push(t, 0, 0, (action | OUTSIDE_CONSTRAINT) >>> 0, ordinal, index, verdict, error);
  }

  private push(t: unknown, hi: number, lo: number, action: number, ordinal: number, index: number, verdict: number, witnessBits: number): void {
    const candidates = this.candidates;
    this.count++;
    candidates.push(hi);
    candidates.push(lo);
    candidates.push(action);
    candidates.push(ordinal);
    candidates.push(index);
    candidates.push(verdict);
    candidates.push(witnessBits >>> 0);
    const v = t as PackedState;
    this.bytes.pushState(v._b, v._o, this.layout.width, this.stride);
  }

  /** A new level: its states, the fingerprints seen before it, the witnesses reached before it. */
  startLevel(level: EncodedLevel, seen: SeenFingerprints, witnessesReached: Uint8Array): void {
    this.states = new EncodedLevelReader(level, this.layout.width, this.stride);
    this.seen = seen;
    this.witnessesReached = witnessesReached;
    this.sent.clear();
  }

  /**
   * Adds to the search's counts the coverage of the level's parents from `first` to `last`, as the
   * sequential search has it when it stops at `last`: each parent whole, but `last` without its actions
   * from `stopAction` on (bfs.ts takes those back). A chunk reports its parents' counts only as a sum, so a
   * search that stops inside one counts its parents up to the stop here, by expanding them again as
   * `expand` does (an error thrown there is thrown here at the same point), once.
   */
  countParents(first: number, last: number, stopAction: number): void {
    const { expander, layout, enabledBefore, firedBefore } = this;
    const { enabledCount, firedCount } = expander;
    for (let pos = first; pos <= last; pos++) {
      if (pos === last) {
        enabledBefore.set(enabledCount);
        firedBefore.set(firedCount);
      }
      this.parent = layout.wrapAt(this.states!.at(pos), 0);
      try {
        expander.successors(this.parent, this.visit);
      } catch (e) {
        // The chunk's report has the error (FLAG_ERROR); the actions done before it count, as there.
        if (!(e instanceof SpecError)) throw e;
      }
      this.batch.length = 0;
    }
    for (let a = stopAction; a < this.actions; a++) {
      enabledCount[a] = enabledBefore[a]!;
      firedCount[a] = firedBefore[a]!;
    }
  }

  /**
   * The report of positions [start, end) of the level, or of the first of them, up to the first past
   * `untilMs`: a chunk of slow states is reported in pieces, so the coordinator, which hears a stop
   * between merges, never waits long for one (the rest is the caller's to expand next).
   */
  expand(start: number, end: number, untilMs = Infinity): ChunkReport {
    const { expander, parents, candidates, bytes, layout } = this;
    parents.clear();
    candidates.clear();
    bytes.clear();
    this.errors = [];
    // The counts as they stand: the chunk's own are read off against them, then undone.
    const enabledCount = expander.enabledCount;
    const firedCount = expander.firedCount;
    const enabledBefore = this.enabledBefore;
    const firedBefore = this.firedBefore;
    enabledBefore.set(enabledCount);
    firedBefore.set(firedCount);
    const states = this.states!;
    let pos = start;
    for (; pos < end; pos++) {
      if ((pos - start) % CLOCK_EVERY === CLOCK_EVERY - 1 && performance.now() >= untilMs) break;
      // The parent is expanded from the reader's own buffer, where it is decoded over the one before it
      // (each successor starts as a copy of it).
      const s = layout.wrapAt(states.at(pos), 0);
      this.parent = s;
      const header = parents.length;
      for (let k = 0; k < PARENT_HEADER; k++) parents.push(0);
      this.generated = 0;
      this.count = 0;
      let flags = 0;
      try {
        expander.successors(s, this.visit);
        this.flush();
      } catch (e) {
        if (!(e instanceof SpecError)) throw e;
        // The successors made before the action threw are reported, as visiting each at once would.
        this.flush();
        flags = FLAG_ERROR | (this.errors.length << 2);
        this.errors.push(sendSpecError(e));
      }
      parents.set(header, this.generated);
      parents.set(header + 1, this.count);
      parents.set(header + 2, flags);
      // The search ends at this parent: the chunk's report ends here, and nothing of it is expanded after.
      if (flags & FLAG_ERROR) {
        pos = end;
        break;
      }
    }
    // The counts are the coordinator's to add, in merge order: this expander's own go back to what they
    // were (the coordinator's thread expands with the search's expander).
    const n = this.actions;
    const counts = new Float64Array(2 * n);
    for (let a = 0; a < n; a++) {
      counts[a] = enabledCount[a]! - enabledBefore[a]!;
      counts[n + a] = firedCount[a]! - firedBefore[a]!;
    }
    enabledCount.set(enabledBefore);
    firedCount.set(firedBefore);
    const now = performance.now();
    if (now - this.heapMeasuredAt >= HEAP_EVERY_MS) {
      this.heapMeasuredAt = now;
      this.heapUsed = getHeapStatistics().used_heap_size;
    }
    return { type: 'chunk', start, end: pos, worker: this.index, parents: parents.take(), counts, candidates: candidates.take(), bytes: bytes.take(), errors: this.errors, heapUsed: this.heapUsed };
  }
}
