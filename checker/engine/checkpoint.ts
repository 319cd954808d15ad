/**
 * Checkpoints of a breadth-first search of packed states, written at level boundaries: the fingerprint
 * table, the state log, the level to expand next (its bytes), and the counters. A run killed at any
 * moment resumes from its last checkpoint and ends with the same counts and traces as a run that was
 * never stopped, because the search from a level boundary depends on nothing else.
 *
 * Files are written beside each other under a temporary name and renamed into place last, so a kill
 * while writing leaves the previous checkpoint whole. meta.json is the manifest: it names the run and
 * holds each data file's size and SHA-256, and its own; a file truncated, changed or missing since is
 * refused by name, never read into a search that would then report wrong counts.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ParamValues } from '../../spec/spec.ts';
import { CheckpointError, hasCheckpoint, readCheckpointFile, readManifest, writeCheckpointFiles } from './checkpointFiles.ts';
import { FingerprintSet } from './state/fingerprintSet.ts';
import { StateLog } from './stateLog.ts';
import { type SourceFile, sourcesDifference } from './specSources.ts';

export const VERSION = 4;

/** What a checkpoint says about the run it belongs to, checked again on resume. */
export interface CheckpointIdentity {
  readonly spec: string;
  readonly params: ParamValues;
  readonly width: number;
  readonly actions: readonly string[];
  readonly symmetry: boolean;
  /** Each property as `kind name`, in the spec's order: a witness is saved as reached by its place in it. */
  readonly properties: readonly string[];
  /** Whether deadlocks are looked for: the levels saved by a run that did not look were never checked for one. */
  readonly deadlock: boolean;
  /**
   * The SHA-256 of the spec's module file, where the spec came from one: an edit the rules digest's sampled
   * states do not exercise (a guard met deep in the search) is still an edit. Absent for a model built in
   * code, and in checkpoints of an earlier kmc, which are held to the rules digest alone.
   */
  readonly moduleFile?: { readonly path: string; readonly sha256: string };
  /**
   * The SHA-256s of the module and every local module it imports (specSources.ts): most of a spec's rules
   * live in those. Absent where `moduleFile` is, and in checkpoints of a kmc that kept the module file alone.
   */
  readonly sources?: readonly SourceFile[];
}

/** Where a run writes its checkpoints, and what it says about itself there. */
export interface CheckpointTarget {
  readonly directory: string;
  readonly everySeconds: number;
  readonly identity: CheckpointIdentity;
  /** The rules digest (rulesDigest.ts) of the spec over a level's states. */
  readonly rulesOf: (level: Uint8Array) => string;
}

export interface CheckpointState {
  readonly identity: CheckpointIdentity;
  /** What the spec's rules do to the initial states and to a sample of `level` (rulesDigest.ts). */
  readonly rules: string;
  readonly seen: FingerprintSet;
  readonly log: StateLog;
  /** The states of the level to expand next, `width` bytes each; their ids are the log's last ones. */
  readonly level: Uint8Array;
  readonly levelStarts: readonly number[];
  readonly depth: number;
  readonly generated: number;
  readonly newStates: Float64Array;
  readonly witnessesReached: Uint8Array;
  readonly enabledCount: Float64Array;
  readonly firedCount: Float64Array;
}

/** What a search writes and where it starts from (both optional). */
export interface Checkpoints {
  readonly write?: CheckpointTarget;
  readonly resumeFrom?: CheckpointState;
}

export { CheckpointError, hasCheckpoint };

const DATA_FILES = ['seen.bin', 'parents.bin', 'steps.bin', 'level.bin'] as const;
type DataFile = (typeof DATA_FILES)[number];

/** What a search hands over to be saved: everything but what the target adds. */
export type SavedSearch = Omit<CheckpointState, 'identity' | 'rules'>;

export function writeCheckpoint(target: CheckpointTarget, c: SavedSearch): void {
  const { parents, steps } = c.log.snapshot();
  const meta = {
    version: VERSION,
    identity: target.identity,
    rules: target.rulesOf(c.level),
    seenSize: c.seen.size,
    distinct: c.log.size,
    levelStarts: c.levelStarts,
    depth: c.depth,
    generated: c.generated,
    newStates: [...c.newStates],
    witnessesReached: [...c.witnessesReached],
    enabledCount: [...c.enabledCount],
    firedCount: [...c.firedCount],
  };
  const bins: Record<DataFile, Uint8Array> = {
    'seen.bin': bytesOf(c.seen.rawSlots),
    'parents.bin': bytesOf(parents),
    'steps.bin': bytesOf(steps),
    'level.bin': c.level,
  };
  writeCheckpointFiles(target.directory, bins, meta);
}

/** How far the checkpoint in `dir` goes (its manifest's depth and states, and its owners if it has them), or null when there is none to read. */
export function checkpointExtent(dir: string): { readonly depth: number; readonly distinct: number; readonly owners?: number } | null {
  try {
    const { depth, distinct, owners } = JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8')) as { depth: number; distinct: number; owners?: number };
    return { depth, distinct, ...(owners !== undefined ? { owners } : {}) };
  } catch {
    return null;
  }
}

