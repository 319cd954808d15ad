/**
 * One owner of a search partitioned by fingerprint (ownedSearch.ts): the states whose fingerprints fall
 * to it, with how each was first reached, and its part of every level. It expands its part of a level,
 * sending each successor to the successor's owner; it takes in the successors sent to it, keeping per new
 * state the one with the least key (ownerProtocol.ts), and checks the properties on the new states.
 * An owner runs in the driver's process or in a worker process (../cluster/natsWorker.ts): the same code.
 */
import { type Expander, SpecError } from '../expander.ts';
import type { PackedLayout, PackedState } from '../state/packed.ts';
import { FingerprintIndex } from '../state/fingerprintIndex.ts';
import { FingerprintSet, FingerprintSetView } from '../state/fingerprintSet.ts';
import { RecentFingerprints } from '../state/recentFingerprints.ts';
import { WordFile } from '../state/wordFile.ts';
import { MAX_ORDINAL } from '../stateLog.ts';
import { sendSpecError } from '../parallel/sentSpecError.ts';
import { CandidateBatch, readBatch } from './candidateBatch.ts';
import { CandidateStore } from './candidateStore.ts';
import { decodeLevel, type EncodedLevel, EncodedLevelReader, EncodedLevelWriter } from '../state/encodedLevel.ts';
import { keyOrder } from './keyOrder.ts';
import { HELD_WORDS, readSnapshot, writeSnapshot } from './ownerSnapshot.ts';
import { type AbsorbReport, type CutReport, type ExpandReport, type InitialState, KEY_SPAN, type Link, type Stop, earlier, keyOf, ownerOf } from './ownerProtocol.ts';

const STEP_SPAN = MAX_ORDINAL + 1;
/** Per state this owner holds, in the order it was admitted (level by level): hi, lo, parent hi, parent lo, step. */
const RECORD_WORDS = 5;
/** Per state of a checkpoint's level: hi, lo, parent hi, parent lo, step, initial, rank. */
const DELTA_WORDS = 7;
/** Records read from disk at a time (by a snapshot, or a search for one). */
const RECORDS_AT_ONCE = 1 << 16;
/** Candidates the next level's tables, and states the table of states held, have room for before they first grow (an owner's share of a small model is a few thousand). */
const PENDING_START = 1 << 12;

export interface OwnerSetup {
  readonly index: number;
  readonly owners: number;
  readonly deadlock: boolean;
  /**
   * Owners sharing memory (threads): per owner, the next state of its level not yet claimed. An owner that
   * has expanded its own part claims the others' states too, so a level waits for no owner left behind.
   */
  readonly claims?: Int32Array;
}

/** An owner's level as the others read it when they help expand it (`sharedPart`, `sharePeers`). */
export interface SharedPart {
  readonly held: SharedArrayBuffer;
  readonly level: EncodedLevel;
  readonly ranks: SharedArrayBuffer;
  readonly fingerprints: SharedArrayBuffer;
  readonly generatedBy: SharedArrayBuffer;
  readonly count: number;
}

/** A level's states, their ranks and fingerprints, and the successors each made once expanded. */
interface LevelPart {
  readonly level: EncodedLevel;
  readonly ranks: Uint32Array;
  readonly fingerprints: Uint32Array;
  readonly generatedBy: Uint32Array;
  readonly count: number;
}

/** States an owner claims at a time from a level (its own or another's). */
const CLAIM = 32;

/**
 * A slice that runs the model's code (expanding, checking properties) looks at the clock every 16 states
 * (a mask): a spec whose step takes 10 ms would otherwise run seconds past its slice, and a stopped
 * level as long past its limit. A clock read is a small part of a state's work.
 */
const CLOCK_EVERY = 15;

