/**
 * A spec file on its own, with no node_modules beside or above it, is checked with kmc's own
 * `kafka-model-checker` and `immutable` (ownPackages.ts): loaded as CommonJS (no package.json), as an ES
 * module, and as JavaScript, in one thread and (KMC_SLOW=1) in a worker thread of its own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { resolveOrFromKmc } from './ownPackages.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'dist/checker/cli/bin.mjs');

function kmc(cwd: string, ...args: string[]): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

/** A folder of its own under the system's temporary folder, with nothing installed beside or above it. */
function aloneFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kmc-alone-'));
  for (let d = dir; d !== dirname(d); d = dirname(d)) {
    assert.ok(!existsSync(join(d, 'node_modules')) && !existsSync(join(d, 'package.json')), `${d} has a node_modules or a package.json: the test needs a folder outside any project`);
  }
  return dir;
}

/** N counters, each from 0 to K, as a declared layout: (K+1)^N states, depth N·K + 1, and a last state with nothing to do (--no-deadlock). */
const COUNTERS = `import { defineSpec, layout as L, always } from 'kafka-model-checker';
export default defineSpec({
  name: 'counters', description: 'counters going up', presets: [],
  params: [{ name: 'n', description: 'counters', type: 'int', default: 2 }, { name: 'k', description: 'top', type: 'int', default: 2 }],
  build: ({ n, k }) => {
    const State = L.record('State', { c: L.list(L.int(0, k), n) });
    return {
      layout: State,
      init: () => [State.from({ c: new Array(n).fill(0) })],
      actions: [{ name: 'Inc', params: () => Array.from({ length: n }, (_, i) => ({ i })), enabled: (s, { i }) => s.c.get(i) < k, next: (s, { i }) => s.setIn(['c', i], s.c.get(i) + 1) }],
      properties: [always('Bounded', 'no counter passes k', (s) => s.c.every((v) => v <= k))],
    };
  },
});
`;

test('a spec outside any project imports kmc and Immutable.js from the kmc that runs it: as CommonJS, as an ES module, as JavaScript', () => {
  const dir = aloneFolder();
  try {
    // The README's mutex as the package carries it: Immutable.js and kmc by their package names.
    const commonJs = join(dir, 'cjs');
    const esm = join(dir, 'esm');
    for (const d of [commonJs, esm]) {
      mkdirSync(d);
      copyFileSync(join(root, 'dist/examples/mutex.ts'), join(d, 'mutex.ts'));
    }
    writeFileSync(join(esm, 'package.json'), '{ "type": "module" }\n');
    const racy = kmc(commonJs, 'check', './mutex.ts', '--preset', 'racy');
    assert.equal(racy.code, 1, racy.out);
    assert.match(racy.out, /Invariant MutualExclusion violated after 4 steps/);
    assert.match(racy.out, /9 distinct states, 12 generated, depth 5/);
    const atomic = kmc(esm, 'check', './mutex.ts', '--preset', 'atomic');
    assert.equal(atomic.code, 0, atomic.out);
    assert.match(atomic.out, /No violation: 3 distinct states, 5 generated, depth 2/);
    // JavaScript, with a declared layout: its states are the engine's own packed states.
    writeFileSync(join(dir, 'counters.mjs'), COUNTERS);
    const js = kmc(dir, 'check', './counters.mjs', '--param', 'n=3', '--param', 'k=2', '--no-deadlock');
    assert.equal(js.code, 0, js.out);
    assert.match(js.out, /No violation: 27 distinct states, 55 generated, depth 7/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('only a package Node cannot find is taken from kmc, and only kmc\'s two', async () => {
  const asked: { specifier: string; parentURL: unknown }[] = [];
  const missing = Object.assign(new Error('Cannot find package'), { code: 'ERR_MODULE_NOT_FOUND' });
  const next = async (specifier: string, context: unknown) => {
    const parentURL = (context as { parentURL?: unknown }).parentURL;
    asked.push({ specifier, parentURL });
    if (parentURL === 'file:///alone/spec.ts') throw missing;
    return { url: `resolved:${specifier}` };
  };
  const context = { parentURL: 'file:///alone/spec.ts', conditions: ['node', 'import'] };
  assert.deepEqual(await resolveOrFromKmc('kafka-model-checker', context, next), { url: 'resolved:kafka-model-checker' });
  assert.deepEqual(await resolveOrFromKmc('immutable', context, next), { url: 'resolved:immutable' });
  // Asked again from kmc's own folder, which holds both.
  assert.deepEqual(
    asked.map((a) => [a.specifier, a.parentURL === context.parentURL ? 'spec' : String(a.parentURL).endsWith('/checker/run/ownPackages.ts') || String(a.parentURL).endsWith('/checker/run/ownPackages.js') ? 'kmc' : a.parentURL]),
    [['kafka-model-checker', 'spec'], ['kafka-model-checker', 'kmc'], ['immutable', 'spec'], ['immutable', 'kmc']],
  );
  // Any other package, or another failure, is the spec's to fix.
  await assert.rejects(resolveOrFromKmc('lodash', context, next), missing);
  const broken = Object.assign(new Error('bad exports'), { code: 'ERR_INVALID_PACKAGE_CONFIG' });
  await assert.rejects(resolveOrFromKmc('immutable', context, async () => Promise.reject(broken)), broken);
  // A project's own copy, found by Node, is used as it is.
  assert.deepEqual(await resolveOrFromKmc('immutable', { parentURL: 'file:///project/spec.ts' }, next), { url: 'resolved:immutable' });
});

test('a layout spec outside any project loads in a worker thread too (KMC_SLOW=1)', { skip: process.env.KMC_SLOW ? false : 'set KMC_SLOW=1' }, () => {
  const dir = aloneFolder();
  try {
    // No package.json: CommonJS, in the driver's thread and in the worker's. The compiled engine is driven
    // directly so the search waits for the worker thread from its first level (the command line never
    // waits: under load a thread may still be loading when a small search ends).
    writeFileSync(join(dir, 'counters.ts'), COUNTERS);
    const dist = (file: string) => JSON.stringify(pathToFileURL(join(root, 'dist', file)).href);
    writeFileSync(
      join(dir, 'drive.mjs'),
      `import { checkModel } from ${dist('checker/engine/check.js')};
import { loadSpec } from ${dist('checker/run/loadSpec.js')};
const { definition, modulePath } = await loadSpec('./counters.ts');
const params = { n: 4, k: 4 };
const r = await checkModel(definition.build(params), { workers: 2, ownerThreadsFromDepth: 1, deadlock: false }, { spec: definition.name, params }, { modulePath, params });
console.log(JSON.stringify([r.status, r.stats.distinct, r.stats.generated, r.stats.depth, r.stats.ownership.threadsJoined]));
`,
    );
    const r = spawnSync(process.execPath, ['drive.mjs'], { cwd: dir, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    // 5^4 states; 1 + 4·4·5^3 generated; depth 4·4 + 1; the worker thread takes its part at the first level.
    assert.deepEqual(JSON.parse(r.stdout), ['holds', 625, 2001, 17, [null, 1]]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
