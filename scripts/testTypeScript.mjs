// The test runner's TypeScript: each test file, test helper and fixture of the checkout is compiled once by
// esbuild into out/test-js/ (what tsx would make of it, with its source map), and a test process started
// with scripts/testTypeScriptLoader.mjs loads that copy through a load hook (scripts/testTypeScriptHooks.mjs)
// instead of starting tsx each: tsx took about 0.45 s of CPU to start in every one of a hundred processes,
// where loading a compiled copy costs nothing. A copy older than its source is made again, here before the
// tests start or by the hook. scripts/test.mjs itself runs the runnable copies made below, which need no hooks.
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

// ---- Runnable copies: what scripts/test.mjs runs -------------------------------------------------------
//
// A test process that loads its TypeScript through the hooks above pays for them: Node starts a thread for
// the hooks (about 0.12 s of CPU), and every module the test imports (about 120 on average, kmc's among
// them) goes through that thread to be resolved and loaded (about a millisecond each), some 25 s of CPU
// over the fast tier. So scripts/test.mjs runs a copy of each test that needs no hooks: compiled as above,
// with each import of the checkout's TypeScript written as the file the hooks would have loaded, and
// `import.meta.url` as the source's, so a test finds its fixtures where it did:
// - a kmc source with a compiled twin in dist/ (what scripts/distFirstHooks.mjs resolves it to): the twin;
// - any other .ts or .mts of the checkout (tests, their helpers and fixtures): its own runnable copy;
// - anything else (node: modules, packages, .mjs and .js files): as written, or as its absolute URL.
// Each copy lists what it chose (a twin, or a copy because there was no twin), and is made again if its
// source is newer or one of those choices would now be another.

import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, resolve as resolvePath } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const RUNNABLE = join(root, 'out', 'test-run');
const DIST = join(root, 'dist');
const ROOT = join(root, '.');

/** Where the runnable copy of `file` (an absolute path in the checkout) is kept. */
export function runnablePath(file) {
  return join(RUNNABLE, `${relative(root, file)}.js`);
}

/** The compiled twin the hooks resolve `file` to, or undefined (scripts/distFirstHooks.mjs, checker/run/ownSourcesHooks.ts). */
function twinOf(file) {
  if (!file.startsWith(`${ROOT}/`) || file.startsWith(`${DIST}/`) || !file.endsWith('.ts') || file.includes('/node_modules/')) return undefined;
  const twin = join(DIST, `${relative(root, file).slice(0, -'.ts'.length)}.js`);
  return existsSync(twin) ? twin : undefined;
}

/** True when `file` is TypeScript the test hooks would load from a compiled copy (scripts/testTypeScriptHooks.mjs). */
function ownTypeScript(file) {
  return file.startsWith(`${ROOT}/`) && /\.m?ts$/.test(file) && !file.includes('/node_modules/');
}

function runnableUpToDate(file) {
  const copy = runnablePath(file);
  try {
    if (statSync(copy).mtimeMs < statSync(file).mtimeMs) return false;
    const { twins, copies } = JSON.parse(readFileSync(`${copy}.choices.json`, 'utf8'));
    return twins.every((t) => existsSync(t)) && copies.every((c) => twinOf(c) === undefined && existsSync(runnablePath(c)));
  } catch {
    return false;
  }
}

/**
 * Makes the runnable copy of each of `files` (absolute paths of .ts or .mts files of the checkout) and of
 * every TypeScript module of the checkout they import that has no twin, where it is missing or stale.
 */
export async function compileRunnable(files) {
  const { build } = await import('esbuild');
  const queue = [...files];
  const seen = new Set(queue);
  let made = 0;
  while (queue.length > 0) {
    const batch = queue.splice(0);
    await Promise.all(
      batch.map(async (file) => {
        const choices = runnableUpToDate(file) ? JSON.parse(readFileSync(`${runnablePath(file)}.choices.json`, 'utf8')) : await makeRunnable(file, build).then((c) => (made++, c));
        for (const c of choices.copies) if (!seen.has(c)) (seen.add(c), queue.push(c));
      }),
    );
  }
  return made;
}

async function makeRunnable(file, build) {
  const twins = new Set();
  const copies = new Set();
  const out = runnablePath(file);
  const rewrite = {
    name: 'kmc-test-imports',
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === 'entry-point') return undefined;
        const spec = args.path;
        const local = spec.startsWith('file:') ? fileURLToPath(spec) : spec.startsWith('.') || isAbsolute(spec) ? resolvePath(args.resolveDir, spec) : undefined;
        if (local === undefined) return { path: spec, external: true };
        const twin = twinOf(local);
        if (twin !== undefined) {
          twins.add(twin);
          return { path: pathToFileURL(twin).href, external: true };
        }
        if (ownTypeScript(local)) {
          copies.add(local);
          return { path: pathToFileURL(runnablePath(local)).href, external: true };
        }
        return { path: pathToFileURL(local).href, external: true };
      });
    },
  };
  const { loader: _ts, ...options } = OPTIONS;
  const result = await build({
    ...options,
    entryPoints: [file],
    outfile: out,
    bundle: true,
    write: false,
    platform: 'node',
    logLevel: 'silent',
    define: { 'import.meta.url': JSON.stringify(pathToFileURL(file).href) },
    plugins: [rewrite],
  });
  const choices = { twins: [...twins], copies: [...copies] };
  mkdirSync(dirname(out), { recursive: true });
  const partial = `${out}.${process.pid}.tmp`;
  writeFileSync(partial, result.outputFiles[0].text);
  writeFileSync(`${partial}.choices`, JSON.stringify(choices));
  renameSync(`${partial}.choices`, `${out}.choices.json`);
  renameSync(partial, out);
  return choices;
}