export class Owner<S> {
  private readonly width: number;
  /** A state's place in the level and the pending candidates: its width to the next word, so each copy goes a word at a time. */
  private readonly slot: number;
  /** The fingerprints of every state this owner holds. */
  private held = new FingerprintSet(PENDING_START);
  /**
   * How each was reached, on disk but for the last block: read only for a counterexample (a level's
   * records searched for a fingerprint) or a checkpoint, so memory holds only the fingerprints.
   */
  private records = new WordFile();
  /** Per level so far, the index of its first record (the level under way is the last). Level 0 is the initial states. */
  private levelStarts: number[] = [];
  // The level being expanded: this owner's states of it, in rank order.
  /** Stored as differences between consecutive states, in shared memory (owner threads help expand it). */
  private level: EncodedLevelWriter;
  private levelRanks: Uint32Array = new Uint32Array(0);
  private levelFingerprints: Uint32Array = new Uint32Array(0);
  private levelCount = 0;
  /** Successors generated per state of the level. */
  private generatedBy: Uint32Array = new Uint32Array(0);
  /** Coverage when the level under way started (a level under way is not in a snapshot). */
  private enabledAtLevel: Float64Array;
  private firedAtLevel: Float64Array;
  private expanding = false;
  // The next level as it comes in: per candidate kept, its key, step, parent and own fingerprints, bytes.
  private pending = new FingerprintIndex(PENDING_START);
  private pendingKeys = new Float64Array(PENDING_START);
  private pendingSteps = new Uint32Array(PENDING_START);
  /** Per candidate kept: parent hi, parent lo (the candidates are the initial states while no level is held yet). */
  private pendingLinks = new Uint32Array(2 * PENDING_START);
  private pendingFingerprints = new Uint32Array(2 * PENDING_START);
  private readonly pendingStates: CandidateStore;
  private pendingCount = 0;
  /** The pending candidates in key order, once absorbed. */
  private order: Uint32Array = new Uint32Array(0);
  private received = 0;
  private readonly batches: CandidateBatch[];
  /**
   * Fingerprints this owner has sent (a lossy cache, emptied when a level is rolled back). A state sent in an earlier
   * level is held by its owner now, and one sent earlier in this level went with a lesser key (a part is
   * expanded in rank order): a later copy could never be kept, so it is not sent. Most successors of a
   * BFS are states seen a moment ago; this spares their bytes, their batches and their owner's lookups.
   */
  private readonly sentBefore = new RecentFingerprints(Infinity);
  /**
   * The other owners' tables of states held, where they share this owner's memory (threads): a successor
   * one of them holds is not sent. They change only when a level is ranked, never while one is expanded.
   */
  private peerTables: (FingerprintSetView | null)[] = [];
  /** The other owners' levels, where they share this owner's memory: their states not yet claimed are expanded here too. */
  private peerLevels: (LevelPart | null)[] = [];
  /** Every other owner reads this one's table of states held (`sharePeers`): what they send, this one does not hold. */
  private sendersReadHeld = false;

  constructor(
    private readonly expander: Expander<S>,
    private readonly layout: PackedLayout,
    private readonly setup: OwnerSetup,
    /** Sends a batch of candidates to an owner (this one included). */
    private readonly send: (owner: number, batch: Uint8Array) => void,
  ) {
    this.width = layout.width;
    this.slot = (layout.width + 3) & ~3;
    this.level = new EncodedLevelWriter(this.width, this.slot, PENDING_START);
    this.pendingStates = new CandidateStore(this.width, PENDING_START);
    this.batches = Array.from({ length: setup.owners }, () => new CandidateBatch(this.width));
    this.enabledAtLevel = new Float64Array(expander.actions.length);
    this.firedAtLevel = new Float64Array(expander.actions.length);
  }

  /** Memory this owner's tables, levels, caches and batches take. */
  get bytes(): number {
    const pendingTables = this.pendingKeys.byteLength + this.pendingSteps.byteLength + this.pendingLinks.byteLength + this.pendingFingerprints.byteLength;
    const levelTables = this.levelRanks.byteLength + this.levelFingerprints.byteLength + this.generatedBy.byteLength;
    let batches = 0;
    for (const b of this.batches) batches += b.capacityBytes;
    return (
      this.held.bytes + this.records.bytes + this.level.bytes + levelTables + this.pending.bytes + pendingTables + this.pendingStates.bytes + this.sentBefore.bytes + batches
    );
  }

  start(initials: readonly InitialState[]): void {
    this.resetPending();
    for (const s of initials) {
      this.keep(s.hi, s.lo, s.rank, s.initIndex, 0, 0, s.bytes, 0);
    }
    this.order = keyOrder(this.pendingKeys, this.pendingCount);
    this.rank(Uint32Array.from(initials.map((s) => s.rank)));
  }

  /** Expands this owner's whole part of the level at once (an owner in the driver's process). */
  expand(): ExpandReport {
    return whole(this.startExpanding());
  }

