/**
 * One worker's share of the Immutable.js search (protocol.ts): its states of the current level, what it
 * does with them, and the reply to each message. A worker thread runs one (worker.ts); so does the
 * coordinator's own thread, which is one of the workers (coordinator.ts), expanding a slice at a time so
 * that its event loop still turns for signals and limits.
 */
import { performance } from 'node:perf_hooks';
import { type Expander, SpecError } from '../expander.ts';
import { FingerprintSetView } from '../state/fingerprintSet.ts';
import { GrowableU32 } from '../state/growable.ts';
import { KEEP_WORDS, NEW_STATE_WORDS, OUTSIDE_CONSTRAINT, PARENT_HEADER, sendSpecError, type FromWorker, type SentSpecError } from './protocol.ts';

type Expanded = Extract<FromWorker, { type: 'expanded' }>;
type Checked = Extract<FromWorker, { type: 'checked' }>;

const heapUsed = () => process.memoryUsage().heapUsed;

export class ImmutableShare {
  /** This worker's share of the current level, in position order, and each state's position in the level. */
  private level: unknown[] = [];
  private positions: number[] = [];
  /** The expansion under way: the seen-set it probes, its records so far, and the next state of the share. */
  private seen: FingerprintSetView | null = null;
  private parents = new GrowableU32();
  private candidates = new GrowableU32();
  private next = 0;
  private error: { position: number; cause: SentSpecError } | null = null;
  private readonly fired: Uint32Array;
  /** The new states being made (`beginAdvance`), and how far. */
  private advancing: {
    keep: Uint32Array;
    firstId: number;
    next: unknown[];
    nextPositions: number[];
    witnessMin: Float64Array;
    reached: Uint8Array;
    violation: { id: number; invariant: number } | null;
    error: { id: number; cause: SentSpecError } | null;
    done: number;
  } | null = null;

  constructor(
    private readonly expander: Expander<unknown>,
    private readonly index: number,
    private readonly count: number,
  ) {
    this.fired = new Uint32Array(expander.actions.length);
  }

  /** Starts from these initial states (indexes into the model's `init()` list), whole. */
  start(initIndexes: Uint32Array): void {
    const inits = this.expander.initialStates();
    this.level = Array.from(initIndexes, (i) => inits[i]);
    this.positions = Array.from(this.level, (_, pos) => pos);
  }

  /** Rebuilds the next level searched in one thread, whole, by re-running one action per state. */
  replay(newStates: Uint32Array): void {
    const next: unknown[] = new Array(newStates.length / NEW_STATE_WORDS);
    for (let i = 0; i < next.length; i++) {
      const at = i * NEW_STATE_WORDS;
      next[i] = this.expander.nthSuccessor(this.level[newStates[at]!], newStates[at + 1]!, newStates[at + 2]!);
    }
    this.level = next;
    this.positions = Array.from(next, (_, pos) => pos);
  }

  /** Keeps this worker's share of a whole level: positions index, index + count, … */
  share(): void {
    this.level = this.level.filter((_, pos) => pos % this.count === this.index);
    this.positions = this.positions.filter((pos) => pos % this.count === this.index);
  }

  /** Starts expanding the share, probing the seen-set in `seenBuffer`. */
  beginExpand(seenBuffer: SharedArrayBuffer): void {
    this.seen = new FingerprintSetView(seenBuffer);
    this.parents = new GrowableU32();
    this.candidates = new GrowableU32();
    this.next = 0;
    this.error = null;
  }

