/**
 * Output paths checked before any work is done, and folders made without Node's recursive mkdir, which
 * never returns under a folder of the kernel's proc filesystem (mkdir there fails with ENOENT forever).
 */
import { accessSync, constants, existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { UserError } from '../run/userError.ts';

/** Makes `dir` and its missing parents, one level at a time; throws a UserError naming the problem. */
export function makeDirectory(dir: string, option: string): void {
  const missing: string[] = [];
  let at = resolve(dir);
  while (!existsSync(at)) {
    missing.unshift(at);
    const parent = dirname(at);
    if (parent === at) break;
    at = parent;
  }
  if (existsSync(at) && !statSync(at).isDirectory()) throw new UserError(`${option} ${dir}: ${at} is a file, not a folder.`);
  for (const d of missing) {
    try {
      mkdirSync(d);
    } catch (e) {
      throw new UserError(`${option} ${dir}: cannot create the folder ${d} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}). Give a folder you can write to.`);
    }
  }
}

/** `--out DIR` (or `--checkpoint`, `--spill-dir`) for a folder of files: not an existing file, and creatable or writable. */
export function checkOutputFolder(dir: string, option = '--out'): void {
  if (/^\/(proc|sys)(\/|$)/.test(resolve(dir))) throw new UserError(`${option} ${dir}: the kernel's ${resolve(dir).split('/')[1]} filesystem holds no files of ours; give a folder on a disk.`);
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw new UserError(`${option} ${dir} is an existing file; ${option} names a folder to write ${option === '--out' ? 'the counterexample files' : 'into'}.`);
  writableAncestor(dir, option);
  if (existsSync(dir)) probeWrite(dir, option);
}

/** Writes and removes a small file in `dir`: permissions say less than a write does (read-only mounts, quotas). */
function probeWrite(dir: string, option: string): void {
  const probe = join(dir, `.kmc-write-test-${process.pid}`);
  try {
    writeFileSync(probe, 'kmc');
    rmSync(probe, { force: true });
  } catch (e) {
    throw new UserError(`${option} ${dir}: cannot write there (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}). Give a folder you can write to.`);
  }
}

/** `--out FILE`: not a folder, and its folder exists or can be made somewhere writable. */
export function checkOutputFile(file: string, option = '--out'): void {
  if (existsSync(file) && statSync(file).isDirectory()) throw new UserError(`${option} ${file} is a folder; give a file name.`);
  writableAncestor(dirname(resolve(file)), option);
}

/** The nearest existing folder above `dir` must be a folder this process may write in. */
function writableAncestor(dir: string, option: string): void {
  let at = resolve(dir);
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
  if (!statSync(at).isDirectory()) throw new UserError(`${option} ${dir}: ${at} is a file, not a folder.`);
  if (at === resolve(dir)) {
    try {
      accessSync(at, constants.W_OK);
    } catch {
      throw new UserError(`${option} ${dir}: the folder ${at} is not writable.`);
    }
    return;
  }
  // A folder must be created below `at`: the proc and sys filesystems never allow that.
  if (/^\/(proc|sys)(\/|$)/.test(at)) throw new UserError(`${option} ${dir}: cannot create folders under ${at}.`);
  try {
    accessSync(at, constants.W_OK);
  } catch {
    throw new UserError(`${option} ${dir}: cannot create it, the folder ${at} is not writable.`);
  }
}
