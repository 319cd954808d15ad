/**
 * kmc run compiled from a source checkout, given one of its own TypeScript sources by path: the spec and
 * the layout library it imports resolve to their compiled twins (ownSourcesHooks.ts), so its packed states
 * are the engine's own; a source changed since the last build is refused, not checked as it was.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { resolve } from './ownSourcesHooks.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'dist/checker/cli/bin.mjs');

function kmc(...args: string[]): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0' } });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}
const counts = (out: string) => /No violation: ([\d,]+) distinct states, ([\d,]+) generated, depth (\d+)/.exec(out)?.slice(1);

test('a bundled layout spec checked by its source path counts as by its name, in one thread and with 2 workers', () => {
  for (const workers of ['1', '2']) {
    const byName = kmc('check', 'twophase', '--param', 'rm=4', '--workers', workers);
    const byPath = kmc('check', 'spec/twophase/twoPhase.ts', '--param', 'rm=4', '--workers', workers);
    assert.equal(byName.code, 0, byName.out);
    assert.equal(byPath.code, 0, byPath.out);
    assert.deepEqual(counts(byPath.out), ['1,568', '8,258', '14'], byPath.out);
    assert.deepEqual(counts(byPath.out), counts(byName.out));
    assert.match(byPath.out, new RegExp(`${workers} worker`));
  }
});

test('a source resolves to its compiled twin while it is as built; changed since, it is refused with what to do', async () => {
  const name = `zzOwnSourcesProbe${process.pid}`;
  const source = join(root, 'spec', `${name}.ts`);
  const twin = join(root, 'dist/spec', `${name}.js`);
  const alone = join(root, 'spec', `${name}Alone.ts`);
  mkdirSync(join(root, 'dist/spec'), { recursive: true });
  writeFileSync(source, 'export const x = 1;\n');
  writeFileSync(twin, 'export const x = 1;\n');
  writeFileSync(alone, 'export const x = 1;\n');
  const next = async (specifier: string) => ({ url: specifier, format: 'module' });
  try {
    const builtAt = statSync(join(root, 'dist/.built')).mtimeMs / 1000;
    utimesSync(source, builtAt - 10, builtAt - 10);
    const as = await resolve(pathToFileURL(source).href, {}, next);
    assert.equal(as.url, pathToFileURL(twin).href);
    assert.equal(as.format, 'module');
    // No twin (a spec of the user's own in the checkout): loaded from its source.
    assert.equal((await resolve(pathToFileURL(alone).href, {}, next)).url, pathToFileURL(alone).href);
    // Already compiled, or outside the checkout: as resolved.
    assert.equal((await resolve(pathToFileURL(twin).href, {}, next)).url, pathToFileURL(twin).href);
    assert.equal((await resolve('file:///elsewhere/spec.ts', {}, next)).url, 'file:///elsewhere/spec.ts');
    utimesSync(source, builtAt + 10, builtAt + 10);
    await assert.rejects(resolve(pathToFileURL(source).href, {}, next), {
      message: `spec/${name}.ts changed after kmc was last built: run \`npm run build\` and check again (kmc runs compiled, from dist/, and a spec must use the very modules kmc runs)`,
    });
  } finally {
    for (const f of [source, twin, alone]) rmSync(f, { force: true });
  }
});