  /**
   * Expands this owner's part of the level a slice at a time (`step` returns once its time is up, true at
   * the end), so a worker process can wait for its sent batches to be stored and send its heartbeat between
   * slices. The next level's candidates may come in from other owners before this one starts: nothing
   * about them is reset here.
   */
  startExpanding(): Sliced<ExpandReport> {
    const { expander, layout, setup, slot } = this;
    this.enabledAtLevel.set(expander.enabledCount);
    this.firedAtLevel.set(expander.firedCount);
    this.expanding = true;
    const sent = new Array<number>(setup.owners).fill(0);
    let bytesSent = 0;
    const flush = (to: number, all: boolean): void => {
      const b = this.batches[to]!;
      if (b.length > 0 && (all || b.full)) {
        bytesSent += b.length;
        this.send(to, b.take());
        sent[to]!++;
      }
    };
    const constrained = expander.constrained;
    const { sentBefore, held, peerTables } = this;
    let generated = 0;
    let stop: Stop | null = null;
    let parent: S | null = null;
    let parentRank = 0;
    let parentHi = 0;
    let parentLo = 0;
    let index = 0;
    const visit = (t: S, action: number, _params: unknown, ordinal: number): void => {
      const i = index++;
      if (t === parent) return;
      if (constrained && !expander.admits(parent!, t)) {
        // Outside the constraints: no state of the model, but its invariants are checked (bfs.ts).
        if (stop !== null) return;
        let bad: number;
        try {
          bad = expander.firstViolation(t);
        } catch (e) {
          if (!(e instanceof SpecError)) throw e;
          stop = this.stopAt(parentRank, i, 'error', i + 1, action, 'none', -1, parentHi, parentLo, -1, e);
          return;
        }
        if (bad >= 0) stop = this.stopAt(parentRank, i, 'violation', i + 1, action, 'none', bad, parentHi, parentLo, action * STEP_SPAN + ordinal);
        return;
      }
      expander.fingerprint(t);
      const hi = expander.hi;
      const lo = expander.lo;
      if (sentBefore.has(hi, lo)) return;
      sentBefore.remember(hi, lo);
      const to = ownerOf(hi, setup.owners);
      const v = t as unknown as PackedState;
      if (to === setup.index) {
        // A successor of this owner's own goes straight to the next level: no batch to write and read back.
        if (!held.has(hi, lo)) this.keep(hi, lo, keyOf(parentRank, i), action * STEP_SPAN + ordinal, parentHi, parentLo, v._b, v._o);
        return;
      }
      if (peerTables[to]?.has(hi, lo)) return;
      this.batches[to]!.push(hi, lo, parentRank, i, action * STEP_SPAN + ordinal, parentHi, parentLo, v._b, v._o);
      flush(to, false);
    };
    // Each parent is expanded from the level reader's own buffer, decoded over the one before it (a
    // successor starts as a copy of it).
    const claims = setup.claims;
    const parts: (LevelPart | null)[] = claims ? this.peerLevels.slice() : [];
    parts[setup.index] = this.ownPart();
    // The states [at, end) of `part` are this owner's to expand: its own part first, then what the others left.
    let victim = setup.index;
    let tried = 0;
    let part = parts[victim]!;
    let reader = new EncodedLevelReader(part.level, this.width, slot);
    let at = 0;
    let end = claims ? 0 : part.count;
    const claim = (): boolean => {
      if (!claims) return false;
      for (;;) {
        const first = Atomics.add(claims, victim, CLAIM);
        if (first < part.count) {
          at = first;
          end = Math.min(first + CLAIM, part.count);
          return true;
        }
        do {
          if (++tried === setup.owners) return false;
          victim = (victim + 1) % setup.owners;
        } while (parts[victim] == null);
        part = parts[victim]!;
        reader = new EncodedLevelReader(part.level, this.width, slot);
        // The cache of states sent held keys increasing with the parents' ranks; another owner's states come
        // in ranks of their own, so a successor sent a moment ago may now come with a lesser key.
        sentBefore.clear();
      }
    };
    const step = (untilMs: number): boolean => {
      for (let k = 0; stop === null; k++) {
        if (at === end && !claim()) break;
        if ((k & CLOCK_EVERY) === CLOCK_EVERY && performance.now() >= untilMs) return false;
        const r = at++;
        parent = layout.wrapAt(reader.at(r), 0) as S;
        parentRank = part.ranks[r]!;
        parentHi = part.fingerprints[2 * r]!;
        parentLo = part.fingerprints[2 * r + 1]!;
        index = 0;
        let count: number;
        try {
          count = expander.successors(parent, visit);
        } catch (e) {
          if (!(e instanceof SpecError)) throw e;
          // The successors before the throw were generated; the parent's later actions were not counted.
          // (Counted again without a visitor, the parent's actions from the one that threw are left out.)
          stop = earlier(stop, this.stopAt(parentRank, index, 'error', index, expander.expandingAction, 'none', -1, parentHi, parentLo, -1, e));
          count = index;
        }
        part.generatedBy[r] = index;
        generated += index;
        if (count === 0 && setup.deadlock && stop === null) stop = this.stopAt(parentRank, 0, 'deadlock', 0, expander.actions.length, 'none', -1, parentHi, parentLo, -1);
      }
      for (let to = 0; to < setup.owners; to++) flush(to, true);
      return true;
    };
    return { step, report: () => ({ sent, bytesSent, generated, stop }) };
  }

