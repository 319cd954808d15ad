/**
 * What an owner holds at a level boundary, as bytes (Owner.snapshot), for a checkpoint on disk
 * (ownerCheckpoint.ts): [held, level, width, actions, levels, 0] (words), enabled and fired per action
 * (doubles), per state held its hi, lo, parent hi, parent lo, step, initial (words; level by level, the
 * level to expand next last, in rank order), the first state of each level before that one (words), then
 * the level's ranks (words) and its states' bytes, `width` apart.
 */
import { ownerOf } from './ownerProtocol.ts';

/** Words per state held: hi, lo, parent hi, parent lo, step, initial. */
export const HELD_WORDS = 6;

/** The snapshot's format, named in its checkpoint's manifest: 2 added each level's first state. */
export const SNAPSHOT_FORMAT = 2;

const HEADER_BYTES = 24;

export interface SnapshotParts {
  readonly width: number;
  readonly enabled: Float64Array;
  readonly fired: Float64Array;
  /** HELD_WORDS per state held, level by level; the level's `ranks.length` states are the last. */
  readonly held: Uint32Array;
  /** Per level before the level to expand next, the index in `held` of its first state. */
  readonly levelStarts: Uint32Array;
  readonly ranks: Uint32Array;
  readonly level: Uint8Array;
}

export function writeSnapshot(p: SnapshotParts): Uint8Array {
  const actions = p.enabled.length;
  const heldAt = HEADER_BYTES + 16 * actions;
  const startsAt = heldAt + p.held.length * 4;
  const ranksAt = startsAt + p.levelStarts.length * 4;
  const levelAt = ranksAt + p.ranks.length * 4;
  const out = new Uint8Array(levelAt + p.level.length);
  new Uint32Array(out.buffer, 0, HEADER_BYTES / 4).set([p.held.length / HELD_WORDS, p.ranks.length, p.width, actions, p.levelStarts.length, 0]);
  new Float64Array(out.buffer, HEADER_BYTES, 2 * actions).set([...p.enabled, ...p.fired]);
  new Uint32Array(out.buffer, heldAt, p.held.length).set(p.held);
  new Uint32Array(out.buffer, startsAt, p.levelStarts.length).set(p.levelStarts);
  new Uint32Array(out.buffer, ranksAt, p.ranks.length).set(p.ranks);
  out.set(p.level, levelAt);
  return out;
}

export function readSnapshot(snapshot: Uint8Array): SnapshotParts {
  const b = new Uint8Array(snapshot); // a copy, on a word
  const [heldCount, n, width, actions, levels] = new Uint32Array(b.buffer, 0, HEADER_BYTES / 4) as unknown as [number, number, number, number, number];
  const counts = new Float64Array(b.buffer, HEADER_BYTES, 2 * actions);
  const heldAt = HEADER_BYTES + 16 * actions;
  const startsAt = heldAt + heldCount * HELD_WORDS * 4;
  const ranksAt = startsAt + levels * 4;
  const levelAt = ranksAt + n * 4;
  return {
    width,
    enabled: counts.slice(0, actions),
    fired: counts.slice(actions),
    held: new Uint32Array(b.buffer, heldAt, heldCount * HELD_WORDS),
    levelStarts: new Uint32Array(b.buffer, startsAt, levels),
    ranks: new Uint32Array(b.buffer, ranksAt, n),
    level: b.subarray(levelAt, levelAt + n * width),
  };
}

/**
 * The snapshots of `from.length` owners dealt out to `owners` owners: each state to the owner of its
 * fingerprint, level by level (an owner finds a state's record among its level's), the level to expand
 * next in rank order; the coverage counts (summed over owners at the end) go to the first. A checkpoint
 * of millions of states is resumed with another number of owners at once: this goes over each record
 * twice, counting then copying into typed arrays, and sorts nothing (a level's ranks are its positions).
 */
