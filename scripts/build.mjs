// Compiles kmc to dist/ (tsc, with `.ts` import specifiers rewritten to `.js`) and copies the files tsc
// does not emit: the worker-thread entries, the command's launcher and the suite's JSON schema.
import { cpSync, existsSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const root = new URL('..', import.meta.url);
// Incremental: dist/.tsbuildinfo records what was built, and goes with dist/ when it is deleted. Even
// with nothing to do, tsc takes seconds to find that out (npm test and npm pack build first), so when no
// input is newer than the last build that succeeded (dist/.built), tsc is not started at all.
const stamp = new URL('dist/.built', root);
const startedAt = new Date();
const require = createRequire(import.meta.url);
// What the build depends on besides the files' dates: npm pack rewrites package.json (prepack, postpack),
// so its date says nothing; the fields that change how tsc emits, and tsc's version, are compared instead.
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
const settings = JSON.stringify({ type: pkg.type, imports: pkg.imports, typescript: require('typescript/package.json').version });
if (!upToDate()) {
  const tsc = require.resolve('typescript/bin/tsc');
  const built = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) process.exit(built.status ?? 1);
  // Dated when the build started: a file saved during the build is newer, and builds again next time.
  writeFileSync(stamp, settings);
  utimesSync(stamp, startedAt, startedAt);
}
for (const file of ['checker/cli/bin.mjs', 'checker/engine/parallel/workerEntry.mjs', 'checker/ci/worker.mjs', 'checker/ci/kmc-suite.schema.json']) {
  cpSync(new URL(file, root), new URL(`dist/${file}`, root));
}

// `kmc list` reads the bundled specs' parameters and presets from here instead of loading every model.
const { loadCatalog, CATALOG_FILE } = await import(new URL('dist/checker/cli/bundledCatalog.js', root).href);
writeFileSync(new URL(`dist/checker/cli/${CATALOG_FILE}`, root), `${JSON.stringify(await loadCatalog())}\n`);

/** True when dist/ was built after the last change to any source or build setting. */
function upToDate() {
  if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== settings) return false;
  const builtAt = statSync(stamp).mtimeMs;
  const newer = (path) => {
    const st = statSync(path);
    if (!st.isDirectory()) return st.mtimeMs >= builtAt;
    return readdirSync(path).some((name) => newer(`${path}/${name}`));
  };
  const inputs = ['spec', 'checker', 'invariants', 'traces', 'tsconfig.json', 'tsconfig.build.json'];
  return !inputs.some((input) => newer(new URL(input, root).pathname));
}