  /** This owner's table of states held and its level, for the other owners' `sharePeers` (the buffers move as they grow). */
  sharedPart(): SharedPart {
    const buffer = (a: ArrayBufferView) => a.buffer as SharedArrayBuffer;
    return { held: this.held.buffer, level: this.level.level(), ranks: buffer(this.levelRanks), fingerprints: buffer(this.levelFingerprints), generatedBy: buffer(this.generatedBy), count: this.levelCount };
  }

  /**
   * The other owners' parts (`sharedPart`), by owner index, null at this one: from now on their states
   * held are not sent, and, with `claims`, their states left unexpanded are expanded here too.
   */
  sharePeers(parts: readonly (SharedPart | null)[]): void {
    const mine = (t: number) => t === this.setup.index;
    this.peerTables = parts.map((p, t) => (p === null || mine(t) ? null : new FingerprintSetView(p.held)));
    this.sendersReadHeld = parts.length === this.setup.owners && parts.every((p, t) => p !== null || mine(t));
    this.peerLevels = parts.map((p, t) =>
      p === null || mine(t)
        ? null
        : {
            level: p.level,
            ranks: new Uint32Array(p.ranks),
            fingerprints: new Uint32Array(p.fingerprints),
            generatedBy: new Uint32Array(p.generatedBy),
            count: p.count,
          },
    );
  }

  private ownPart(): LevelPart {
    return { level: this.level.level(), ranks: this.levelRanks, fingerprints: this.levelFingerprints, generatedBy: this.generatedBy, count: this.levelCount };
  }

  /** The level under way is dropped (the driver stopped it): coverage as it was when the level started, nothing taken in. */
  abandonLevel(): void {
    this.sentBefore.clear(); // what this level sent is dropped by its receivers
    this.expanding = false;
    this.expander.enabledCount.set(this.enabledAtLevel);
    this.expander.firedCount.set(this.firedAtLevel);
    this.resetPending();
  }

  /** Takes in one batch of candidates: a new state keeps the one with the least key. */
  receive(batch: Uint8Array): void {
    this.received++;
    readBatch(batch, this.width, (hi, lo, parentRank, index, step, parentHi, parentLo, bytes, at) => {
      if (!this.sendersReadHeld && this.held.has(hi, lo)) return;
      this.keep(hi, lo, keyOf(parentRank, index), step, parentHi, parentLo, bytes, at);
    });
  }

  /** Batches taken in this level. */
  get batchesReceived(): number {
    return this.received;
  }

  /** Checks the properties on the level's new states, least key first, up to the first that breaks one. */
  absorb(): AbsorbReport {
    return whole(this.startAbsorbing());
  }

