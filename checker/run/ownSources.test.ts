/**
 * kmc run compiled from a source checkout, given one of its own TypeScript sources by path: the spec and
 * the layout library it imports resolve to their compiled twins (ownSourcesHooks.ts), so its packed states
 * are the engine's own; a source changed since the last build is refused, not checked as it was.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { twinResolver } from './ownSourcesHooks.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'dist/checker/cli/bin.mjs');

function kmc(...args: string[]): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0' } });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}
const counts = (out: string) => /No violation: ([\d,]+) distinct states, ([\d,]+) generated, depth (\d+)/.exec(out)?.slice(1);

test('a bundled layout spec checked by its source path counts as by its name, in one thread and with 2 workers (by its name in one thread; KMC_SLOW=1: also with 2 workers)', () => {
  for (const workers of ['1', '2']) {
    // The counts by name are those of one thread with any number of workers (check.test.ts): the fast tier
    // spares a process by asking once.
    const byName = workers === '1' || process.env.KMC_SLOW ? kmc('check', 'twophase', '--param', 'rm=4', '--workers', workers) : undefined;
    const byPath = kmc('check', 'spec/twophase/twoPhase.ts', '--param', 'rm=4', '--workers', workers);
    assert.equal(byPath.code, 0, byPath.out);
    assert.deepEqual(counts(byPath.out), ['1,568', '8,258', '14'], byPath.out);
    assert.match(byPath.out, new RegExp(`${workers} worker`));
    if (byName === undefined) continue;
    assert.equal(byName.code, 0, byName.out);
    assert.deepEqual(counts(byPath.out), counts(byName.out));
  }
});

test('a source resolves to its compiled twin while it is as built; changed since, it is refused with what to do', async () => {
  const checkout = mkdtempSync(join(tmpdir(), 'kmc-twins-'));
  const source = join(checkout, 'spec/model.ts');
  const twin = join(checkout, 'dist/spec/model.js');
  const alone = join(checkout, 'spec/mine.ts');
  for (const dir of ['spec', 'dist/spec']) mkdirSync(join(checkout, dir), { recursive: true });
  for (const f of [source, twin, alone]) writeFileSync(f, 'export const x = 1;\n');
  const builtAt = Date.now();
  const resolve = twinResolver(pathToFileURL(join(checkout, 'dist/')).href, builtAt);
  const next = async (specifier: string) => ({ url: specifier, format: 'module' });
  try {
    utimesSync(source, (builtAt - 10_000) / 1000, (builtAt - 10_000) / 1000);
    const as = await resolve(pathToFileURL(source).href, {}, next);
    assert.equal(as.url, pathToFileURL(twin).href);
    assert.equal(as.format, 'module');
    // No twin (a spec of the user's own in the checkout): loaded from its source.
    assert.equal((await resolve(pathToFileURL(alone).href, {}, next)).url, pathToFileURL(alone).href);
    // Already compiled, or outside the checkout: as resolved.
    assert.equal((await resolve(pathToFileURL(twin).href, {}, next)).url, pathToFileURL(twin).href);
    assert.equal((await resolve('file:///elsewhere/spec/model.ts', {}, next)).url, 'file:///elsewhere/spec/model.ts');
    utimesSync(source, (builtAt + 10_000) / 1000, (builtAt + 10_000) / 1000);
    await assert.rejects(resolve(pathToFileURL(source).href, {}, next), {
      message: 'spec/model.ts changed after kmc was last built: run `npm run build` and check again (kmc runs compiled, from dist/, and a spec must use the very modules kmc runs)',
    });
  } finally {
    rmSync(checkout, { recursive: true, force: true });
  }
});