export function readCheckpoint(dir: string, expected: CheckpointIdentity): CheckpointState {
  const meta = readManifest<{
    version: number;
    engine?: string;
    owners?: number;
    identity: CheckpointIdentity;
    rules: string;
    seenSize: number;
    distinct: number;
    levelStarts: number[];
    depth: number;
    generated: number;
    newStates: number[];
    witnessesReached: number[];
    enabledCount: number[];
    firedCount: number[];
  }>(dir, VERSION);
  if (meta.engine === 'owners') throw new CheckpointError(`the checkpoint in ${dir} was written by a search partitioned among ${meta.owners} owners: resume it with --owners N (${meta.owners}, or any other number of owners: the states are dealt out again)`);
  const differs = identityDifference(meta.identity, expected);
  if (differs !== null) {
    throw new CheckpointError(`the checkpoint in ${dir} belongs to another run: ${differs}. Resume with the same spec, preset, parameters and properties, and the same --symmetry and --[no-]deadlock, or start afresh.`);
  }
  const read = (f: DataFile): Buffer => readCheckpointFile(dir, meta.files, f);
  const words = (f: DataFile) => {
    const b = read(f);
    return new Uint32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
  };
  const parents = words('parents.bin');
  const steps = words('steps.bin');
  if (parents.length !== meta.distinct || steps.length !== meta.distinct) throw new CheckpointError(`the checkpoint in ${dir} is damaged: its state log does not hold ${meta.distinct} states`);
  const level = new Uint8Array(read('level.bin'));
  return {
    identity: meta.identity,
    rules: meta.rules,
    seen: FingerprintSet.fromSlots(words('seen.bin'), meta.seenSize),
    log: StateLog.restore(parents, steps),
    level,
    levelStarts: meta.levelStarts,
    depth: meta.depth,
    generated: meta.generated,
    newStates: Float64Array.from(meta.newStates),
    witnessesReached: Uint8Array.from(meta.witnessesReached),
    enabledCount: Float64Array.from(meta.enabledCount),
    firedCount: Float64Array.from(meta.firedCount),
  };
}

export function identityDifference(a: CheckpointIdentity, b: CheckpointIdentity): string | null {
  if (a.spec !== b.spec) return `it is a check of ${a.spec}, not ${b.spec}`;
  const pa = JSON.stringify(sorted(a.params));
  const pb = JSON.stringify(sorted(b.params));
  if (pa !== pb) return `its parameters are ${pa}, not ${pb}`;
  if (a.symmetry !== b.symmetry) return `it was ${a.symmetry ? '' : 'not '}run with --symmetry`;
  if (a.deadlock !== b.deadlock) return `it was run ${a.deadlock ? 'with' : 'without'} deadlock detection (--no-deadlock)`;
  if (a.width !== b.width || a.actions.join() !== b.actions.join()) return 'the spec has changed since (its layout or actions differ)';
  if (a.properties.join() !== b.properties.join()) {
    // A property added would never be checked on the levels saved; a witness is saved by its place.
    return `the spec's properties have changed since (${a.properties.join(', ') || 'none'} then, ${b.properties.join(', ') || 'none'} now)`;
  }
  if (a.moduleFile && b.moduleFile && a.sources && b.sources) {
    const changed = sourcesDifference(a.sources, b.sources);
    if (changed !== null) return `the spec's sources have changed since the saved levels were searched: ${changed} (paths from ${dirname(b.moduleFile.path)})`;
  } else if (a.moduleFile && b.moduleFile && a.moduleFile.sha256 !== b.moduleFile.sha256) {
    return `the spec's module file ${b.moduleFile.path} has been edited since (its contents differ from the file the saved levels were searched with)`;
  }
  return null;
}

function sorted(p: ParamValues): ParamValues {
  return Object.fromEntries(Object.entries(p).sort(([x], [y]) => (x < y ? -1 : 1)));
}

function bytesOf(a: Uint32Array): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

/**
 * Refuses to write checkpoints into `dir` when it holds one already: another run's would be replaced, and
 * this run's own is continued with --resume, not started again over it.
 */
export function refuseExistingCheckpoint(dir: string, identity: CheckpointIdentity): void {
  if (!hasCheckpoint(dir)) return;
  let theirs: CheckpointIdentity | null = null;
  try {
    theirs = (JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8')) as { identity: CheckpointIdentity }).identity;
  } catch {
    theirs = null;
  }
  const differs = theirs === null ? 'it cannot be read' : identityDifference(theirs, identity);
  throw new CheckpointError(
    differs === null
      ? `${dir} holds a checkpoint of this very run already: continue it with --resume ${dir}, or give --checkpoint an empty folder to start afresh`
      : `${dir} holds the checkpoint of another run (${differs}); it is not overwritten. Give --checkpoint another folder, or remove that one first`,
  );
}