  /**
   * `absorb` a slice at a time (`step` returns once its time is up, true at the end), so a worker process
   * answers its heartbeats while it checks a share of a level that takes minutes.
   */
  startAbsorbing(): Sliced<AbsorbReport> {
    const { expander, layout } = this;
    this.order = keyOrder(this.pendingKeys, this.pendingCount);
    const order = this.order;
    const reached = new Uint8Array(expander.witnesses.length);
    const newStates = new Array<number>(expander.actions.length).fill(0);
    let stop: Stop | null = null;
    let k = 0;
    const step = (untilMs: number): boolean => {
      for (let done = 0; k < order.length && stop === null; k++, done++) {
        if ((done & CLOCK_EVERY) === CLOCK_EVERY && performance.now() >= untilMs) return false;
        const c = order[k]!;
        const s = layout.wrapAt(this.pendingStates.read(c), this.pendingStates.offsetOf(c)) as S;
        const key = this.pendingKeys[c]!;
        const action = Math.floor(this.pendingSteps[c]! / STEP_SPAN);
        const parentRank = Math.floor(key / KEY_SPAN);
        const i = key - parentRank * KEY_SPAN;
        newStates[action]!++;
        let bad: number;
        try {
          bad = expander.firstViolation(s);
          expander.markWitnesses(s, reached);
        } catch (e) {
          if (!(e instanceof SpecError)) throw e;
          stop = this.stopAt(parentRank, i, 'error', i + 1, action, 'logged', -1, this.fingerprintOf(c, 0), this.fingerprintOf(c, 1), -1, e);
          break;
        }
        if (bad >= 0) stop = this.stopAt(parentRank, i, 'violation', i + 1, action, 'queued', bad, this.fingerprintOf(c, 0), this.fingerprintOf(c, 1), -1);
      }
      return true;
    };
    const report = (): AbsorbReport => {
      const keys = new Float64Array(this.pendingCount);
      for (let j = 0; j < keys.length; j++) keys[j] = this.pendingKeys[order[j]!]!;
      return { count: this.pendingCount, keys, newStates, witnesses: indices(reached), stop, bytes: this.bytes };
    };
    return { step, report };
  }

  /** The new states, in key order, become this owner's part of the next level, with these ranks. */
  rank(ranks: Uint32Array): void {
    whole(this.startRanking(ranks));
  }

  /** `rank` a slice at a time (see `startAbsorbing`). */
  startRanking(ranks: Uint32Array): Sliced<void> {
    const order = this.order;
    const n = order.length;
    if (ranks.length !== n) throw new Error(`owner ${this.setup.index}: ${ranks.length} ranks for ${n} new states`);
    this.expanding = false;
    this.newLevel(n, ranks);
    let k = 0;
    const step = (untilMs: number): boolean => {
      for (let done = 0; k < n; k++, done++) {
        if ((done & 1023) === 1023 && performance.now() >= untilMs) return false;
        const c = order[k]!;
        this.admit(k, this.fingerprintOf(c, 0), this.fingerprintOf(c, 1), this.pendingLinks[2 * c]!, this.pendingLinks[2 * c + 1]!, this.pendingSteps[c]!, this.pendingStates.read(c), this.pendingStates.offsetOf(c));
      }
      this.resetPending();
      return true;
    };
    return { step, report: () => {} };
  }

  /**
   * The level just ranked, as a checkpoint keeps it: with the deltas of every level before it, `restore`
   * makes this owner again what it is now. [count, width, actions, 0] (words), enabled and fired (doubles),
   * then per state hi, lo, parent hi, parent lo, step, initial, rank (words) and its bytes, padded to words.
   */
  levelDelta(): Uint8Array {
    const { width, levelCount: n } = this;
    const actions = this.expander.actions.length;
    const stride = DELTA_WORDS * 4 + ((width + 3) & ~3);
    const head = 16 + 16 * actions;
    const out = new Uint8Array(head + n * stride);
    const words = new Uint32Array(out.buffer);
    words.set([n, width, actions, 0]);
    new Float64Array(out.buffer, 16, 2 * actions).set([...this.expander.enabledCount, ...this.expander.firedCount]);
    const first = this.records.length / RECORD_WORDS - n;
    const rec = this.records.read(first * RECORD_WORDS, n * RECORD_WORDS);
    const reader = new EncodedLevelReader(this.level.level(), width, this.slot);
    for (let k = 0; k < n; k++) {
      const w = (head + k * stride) >> 2;
      const r = k * RECORD_WORDS;
      const initial = this.levelStarts.length === 1 ? 1 : 0;
      words.set([rec[r]!, rec[r + 1]!, rec[r + 2]!, rec[r + 3]!, rec[r + 4]!, initial, this.levelRanks[k]!], w);
      out.set(reader.at(k).subarray(0, width), head + k * stride + DELTA_WORDS * 4);
    }
    return out;
  }