  /** Expands states of the share until it is done (true) or `ms` have passed (false). */
  expandFor(ms: number): boolean {
    const { expander, parents, candidates, fired, level, positions } = this;
    const seen = this.seen!;
    const until = ms === Infinity ? Infinity : performance.now() + ms;
    for (; this.next < level.length; this.next++) {
      if ((this.next & 15) === 0 && performance.now() > until) return false;
      const s = level[this.next];
      const header = parents.length;
      for (let k = 0; k < PARENT_HEADER; k++) parents.push(0);
      let generated = 0;
      let candidateCount = 0;
      fired.fill(0);
      try {
        expander.successors(s, (t, action, _params, ordinal) => {
          generated++;
          fired[action]!++;
          if (!expander.admits(s, t)) {
            // Outside the constraints: checked here, sent only when an invariant fails on it (see protocol.ts).
            const bad = expander.firstViolation(t);
            if (bad < 0) return;
            candidateCount++;
            candidates.push(bad);
            candidates.push(0);
            candidates.push(action | OUTSIDE_CONSTRAINT);
            candidates.push(ordinal);
            candidates.push(generated - 1);
            return;
          }
          expander.fingerprint(t);
          if (seen.has(expander.hi, expander.lo)) return;
          candidateCount++;
          candidates.push(expander.hi);
          candidates.push(expander.lo);
          candidates.push(action);
          candidates.push(ordinal);
          candidates.push(generated - 1);
        });
      } catch (e) {
        if (!(e instanceof SpecError)) throw e;
        // As in one thread: the counts of the action that threw are not taken (the expander adds an action's
        // counts once it is done).
        fired[expander.expandingAction] = 0;
        finishRecord(parents, header, generated, candidateCount, fired);
        this.error = { position: positions[this.next]!, cause: sendSpecError(e) };
        this.next = level.length;
        return true;
      }
      finishRecord(parents, header, generated, candidateCount, fired);
    }
    return true;
  }

  /** The report of the expansion just done. */
  expanded(): Expanded {
    this.seen = null;
    return { type: 'expanded', parents: this.parents.take(), candidates: this.candidates.take(), error: this.error, heapUsed: heapUsed() };
  }

  /** Makes this worker's share of the next level from its share of the current one, and checks it, at once (a worker thread). */
  advance(keep: Uint32Array, firstId: number): Checked {
    this.beginAdvance(keep, firstId);
    this.advanceFor(Infinity);
    return this.advanced();
  }

  /** Starts making the new states `keep` names (KEEP_WORDS each), ids from `firstId`. */
  beginAdvance(keep: Uint32Array, firstId: number): void {
    const { expander } = this;
    const count = keep.length / KEEP_WORDS;
    this.advancing = { keep, firstId, next: new Array(count), nextPositions: new Array(count), witnessMin: new Float64Array(expander.witnesses.length).fill(-1), reached: new Uint8Array(expander.witnesses.length), violation: null, error: null, done: 0 };
  }

  /**
   * Makes and checks new states until all are done (true) or `ms` have passed (false): the coordinator's own
   * share goes a slice at a time, so that its event loop still turns for signals and limits.
   */
  advanceFor(ms: number): boolean {
    const { expander } = this;
    const a = this.advancing!;
    const { keep, firstId, next, nextPositions, witnessMin, reached } = a;
    const until = ms === Infinity ? Infinity : performance.now() + ms;
    for (; a.done < next.length && a.error === null; a.done++) {
      if ((a.done & 15) === 0 && performance.now() > until) return false;
      const i = a.done;
      const at = i * KEEP_WORDS;
      const action = keep[at + 1]!;
      const pos = keep[at + 3]!;
      const id = firstId + pos;
      nextPositions[i] = pos;
      try {
        const t = expander.nthSuccessor(this.level[keep[at]!], action & ~OUTSIDE_CONSTRAINT, keep[at + 2]!);
        next[i] = t;
        if (a.violation === null) {
          const bad = expander.firstViolation(t);
          if (bad >= 0) a.violation = { id, invariant: bad };
        }
        // A state outside the CONSTRAINT is here only for its violation: it reaches no witness.
        if ((action & OUTSIDE_CONSTRAINT) === 0 && expander.markWitnesses(t, reached) > 0) {
          for (let w = 0; w < reached.length; w++) if (reached[w] && witnessMin[w] === -1) witnessMin[w] = id;
        }
      } catch (e) {
        if (!(e instanceof SpecError)) throw e;
        a.error = { id, cause: sendSpecError(e) };
      }
    }
    return true;
  }

  /** The report of the states made; with no error, they are this share's level from now on. */
  advanced(): Checked {
    const a = this.advancing!;
    this.advancing = null;
    if (a.error === null) {
      this.level = a.next;
      this.positions = a.nextPositions;
    }
    return { type: 'checked', violation: a.violation, witnessMin: a.witnessMin, error: a.error, heapUsed: heapUsed() };
  }
}

function finishRecord(parents: GrowableU32, header: number, generated: number, candidateCount: number, fired: Uint32Array): void {
  let pairs = 0;
  for (let a = 0; a < fired.length; a++) {
    if (fired[a] === 0) continue;
    parents.push(a);
    parents.push(fired[a]!);
    pairs++;
  }
  parents.set(header, generated);
  parents.set(header + 1, candidateCount);
  parents.set(header + 3, pairs);
}
