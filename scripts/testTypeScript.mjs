// The test runner's TypeScript: each test file, test helper and fixture of the checkout is compiled once by
// esbuild into out/test-js/ (what tsx would make of it, with its source map), and the test processes load
// that copy through a load hook (scripts/testTypeScriptHooks.mjs) instead of starting tsx each: tsx took
// about 0.45 s of CPU to start in every one of a hundred processes, where loading a compiled copy costs
// nothing. A copy older than its source is made again, here before the tests start or by the hook.
import { mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const SKIP = new Set(['node_modules', '.git', 'out', '.kmc', 'dist']);
export const COMPILED = join(root, 'out', 'test-js');

/** Where the compiled copy of `file` (an absolute path in the checkout) is kept. */
export function compiledPath(file) {
  return join(COMPILED, `${relative(root, file)}.js`);
}

/** True when `file`'s compiled copy exists and is no older than it. */
export function upToDate(file) {
  try {
    return statSync(compiledPath(file)).mtimeMs >= statSync(file).mtimeMs;
  } catch {
    return false;
  }
}

/** As tsx compiles a module for the running Node (its options): names kept, an inline source map. */
const OPTIONS = { loader: 'ts', format: 'esm', target: `node${process.versions.node}`, keepNames: true, sourcemap: 'inline' };

/** Compiles `file` (`transform`: esbuild's) and keeps its copy (written whole, then renamed: a process reading it never sees half). */
export async function compile(file, source, transform) {
  const { code } = await transform(source, { ...OPTIONS, sourcefile: file });
  const out = compiledPath(file);
  mkdirSync(dirname(out), { recursive: true });
  const partial = `${out}.${process.pid}.tmp`;
  writeFileSync(partial, code);
  renameSync(partial, out);
  return code;
}

/** Compiles every `.ts` and `.mts` file of the checkout whose copy is missing or stale; returns how many. */
export async function compileStale() {
  const stale = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      if (SKIP.has(name)) continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.m?ts$/.test(name) && !name.endsWith('.d.ts') && !upToDate(path)) stale.push(path);
    }
  };
  walk(root);
  if (stale.length === 0) return 0;
  const { transform } = await import('esbuild');
  const { readFile } = await import('node:fs/promises');
  await Promise.all(stale.map(async (file) => compile(file, await readFile(file, 'utf8'), transform)));
  return stale.length;
}
