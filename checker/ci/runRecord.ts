/**
 * The whole result of a `kmc ci` run as one JSON file (`kmc-ci.json` in the `--out` folder), so that the
 * slices of a sharded run, each on its own CI machine, can be merged into the report one run would give
 * (`kmc ci --merge DIR…`). JUnit and Markdown are views of a run; this file is the run itself, and the
 * merged reports are written from it by the same code as a single run's.
 *
 * Paths are stored relative to the folder the run was started in (CI checks the repository out at the
 * same place on every machine of a matrix) and the counterexample files relative to the record's folder,
 * where the artifact upload puts them beside it.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { UserError } from '../run/userError.ts';
import type { CiResult } from './gate.ts';

export const RECORD_FILE = 'kmc-ci.json';
const RECORD_KIND = 'kmc ci result';
const RECORD_VERSION = 1;

interface RecordFile {
  readonly kind: typeof RECORD_KIND;
  readonly version: number;
  readonly result: CiResult;
}

/** Writes the record of `r` into `dir`; returns its path. */
export function writeRunRecord(r: CiResult, dir: string): string {
  const path = join(resolve(dir), RECORD_FILE);
  mkdirSync(dirname(path), { recursive: true });
  const rel = (p: string) => relative(process.cwd(), p) || '.';
  const result: CiResult = {
    ...r,
    run: { ...r.run, suite: { ...r.run.suite, path: rel(r.run.suite.path), baselinePath: rel(r.run.suite.baselinePath) } },
    files: Object.fromEntries(Object.entries(r.files).map(([name, fs]) => [name, fs.map((f) => relative(dirname(path), f))])),
    // A design diff's full result holds both variants' searches; the reports need only its verdict.
    ...(r.diffs ? { diffs: r.diffs.map(({ result: _result, ...d }) => d) } : {}),
  };
  const record: RecordFile = { kind: RECORD_KIND, version: RECORD_VERSION, result };
  // JSON has no Infinity (a drift from 0 states is an infinite change): written as text, read back.
  writeFileSync(path, `${JSON.stringify(record, (_k, v: unknown) => (v === Infinity ? 'Infinity' : v === -Infinity ? '-Infinity' : v))}\n`);
  return path;
}

/** Reads the record in `dirOrFile` (a folder holding `kmc-ci.json`, or the file itself). */
export function readRunRecord(dirOrFile: string): CiResult {
  const isDir = existsSync(dirOrFile) && statSync(dirOrFile).isDirectory();
  const path = isDir ? join(dirOrFile, RECORD_FILE) : dirOrFile;
  if (!existsSync(path)) {
    throw new UserError(
      isDir
        ? `${dirOrFile} holds no ${RECORD_FILE}: give each slice an output folder (kmc ci --shard I/N --out DIR) and merge those folders.`
        : `${dirOrFile} does not exist: name the --out folder of each slice (kmc ci --shard I/N --out DIR).`,
    );
  }
  let record: RecordFile;
  try {
    record = JSON.parse(readFileSync(path, 'utf8'), (_k, v: unknown) => (v === 'Infinity' ? Infinity : v === '-Infinity' ? -Infinity : v)) as RecordFile;
  } catch (e) {
    throw new UserError(`${path} is not a kmc ci result (${(e as Error).message}).`);
  }
  if (record?.kind !== RECORD_KIND) throw new UserError(`${path} is not a kmc ci result (written by kmc ci --out DIR).`);
  if (record.version !== RECORD_VERSION) throw new UserError(`${path} is a version ${String(record.version)} kmc ci result; this kmc reads version ${RECORD_VERSION} (merge with the kmc that ran the slices).`);
  const r = record.result;
  const folder = dirname(resolve(path));
  // A counterexample is looked for beside the record; where the upload left it out, the name is kept.
  const file = (f: string) => (existsSync(join(folder, f)) ? join(folder, f) : existsSync(join(folder, basename(f))) ? join(folder, basename(f)) : f);
  return {
    ...r,
    run: { ...r.run, suite: { ...r.run.suite, path: resolve(r.run.suite.path), baselinePath: resolve(r.run.suite.baselinePath) } },
    files: Object.fromEntries(Object.entries(r.files).map(([name, fs]) => [name, fs.map(file)])),
  };
}
