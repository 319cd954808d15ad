/**
 * `npm run build` (scripts/build.mjs) on a copy of the sources: it skips tsc when nothing changed, and
 * builds dist/ again when a compiled file there was deleted or changed by hand, which neither its stamp
 * nor tsc's own record notices. A full build is about 30 s of CPU, so this runs in the slow tier.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

test('npm run build restores a compiled file deleted or edited in dist/, and otherwise does not start tsc (slow; set KMC_SLOW=1)', { skip: !process.env.KMC_SLOW, timeout: 300_000 }, () => {
  const copy = mkdtempSync(join(tmpdir(), 'kmc-build-'));
  try {
    // dist/ as `npm test` built it before the tests, its dates kept: the copy starts up to date.
    for (const part of ['scripts', 'spec', 'checker', 'invariants', 'traces', 'dist', 'package.json', 'tsconfig.json', 'tsconfig.build.json']) {
      cpSync(join(root, part), join(copy, part), { recursive: true, preserveTimestamps: true });
    }
    // The copy only reads the dependencies.
    symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'), 'dir');
    const build = () => {
      const r = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: copy, encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      return statSync(join(copy, 'dist/.built')).mtimeMs;
    };
    const bfs = join(copy, 'dist/checker/engine/bfs.js');
    const chunks = join(copy, 'dist/checker/engine/owners/keyOrder.js');
    const first = statSync(join(copy, 'dist/.built')).mtimeMs;
    const compiled = readFileSync(chunks, 'utf8');
    assert.equal(build(), first, 'nothing changed: the stamp stays, tsc does not run');

    rmSync(bfs);
    assert.notEqual(build(), first, 'a deleted compiled file builds again');
    assert.ok(existsSync(bfs), 'the deleted file is compiled again');

    appendFileSync(chunks, 'export const EDITED = 1;\n');
    build();
    assert.equal(readFileSync(chunks, 'utf8'), compiled, 'an edited compiled file is compiled again');
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});