  /** This owner as it was when the last of `deltas` (one per level, in order) was taken. */
  restore(deltas: readonly Uint8Array[]): void {
    this.sentBefore.clear();
    this.held = new FingerprintSet(PENDING_START);
    this.records.close();
    this.records = new WordFile();
    this.levelStarts = [];
    this.resetPending();
    this.levelCount = 0;
    for (const delta of deltas) {
      const d = new Uint8Array(delta); // aligned
      const words = new Uint32Array(d.buffer);
      const [n, width, actions] = words as unknown as [number, number, number];
      if (width !== this.width || actions !== this.expander.actions.length) throw new Error(`owner ${this.setup.index}: a checkpoint of another model (state width ${width}, ${actions} actions)`);
      const counts = new Float64Array(d.buffer, 16, 2 * actions);
      this.expander.enabledCount.set(counts.subarray(0, actions));
      this.expander.firedCount.set(counts.subarray(actions));
      const stride = DELTA_WORDS * 4 + ((width + 3) & ~3);
      const head = 16 + 16 * actions;
      const ranks = new Uint32Array(n);
      for (let k = 0; k < n; k++) ranks[k] = words[((head + k * stride) >> 2) + 6]!;
      this.newLevel(n, ranks);
      for (let k = 0; k < n; k++) {
        const w = (head + k * stride) >> 2;
        this.admit(k, words[w]!, words[w + 1]!, words[w + 2]!, words[w + 3]!, words[w + 4]!, d, head + k * stride + DELTA_WORDS * 4);
      }
    }
  }

  /** Everything this owner holds at the last level boundary (ownerSnapshot.ts), for a checkpoint on disk. */
  snapshot(): Uint8Array {
    const { width, levelCount: n } = this;
    const heldCount = this.records.length / RECORD_WORDS;
    const held = new Uint32Array(heldCount * HELD_WORDS);
    const initials = this.levelStarts[1] ?? heldCount;
    // The records in their order, a block at a time (they are on disk).
    for (let id = 0; id < heldCount; id += RECORDS_AT_ONCE) {
      const count = Math.min(RECORDS_AT_ONCE, heldCount - id);
      const rec = this.records.read(id * RECORD_WORDS, count * RECORD_WORDS);
      for (let j = 0; j < count; j++) {
        for (let k = 0; k < RECORD_WORDS; k++) held[(id + j) * HELD_WORDS + k] = rec[j * RECORD_WORDS + k]!;
        held[(id + j) * HELD_WORDS + RECORD_WORDS] = id + j < initials ? 1 : 0;
      }
    }
    const level = decodeLevel(this.level.level(), width, this.slot);
    const [enabled, fired] = this.expanding ? [this.enabledAtLevel, this.firedAtLevel] : [this.expander.enabledCount, this.expander.firedCount];
    return writeSnapshot({ width, enabled, fired, held, levelStarts: Uint32Array.from(this.levelStarts.slice(0, -1)), ranks: this.levelRanks.subarray(0, n), level });
  }

  /** This owner as it was when `snapshot` was taken. */
  restoreSnapshot(snapshot: Uint8Array): void {
    const { width, enabled, fired, held, levelStarts, ranks, level } = readSnapshot(snapshot);
    if (width !== this.width || enabled.length !== this.expander.actions.length) throw new Error(`owner ${this.setup.index}: a snapshot of another model (state width ${width}, ${enabled.length} actions)`);
    this.sentBefore.clear();
    this.resetPending();
    this.expander.enabledCount.set(enabled);
    this.expander.firedCount.set(fired);
    const count = held.length / HELD_WORDS;
    const n = ranks.length;
    // The level's states are the last records (`admit` adds them): the others go in first, by record.
    this.held = new FingerprintSet(count);
    this.records.close();
    this.records = new WordFile();
    this.levelStarts = [...levelStarts];
    for (let id = 0; id < count - n; id++) {
      const w = id * HELD_WORDS;
      this.held.add(held[w]!, held[w + 1]!);
      for (let k = 0; k < RECORD_WORDS; k++) this.records.push(held[w + k]!);
    }
    this.newLevel(n, Uint32Array.from(ranks));
    for (let k = 0; k < n; k++) {
      const w = (count - n + k) * HELD_WORDS;
      this.admit(k, held[w]!, held[w + 1]!, held[w + 2]!, held[w + 3]!, held[w + 4]!, level, k * width);
    }
  }

  /** Starts a level of `n` states with these ranks. */
  private newLevel(n: number, ranks: Uint32Array): void {
    // In shared memory, so that owner threads can help expand it (`sharedPart`).
    this.level.emptied();
    this.levelRanks = new Uint32Array(new SharedArrayBuffer(4 * n));
    this.levelRanks.set(ranks);
    this.levelFingerprints = new Uint32Array(new SharedArrayBuffer(8 * n));
    this.generatedBy = new Uint32Array(new SharedArrayBuffer(4 * n));
    this.levelCount = n;
    this.levelStarts.push(this.records.length / RECORD_WORDS);
    if (this.setup.claims) Atomics.store(this.setup.claims, this.setup.index, 0);
  }