export function repartition(from: readonly Uint8Array[], owners: number): Uint8Array[] {
  const parts = from.map(readSnapshot);
  const { width } = parts[0]!;
  const actions = parts[0]!.enabled.length;
  const levels = parts[0]!.levelStarts.length;
  if (parts.some((p) => p.levelStarts.length !== levels)) throw new Error(`owner snapshots of different depths: ${parts.map((p) => p.levelStarts.length).join(', ')} levels`);
  const ownerAt = (part: SnapshotParts, id: number) => ownerOf(part.held[id * HELD_WORDS]!, owners);
  const heldCount = new Array<number>(owners).fill(0);
  const levelCount = new Array<number>(owners).fill(0);
  let levelSize = 0;
  for (const part of parts) {
    const all = part.held.length / HELD_WORDS;
    const firstOfLevel = all - part.ranks.length;
    for (let id = 0; id < all; id++) {
      const t = ownerAt(part, id);
      heldCount[t]!++;
      if (id >= firstOfLevel) levelCount[t]!++;
    }
    levelSize += part.ranks.length;
  }
  const held = heldCount.map((n) => new Uint32Array(n * HELD_WORDS));
  const starts = heldCount.map(() => new Uint32Array(levels));
  const filled = new Array<number>(owners).fill(0);
  const copy = (part: SnapshotParts, id: number) => {
    const t = ownerAt(part, id);
    held[t]!.set(part.held.subarray(id * HELD_WORDS, (id + 1) * HELD_WORDS), filled[t]!++ * HELD_WORDS);
    return t;
  };
  // The levels before the one to expand, in order, each owner's states of a level together.
  for (let d = 0; d < levels; d++) {
    for (let t = 0; t < owners; t++) starts[t]![d] = filled[t]!;
    for (const part of parts) {
      const end = d + 1 < levels ? part.levelStarts[d + 1]! : part.held.length / HELD_WORDS - part.ranks.length;
      for (let id = part.levelStarts[d]!; id < end; id++) copy(part, id);
    }
  }
  // The level to expand, in rank order: ranks are dense, 0 up to the level's size.
  const partAt = new Int32Array(levelSize).fill(-1);
  const kAt = new Uint32Array(levelSize);
  parts.forEach((part, p) =>
    part.ranks.forEach((rank, k) => {
      if (rank >= levelSize || partAt[rank] !== -1) throw new Error(`owner snapshots whose level ranks are not 0 to ${levelSize - 1} once each (rank ${rank})`);
      partAt[rank] = p;
      kAt[rank] = k;
    }),
  );
  const ranks = levelCount.map((n) => new Uint32Array(n));
  const bytes = levelCount.map((n) => new Uint8Array(n * width));
  const placed = new Array<number>(owners).fill(0);
  for (let rank = 0; rank < levelSize; rank++) {
    const part = parts[partAt[rank]!]!;
    const k = kAt[rank]!;
    const t = copy(part, part.held.length / HELD_WORDS - part.ranks.length + k);
    const j = placed[t]!++;
    ranks[t]![j] = rank;
    bytes[t]!.set(part.level.subarray(k * width, (k + 1) * width), j * width);
  }
  const summed = (which: 'enabled' | 'fired') => Float64Array.from({ length: actions }, (_, a) => parts.reduce((s, p) => s + p[which][a]!, 0));
  return held.map((h, t) =>
    writeSnapshot({
      width,
      enabled: t === 0 ? summed('enabled') : new Float64Array(actions),
      fired: t === 0 ? summed('fired') : new Float64Array(actions),
      held: h,
      levelStarts: starts[t]!,
      ranks: ranks[t]!,
      level: bytes[t]!,
    }),
  );
}

/** The level of every owner's snapshot, its states in rank order (whatever the number of owners), `width` bytes each. */
export function levelInRankOrder(snapshots: readonly Uint8Array[]): Uint8Array {
  const parts = snapshots.map(readSnapshot);
  const width = parts[0]?.width ?? 0;
  const out = new Uint8Array(parts.reduce((n, p) => n + p.level.length, 0));
  for (const p of parts) p.ranks.forEach((rank, k) => out.set(p.level.subarray(k * width, (k + 1) * width), rank * width));
  return out;
}
