// Compiles kmc to dist/ (tsc, with `.ts` import specifiers rewritten to `.js`), removes what was compiled
// from sources since deleted, and copies the files tsc does not emit: the worker-thread entries, the
// command's launcher and the suite's JSON schema.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const root = new URL('..', import.meta.url);
// Incremental: dist/.tsbuildinfo records what was built, and goes with dist/ when it is deleted. Even
// with nothing to do, tsc takes seconds to find that out (npm test and npm pack build first), so when no
// input is newer than the last build that succeeded (dist/.built), tsc is not started at all.
// Neither record notices a file of dist/ deleted or changed since (by hand, or by an interrupted copy):
// the stamp also says when that build finished, and a compiled file gone or newer than that has dist/
// built again in full.
const stamp = new URL('dist/.built', root);
const startedAt = new Date();
const require = createRequire(import.meta.url);
// What the build depends on besides the files' dates: npm pack rewrites package.json (prepack, postpack),
// so its date says nothing; the fields that change how tsc emits, and tsc's version, are compared instead.
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
// The source folders tsconfig.build.json compiles.
const SOURCES = ['spec', 'checker', 'invariants', 'traces'];
const settings = JSON.stringify({ type: pkg.type, imports: pkg.imports, typescript: require('typescript/package.json').version });
const last = lastBuild();
const intact = last !== null && outputsIntact(last.finishedAt);
if (!intact || !upToDate(last)) {
  if (!intact) rmSync(new URL('dist/.tsbuildinfo', root), { force: true });
  const tsc = require.resolve('typescript/bin/tsc');
  const built = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) process.exit(built.status ?? 1);
  // Dated when the build started: a file saved during the build is newer, and builds again next time.
  writeFileSync(stamp, JSON.stringify({ settings, finishedAt: Date.now() }));
  utimesSync(stamp, startedAt, startedAt);
}
pruneOrphans();
for (const file of ['checker/cli/bin.mjs', 'checker/cli/launcher.mjs', 'checker/engine/parallel/workerEntry.mjs', 'checker/ci/worker.mjs', 'checker/ci/kmc-suite.schema.json']) {
  cpSync(new URL(file, root), new URL(`dist/${file}`, root));
}

// The example specs, for the package: imports of kmc's own modules become the package name, which a file
// inside the package resolves to itself (package self-reference), so they check where they are installed.
mkdirSync(new URL('dist/examples/', root), { recursive: true });
for (const example of ['mutex.ts', 'mutexPacked.ts']) {
  const text = readFileSync(new URL(`spec/examples/${example}`, root), 'utf8').replace(/from '(\.\.\/)+(spec\/|invariants\/)?[a-zA-Z/]*\.ts'/g, `from '${pkg.name}'`);
  writeFileSync(new URL(`dist/examples/${example}`, root), text);
}

// `kmc list` reads the bundled specs' parameters and presets from here instead of loading every model.
const { loadCatalog, CATALOG_FILE } = await import(new URL('dist/checker/cli/bundledCatalog.js', root).href);
writeFileSync(new URL(`dist/checker/cli/${CATALOG_FILE}`, root), `${JSON.stringify(await loadCatalog())}\n`);

/**
 * Removes what tsc compiled from a source that is gone (deleted or renamed): left in dist/, it would
 * still load for whatever imports it, and go into the package. tsc never removes an output.
 */
function pruneOrphans() {
  const prune = (dir) => {
    const compiled = new URL(`dist/${dir}/`, root);
    if (!existsSync(compiled)) return;
    for (const name of readdirSync(compiled)) {
      const path = `${dir}/${name}`;
      if (statSync(new URL(name, compiled)).isDirectory()) {
        if (existsSync(new URL(path, root))) prune(path);
        else rmSync(new URL(name, compiled), { recursive: true });
        continue;
      }
      const source = /^(.*)\.(js|d\.ts)$/.exec(name)?.[1];
      if (source !== undefined && !existsSync(new URL(`${dir}/${source}.ts`, root))) rmSync(new URL(name, compiled));
    }
  };
  SOURCES.forEach(prune);
}

/** The last build that succeeded: its settings and when it finished (ms), or null. */
function lastBuild() {
  try {
    const recorded = JSON.parse(readFileSync(stamp, 'utf8'));
    return typeof recorded.finishedAt === 'number' ? recorded : null;
  } catch {
    return null;
  }
}

/** True when dist/ was built after the last change to any source or build setting. */
function upToDate(last) {
  if (last === null || last.settings !== settings) return false;
  const builtAt = statSync(stamp).mtimeMs;
  const newer = (path) => {
    const st = statSync(path);
    if (!st.isDirectory()) return st.mtimeMs >= builtAt;
    return readdirSync(path).some((name) => newer(`${path}/${name}`));
  };
  return ![...SOURCES, 'tsconfig.json', 'tsconfig.build.json'].some((input) => newer(new URL(input, root).pathname));
}

/**
 * True when every compiled source (what tsconfig.build.json does not exclude: tests, fixtures, test
 * support) has its `.js` in dist/, unchanged since the build that finished at `finishedAt`.
 */
function outputsIntact(finishedAt) {
  const intact = (dir) =>
    readdirSync(new URL(dir, root)).every((name) => {
      const path = `${dir}/${name}`;
      if (statSync(new URL(path, root)).isDirectory()) return name === 'fixtures' || intact(path);
      if (!name.endsWith('.ts') || name.endsWith('.test.ts') || path.endsWith('/testSupport.ts')) return true;
      const out = new URL(`dist/${path.slice(0, -3)}.js`, root);
      return existsSync(out) && statSync(out).mtimeMs <= finishedAt;
    });
  return SOURCES.every(intact);
}
