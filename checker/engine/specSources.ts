/**
 * The source files a spec's rules come from: its module and every local module it imports, directly or
 * through another (packages under node_modules are the installed kmc's or a library's, not the spec's).
 * A checkpoint and a cluster run keep their SHA-256s: a spec's actions mostly live in modules its module
 * imports (spec/kraft/kraft.ts holds the parameters; actions.ts, messages.ts, properties.ts the rules),
 * and an edit to one of them that the rules digest's sampled states do not exercise was otherwise resumed,
 * or expanded by a worker, with rules the run did not start with.
 *
 * Imports are read from the text (`import … from`, `export … from`, `import '…'`, `import('…')`,
 * `require('…')` with a literal path); a module named by a computed path is not followed, and the rules
 * digest stays the check for it. A commented-out import of a file that exists is followed too: the
 * digest errs towards refusing.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface SourceFile {
  /** The path from the spec module's folder, with `/` (the same on every machine that has the spec's folder). */
  readonly path: string;
  readonly sha256: string;
}

export interface SpecSources {
  /** One digest of every file below: equal exactly when the list is. */
  readonly digest: string;
  /** The spec module first, then the modules it imports, by path. */
  readonly files: readonly SourceFile[];
}

const IMPORTED = /\bfrom\s*(['"])([^'"\n]+)\1|\bimport\s*(['"])([^'"\n]+)\3|\bimport\s*\(\s*(['"])([^'"\n]+)\5\s*\)|\brequire\s*\(\s*(['"])([^'"\n]+)\7\s*\)/g;

export function specSources(modulePath: string): SpecSources {
  const root = dirname(modulePath);
  const found = new Map<string, string>();
  const pending = [resolve(modulePath)];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (found.has(file)) continue;
    const bytes = readFileSync(file);
    found.set(file, createHash('sha256').update(bytes).digest('hex'));
    const text = bytes.toString('utf8');
    for (const m of text.matchAll(IMPORTED)) {
      const next = localModule(file, m[2] ?? m[4] ?? m[6] ?? m[8]!);
      if (next !== null && !found.has(next)) pending.push(next);
    }
  }
  const [first, ...rest] = [...found].map(([file, sha256]) => ({ path: relative(root, file).split(sep).join('/'), sha256 }));
  const files = [first!, ...rest.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))];
  const digest = createHash('sha256');
  for (const f of files) digest.update(`${f.path}\0${f.sha256}\n`);
  return { digest: digest.digest('hex'), files };
}

/**
 * Why the sources `now` are not those a run started with (`then`), naming the first file that differs,
 * or null when they are the same.
 */
export function sourcesDifference(then: readonly SourceFile[], now: readonly SourceFile[]): string | null {
  const before = new Map(then.map((f) => [f.path, f.sha256]));
  const after = new Map(now.map((f) => [f.path, f.sha256]));
  for (const f of now) {
    const was = before.get(f.path);
    if (was === undefined) return `${f.path} is imported now, not then`;
    if (was !== f.sha256) return `${f.path} differs`;
  }
  for (const f of then) if (!after.has(f.path)) return `${f.path} was imported then, not now`;
  return null;
}

/** The file a relative, absolute or file: specifier names from `importer`, or null (a package, or nothing there). */
function localModule(importer: string, specifier: string): string | null {
  let path: string;
  if (specifier.startsWith('file:')) {
    try {
      path = fileURLToPath(specifier);
    } catch {
      return null;
    }
  } else if (specifier.startsWith('./') || specifier.startsWith('../') || isAbsolute(specifier)) {
    path = resolve(dirname(importer), specifier);
  } else return null;
  if (path.split(sep).includes('node_modules')) return null;
  // TypeScript's conventions: `./x.js` written for `./x.ts`, an extension left out, a folder's index.
  const stem = path.replace(/\.(m|c)?js$/, '');
  const candidates = [path, `${stem}.ts`, `${stem}.mts`, `${stem}.cts`, `${path}.ts`, `${path}.js`, join(path, 'index.ts'), join(path, 'index.js')];
  for (const c of candidates) if (existsSync(c) && statSync(c).isFile()) return c;
  return null;
}
