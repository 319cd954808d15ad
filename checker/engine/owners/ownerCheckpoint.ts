/**
 * Checkpoints of a search partitioned among owners in this process or its threads (`--owners N
 * --checkpoint DIR`): each owner's snapshot at a level boundary (Owner.snapshot) and the driver's counts
 * there, in the checkpoint files every search writes (../checkpointFiles.ts). A run resumes from one with
 * any number of owners: when it differs, the states are dealt out again by fingerprint.
 */
import type { CheckpointIdentity, CheckpointTarget } from '../checkpoint.ts';
import { identityDifference, VERSION } from '../checkpoint.ts';
import { CheckpointError, readCheckpointFile, readManifest, writeCheckpointFiles } from '../checkpointFiles.ts';
import { levelInRankOrder, repartition, SNAPSHOT_FORMAT } from './ownerSnapshot.ts';
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
  const level = levelInRankOrder(snapshots);
  writeCheckpointFiles(target.directory, data, { version: VERSION, engine: 'owners', format: SNAPSHOT_FORMAT, owners: snapshots.length, identity: target.identity, rules: target.rulesOf(level), commit, depth: commit.depth, distinct: commit.distinct });
}

/** The checkpoint in `dir`, refused when it is damaged, of another run, or of a search not split among `owners` owners. */
export function readOwnerCheckpoint(dir: string, expected: CheckpointIdentity, owners: number): OwnerCheckpoint & { readonly level: Uint8Array } {
  const meta = readManifest<{ version: number; engine?: string; format?: number; owners?: number; identity: CheckpointIdentity; rules: string; commit: DriverCommit }>(dir, VERSION);
  if (meta.engine !== 'owners') throw new CheckpointError(`the checkpoint in ${dir} was written by a search not partitioned among owners: resume it without --owners`);
  if (meta.format !== SNAPSHOT_FORMAT) throw new CheckpointError(`the checkpoint in ${dir} was written by an earlier kmc, whose owners saved their states in another form (${meta.format ?? 1}, this one reads ${SNAPSHOT_FORMAT}): start the run afresh`);
  const differs = identityDifference(meta.identity, expected);
  if (differs !== null) throw new CheckpointError(`the checkpoint in ${dir} belongs to another run: ${differs}. Resume with the same spec, preset, parameters and --symmetry, or start afresh.`);
  const saved = Array.from({ length: meta.owners ?? 0 }, (_, t) => new Uint8Array(readCheckpointFile(dir, meta.files, fileOf(t))));
  // Resumed with another number of owners: each state goes to the owner of its fingerprint among them.
  const snapshots = saved.length === owners ? saved : repartition(saved, owners);
  return { rules: meta.rules, commit: meta.commit, snapshots, level: levelInRankOrder(snapshots) };
}
