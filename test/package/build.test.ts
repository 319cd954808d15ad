/**
 * `npm run build` (scripts/build.mjs) on a copy of the sources: it skips tsc when nothing changed, and
 * builds dist/ again when a compiled file there was deleted or changed by hand, which neither its stamp
 * nor tsc's own record notices, and removes what was compiled from a deleted source. A full build is about 30 s of CPU, so this runs in the slow tier.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

test('npm run build restores a compiled file deleted or edited in dist/, removes those of deleted sources, and otherwise does not start tsc (slow; set KMC_SLOW=1)', { skip: !process.env.KMC_SLOW, timeout: 300_000 }, () => {
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

    // A source deleted, alone or with its folder: what was compiled from it goes too.
    mkdirSync(join(copy, 'checker/leftovers'));
    for (const source of ['checker/engine/leftover.ts', 'checker/leftovers/gone.ts']) writeFileSync(join(copy, source), 'export const LEFT = 1;\n');
    build();
    const outputs = ['checker/engine/leftover.js', 'checker/engine/leftover.d.ts', 'checker/leftovers/gone.js'].map((f) => join(copy, 'dist', f));
    assert.deepEqual(outputs.map((f) => existsSync(f)), [true, true, true]);
    rmSync(join(copy, 'checker/engine/leftover.ts'));
    rmSync(join(copy, 'checker/leftovers'), { recursive: true });
    build();
    assert.deepEqual(outputs.map((f) => existsSync(f)), [false, false, false], 'the outputs of deleted sources are removed');
    assert.equal(existsSync(join(copy, 'dist/checker/leftovers')), false, 'and the folder of a deleted folder');
    assert.ok(existsSync(bfs) && existsSync(join(copy, 'dist/checker/cli/bin.mjs')), 'what has a source, or is copied, stays');
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});