  /** State `k` of the level: held from now on, with how it was reached. */
  private admit(k: number, hi: number, lo: number, parentHi: number, parentLo: number, step: number, bytes: Uint8Array, at: number): void {
    if (k !== this.level.count) throw new Error(`owner ${this.setup.index}: state ${k} of a level admitted after ${this.level.count}`);
    this.level.push(bytes, at);
    this.levelFingerprints[2 * k] = hi;
    this.levelFingerprints[2 * k + 1] = lo;
    this.held.add(hi, lo);
    this.records.push(hi);
    this.records.push(lo);
    this.records.push(parentHi);
    this.records.push(parentLo);
    this.records.push(step);
  }

  /**
   * This owner's share of the counts where the search in one thread stops (`stop`): the parents before
   * it, the new states before it (and the one at it, when it is one), and the coverage up to it, counted
   * again from the level's start.
   */
  cut(stop: Stop): CutReport {
    const { expander, layout, slot } = this;
    const stopRank = Math.floor(stop.key / KEY_SPAN);
    // At --max-states the parent the budget ends in is expanded whole, its later successors generated but not logged.
    const lastParent = stop.end === 'maxStates' ? stopRank : stopRank - 1;
    const lastLogged = Math.min(stop.key, stop.lastAdmitted ?? Infinity);
    let generated = 0;
    for (let r = 0; r < this.levelCount && this.levelRanks[r]! <= lastParent; r++) generated += this.generatedBy[r]!;
    const reached = new Uint8Array(expander.witnesses.length);
    const newStates = new Array<number>(expander.actions.length).fill(0);
    let logged = 0;
    let queued = 0;
    for (const c of this.order) {
      const key = this.pendingKeys[c]!;
      if (key > lastLogged || (key === stop.key && stop.state === 'none')) break;
      logged++;
      newStates[Math.floor(this.pendingSteps[c]! / STEP_SPAN)]!++;
      if (key === stop.key && stop.state === 'logged') continue;
      queued++;
      try {
        expander.markWitnesses(layout.wrapAt(this.pendingStates.read(c), this.pendingStates.offsetOf(c)) as S, reached);
      } catch {
        // a witness that throws was reported where the search stopped
      }
    }
    // Coverage: the level's parents counted again up to the stop.
    expander.enabledCount.set(this.enabledAtLevel);
    expander.firedCount.set(this.firedAtLevel);
    const none = (): void => {};
    const reader = new EncodedLevelReader(this.level.level(), this.width, slot);
    for (let r = 0; r < this.levelCount && this.levelRanks[r]! <= stopRank; r++) {
      const parent = layout.wrapAt(reader.at(r), 0) as S;
      if (this.levelRanks[r]! < stopRank) {
        expander.successors(parent, none);
        continue;
      }
      const enabled = Float64Array.from(expander.enabledCount);
      const fired = Float64Array.from(expander.firedCount);
      try {
        expander.successors(parent, none);
      } catch (e) {
        if (!(e instanceof SpecError)) throw e;
      }
      for (let a = stop.keepActionsBelow; a < expander.actions.length; a++) {
        expander.enabledCount[a] = enabled[a]!;
        expander.firedCount[a] = fired[a]!;
      }
    }
    return { generated, logged, queued, newStates, witnesses: indices(reached), enabled: [...expander.enabledCount], fired: [...expander.firedCount] };
  }

  /** Gives back the disk its records take; the owner is not used after. */
  close(): void {
    this.records.close();
  }

  coverage(): { enabled: number[]; fired: number[] } {
    return { enabled: [...this.expander.enabledCount], fired: [...this.expander.firedCount] };
  }

  /** How a state this owner holds at `depth` (the level it was first reached in), or one new in the level the search stopped in, was first reached. */
  linkOf(hi: number, lo: number, depth: number): Link {
    if (!this.held.has(hi, lo)) {
      const c = this.pending.get(hi, lo);
      if (c < 0) throw new Error(`owner ${this.setup.index} holds no state with fingerprint ${hi}:${lo}`);
      const step = this.pendingSteps[c]!;
      return { parentHi: this.pendingLinks[2 * c]!, parentLo: this.pendingLinks[2 * c + 1]!, action: Math.floor(step / STEP_SPAN), ordinal: step % STEP_SPAN, initial: this.levelStarts.length === 0 };
    }
    const id = this.recordAt(hi, lo, depth);
    if (id < 0) throw new Error(`owner ${this.setup.index} holds no state with fingerprint ${hi}:${lo} at depth ${depth}`);
    const [parentHi, parentLo, step] = this.records.read(id * RECORD_WORDS + 2, 3) as unknown as [number, number, number];
    return { parentHi, parentLo, action: Math.floor(step / STEP_SPAN), ordinal: step % STEP_SPAN, initial: depth === 0 };
  }

