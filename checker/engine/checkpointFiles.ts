/**
 * The files of a checkpoint on disk, whatever search wrote them: data files beside each other, written
 * under a temporary name and renamed into place, and meta.json last, the manifest holding each data
 * file's size and SHA-256 and its own. A kill while writing leaves the previous checkpoint whole; a file
 * truncated, changed or missing since is refused by name, never read into a search.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The checkpoint's data does not belong to this run, or is damaged (a user error). */
export class CheckpointError extends Error {}

export function sha256(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}

interface FileEntry {
  readonly bytes: number;
  readonly sha256: string;
}

/** Writes `data` (file name → bytes) and meta.json, holding `meta` and the files' sizes and digests. */
export function writeCheckpointFiles(dir: string, data: Readonly<Record<string, Uint8Array>>, meta: object): void {
  mkdirSync(dir, { recursive: true });
  const names = Object.keys(data);
  const files = Object.fromEntries(names.map((f) => [f, { bytes: data[f]!.byteLength, sha256: sha256(data[f]!) }]));
  const manifest = { ...meta, files };
  const all: Record<string, Uint8Array | string> = { ...data, 'meta.json': JSON.stringify({ ...manifest, sha256: sha256(JSON.stringify(manifest)) }) };
  for (const f of Object.keys(all)) writeFileSync(join(dir, `${f}.tmp`), all[f]!);
  // meta.json goes last: a checkpoint is complete when its meta.json names the same run.
  for (const f of [...names, 'meta.json']) renameSync(join(dir, `${f}.tmp`), join(dir, f));
}

export function hasCheckpoint(dir: string): boolean {
  return existsSync(join(dir, 'meta.json'));
}

/** meta.json, checked against its own digest. */
export function readManifest<M extends { readonly version: number }>(dir: string, version: number): M & { readonly files: Record<string, FileEntry> } {
  if (!hasCheckpoint(dir)) throw new CheckpointError(`${dir} holds no checkpoint (no meta.json); write one with kmc check --checkpoint ${dir}`);
  let meta: M & { files: Record<string, FileEntry>; sha256: string };
  try {
    meta = JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8'));
  } catch (e) {
    throw new CheckpointError(`the checkpoint in ${dir} is damaged: meta.json: ${(e as Error).message}`);
  }
  if (meta.version !== version) throw new CheckpointError(`the checkpoint in ${dir} has format ${meta.version}; this kmc reads format ${version}. Start afresh without --resume`);
  const { sha256: said, ...manifest } = meta;
  if (said !== sha256(JSON.stringify(manifest))) throw new CheckpointError(`the checkpoint in ${dir} is damaged: meta.json was changed after it was written (its checksum differs). Start afresh without --resume`);
  return meta;
}

/** A data file of the checkpoint, checked against its manifest. */
export function readCheckpointFile(dir: string, files: Readonly<Record<string, FileEntry>>, f: string): Buffer {
  const path = join(dir, f);
  const expected = files[f];
  if (!existsSync(path) || expected === undefined) throw new CheckpointError(`the checkpoint in ${dir} is damaged: ${f} is missing. Start afresh without --resume`);
  const size = statSync(path).size;
  if (size !== expected.bytes) {
    throw new CheckpointError(`the checkpoint in ${dir} is damaged: ${f} has ${size} bytes, its manifest says ${expected.bytes} (${size < expected.bytes ? 'cut short' : 'grown'} since it was written). Start afresh without --resume`);
  }
  const b = readFileSync(path);
  if (sha256(b) !== expected.sha256) throw new CheckpointError(`the checkpoint in ${dir} is damaged: ${f} was changed after it was written (its SHA-256 differs from its manifest). Start afresh without --resume`);
  return b;
}
