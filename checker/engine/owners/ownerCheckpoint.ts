/**
 * Checkpoints of a search partitioned among owners in this process or its threads (`--owners N
 * --checkpoint DIR`): each owner's snapshot at a level boundary (Owner.snapshot) and the driver's counts
 * there, in the checkpoint files every search writes (../checkpointFiles.ts). A run resumes from one with
 * as many owners as wrote it: a state's owner is its fingerprint modulo their number.
 */
import type { CheckpointIdentity, CheckpointTarget } from '../checkpoint.ts';
import { identityDifference, VERSION } from '../checkpoint.ts';
import { CheckpointError, readCheckpointFile, readManifest, writeCheckpointFiles } from '../checkpointFiles.ts';
import { levelOfSnapshot } from './owner.ts';
import type { DriverCommit } from './ownerProtocol.ts';

/** A checkpoint of a partitioned search, read back. */
export interface OwnerCheckpoint {
  readonly rules: string;
  readonly commit: DriverCommit;
  /** One per owner, by index. */
  readonly snapshots: readonly Uint8Array[];
}

const fileOf = (owner: number) => `owner-${owner}.bin`;

export function writeOwnerCheckpoint(target: CheckpointTarget, commit: DriverCommit, snapshots: readonly Uint8Array[]): void {
  const data = Object.fromEntries(snapshots.map((s, t) => [fileOf(t), s]));
  const level = concat(snapshots.map(levelOfSnapshot));
  writeCheckpointFiles(target.directory, data, { version: VERSION, engine: 'owners', owners: snapshots.length, identity: target.identity, rules: target.rulesOf(level), commit, depth: commit.depth, distinct: commit.distinct });
}

/** The checkpoint in `dir`, refused when it is damaged, of another run, or of a search not split among `owners` owners. */
export function readOwnerCheckpoint(dir: string, expected: CheckpointIdentity, owners: number): OwnerCheckpoint & { readonly level: Uint8Array } {
  const meta = readManifest<{ version: number; engine?: string; owners?: number; identity: CheckpointIdentity; rules: string; commit: DriverCommit }>(dir, VERSION);
  if (meta.engine !== 'owners') throw new CheckpointError(`the checkpoint in ${dir} was written by a search not partitioned among owners: resume it without --owners`);
  if (meta.owners !== owners) throw new CheckpointError(`the checkpoint in ${dir} was written by a search partitioned among ${meta.owners} owners: resume it with --owners ${meta.owners} (each state's owner is its fingerprint modulo the owners' number)`);
  const differs = identityDifference(meta.identity, expected);
  if (differs !== null) throw new CheckpointError(`the checkpoint in ${dir} belongs to another run: ${differs}. Resume with the same spec, preset, parameters and --symmetry, or start afresh.`);
  const snapshots = Array.from({ length: owners }, (_, t) => new Uint8Array(readCheckpointFile(dir, meta.files, fileOf(t))));
  return { rules: meta.rules, commit: meta.commit, snapshots, level: concat(snapshots.map(levelOfSnapshot)) };
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