  /** The record of the state with this fingerprint among those of level `depth` (read from disk a block at a time), or -1. */
  private recordAt(hi: number, lo: number, depth: number): number {
    const first = this.levelStarts[depth];
    if (first === undefined) return -1;
    const end = this.levelStarts[depth + 1] ?? this.records.length / RECORD_WORDS;
    for (let id = first; id < end; id += RECORDS_AT_ONCE) {
      const count = Math.min(RECORDS_AT_ONCE, end - id);
      const rec = this.records.read(id * RECORD_WORDS, count * RECORD_WORDS);
      for (let j = 0; j < count; j++) if (rec[j * RECORD_WORDS] === hi && rec[j * RECORD_WORDS + 1] === lo) return id + j;
    }
    return -1;
  }

  private stopAt(
    parentRank: number,
    index: number,
    end: Stop['end'],
    generatedInParent: number,
    keepActionsBelow: number,
    state: Stop['state'],
    invariant: number,
    traceHi: number,
    traceLo: number,
    stepPast: number,
    error?: SpecError,
  ): Stop {
    return { key: keyOf(parentRank, index), end, generatedInParent, keepActionsBelow, state, invariant, traceHi, traceLo, stepPast, ...(error ? { error: sendSpecError(error) } : {}) };
  }

  /** Keeps a candidate for the next level unless one with a lesser key is kept for its state. */
  private keep(hi: number, lo: number, key: number, step: number, parentHi: number, parentLo: number, bytes: Uint8Array, at: number): void {
    const c = this.pending.insert(hi, lo, this.pendingCount);
    let place: number;
    if (c < 0) {
      place = this.pendingCount++;
      if (place === this.pendingKeys.length) this.growPending();
    } else if (key < this.pendingKeys[c]!) place = c;
    else return;
    this.pendingKeys[place] = key;
    this.pendingSteps[place] = step;
    this.pendingLinks[2 * place] = parentHi;
    this.pendingLinks[2 * place + 1] = parentLo;
    this.pendingFingerprints[2 * place] = hi;
    this.pendingFingerprints[2 * place + 1] = lo;
    this.pendingStates.put(place, bytes, at, c >= 0);
  }

  private fingerprintOf(c: number, word: 0 | 1): number {
    return this.pendingFingerprints[2 * c + word]!;
  }

  private growPending(): void {
    // By half, as the tables of states held grow: the widest level's room is kept for every level after it.
    const before = this.pendingKeys.length;
    const places = Math.ceil(before * 1.5);
    // Each table has a fixed number of entries a place (links and fingerprints two).
    const grown = <T extends Float64Array | Uint32Array>(a: T): T => {
      const bigger = new (a.constructor as new (n: number) => T)((a.length / before) * places);
      bigger.set(a);
      return bigger;
    };
    this.pendingKeys = grown(this.pendingKeys);
    this.pendingSteps = grown(this.pendingSteps);
    this.pendingLinks = grown(this.pendingLinks);
    this.pendingFingerprints = grown(this.pendingFingerprints);
    this.pendingStates.growTo(places);
  }

  private resetPending(): void {
    // The table is kept at the size the last level needed: made afresh, it grew again through every size.
    if (this.pendingCount > 0 || this.pending.size > 0) this.pending.clear();
    this.pendingStates.clear();
    this.pendingCount = 0;
    this.received = 0;
  }
}

/** Work done a slice at a time: `step(untilMs)` returns false when its time is up, true once all is done. */
export interface Sliced<R> {
  step(untilMs: number): boolean;
  report(): R;
}

function whole<R>(work: Sliced<R>): R {
  while (!work.step(Infinity));
  return work.report();
}

function indices(reached: Uint8Array): number[] {
  const out: number[] = [];
  for (let i = 0; i < reached.length; i++) if (reached[i] === 1) out.push(i);
  return out;
}
