// Compiles kmc to dist/ (tsc, with `.ts` import specifiers rewritten to `.js`) and copies the files tsc
// does not emit: the worker-thread entries, the command's launcher and the suite's JSON schema.
import { cpSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const root = new URL('..', import.meta.url);
// Incremental: dist/.tsbuildinfo records what was built, and goes with dist/ when it is deleted.
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const built = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);
for (const file of ['checker/cli/bin.mjs', 'checker/engine/parallel/workerEntry.mjs', 'checker/ci/worker.mjs', 'checker/ci/kmc-suite.schema.json']) {
  cpSync(new URL(file, root), new URL(`dist/${file}`, root));
}

// `kmc list` reads the bundled specs' parameters and presets from here instead of loading every model.
const { loadCatalog, CATALOG_FILE } = await import(new URL('dist/checker/cli/bundledCatalog.js', root).href);
writeFileSync(new URL(`dist/checker/cli/${CATALOG_FILE}`, root), `${JSON.stringify(await loadCatalog())}\n`);
