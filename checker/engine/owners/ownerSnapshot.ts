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
 * next in rank order; the coverage counts (summed over owners at the end) go to the first.
 */
export function repartition(from: readonly Uint8Array[], owners: number): Uint8Array[] {
  const parts = from.map(readSnapshot);
  const { width } = parts[0]!;
  const actions = parts[0]!.enabled.length;
  const levels = parts[0]!.levelStarts.length;
  if (parts.some((p) => p.levelStarts.length !== levels)) throw new Error(`owner snapshots of different depths: ${parts.map((p) => p.levelStarts.length).join(', ')} levels`);
  const record = (part: SnapshotParts, id: number) => part.held.subarray(id * HELD_WORDS, (id + 1) * HELD_WORDS);
  // Per new owner, its records level by level, and where each level starts.
  const held: number[][] = Array.from({ length: owners }, () => []);
  const starts: number[][] = Array.from({ length: owners }, () => []);
  for (let d = 0; d < levels; d++) {
    for (let t = 0; t < owners; t++) starts[t]!.push(held[t]!.length / HELD_WORDS);
    for (const part of parts) {
      const end = d + 1 < levels ? part.levelStarts[d + 1]! : part.held.length / HELD_WORDS - part.ranks.length;
      for (let id = part.levelStarts[d]!; id < end; id++) held[ownerOf(part.held[id * HELD_WORDS]!, owners)]!.push(...record(part, id));
    }
  }
  const level: { rank: number; part: SnapshotParts; k: number }[] = [];
  for (const part of parts) for (let k = 0; k < part.ranks.length; k++) level.push({ rank: part.ranks[k]!, part, k });
  level.sort((a, b) => a.rank - b.rank);
  const idOf = (part: SnapshotParts, k: number) => part.held.length / HELD_WORDS - part.ranks.length + k;
  return held.map((older, t) => {
    const mine = level.filter(({ part, k }) => ownerOf(part.held[idOf(part, k) * HELD_WORDS]!, owners) === t);
    const levelHeld = mine.flatMap(({ part, k }) => [...record(part, idOf(part, k))]);
    const bytes = new Uint8Array(mine.length * width);
    mine.forEach(({ part, k }, j) => bytes.set(part.level.subarray(k * width, (k + 1) * width), j * width));
    const sum = (which: 'enabled' | 'fired') => (t === 0 ? Float64Array.from({ length: actions }, (_, a) => parts.reduce((s, p) => s + p[which][a]!, 0)) : new Float64Array(actions));
    return writeSnapshot({
      width,
      enabled: sum('enabled'),
      fired: sum('fired'),
      held: Uint32Array.from([...older, ...levelHeld]),
      levelStarts: Uint32Array.from(starts[t]!),
      ranks: Uint32Array.from(mine, (m) => m.rank),
      level: bytes,
    });
  });
}

/** The level of every owner's snapshot, its states in rank order (whatever the number of owners), `width` bytes each. */
export function levelInRankOrder(snapshots: readonly Uint8Array[]): Uint8Array {
  const parts = snapshots.map(readSnapshot);
  const width = parts[0]?.width ?? 0;
  const out = new Uint8Array(parts.reduce((n, p) => n + p.level.length, 0));
  for (const p of parts) p.ranks.forEach((rank, k) => out.set(p.level.subarray(k * width, (k + 1) * width), rank * width));
  return out;
}
