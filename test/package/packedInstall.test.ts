/**
 * The package as a user gets it: `npm pack`, install the tarball into an empty folder, write the README's
 * spec there and check it with `npx kmc`, under each module type a user's package.json may declare.
 * Runs the compiled output (dist/, built by `npm run build`; `npm test` builds it first). It packs and
 * installs (about 20 s of CPU), so it runs in the slow tier, which `.ci/run` runs after `npm test`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string };

/** The README's spec, exactly as the README shows it. */
function readmeSpec(): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const block = /```ts\n(\/\/ my-mutex\.ts[^\n]*\n[\s\S]*?)```/.exec(readme);
  assert.ok(block, 'the README shows my-mutex.ts');
  return block[1]!;
}

/** The README's spec without its types, as a user writing plain JavaScript would have it. */
function javascriptSpec(spec: string, style: 'esm' | 'cjs'): string {
  let js = spec
    .replace(/^type Pc = .*\n/m, '')
    .replace(/^type State = .*\n/m, '')
    .replace(/Map<string, Pc>\(\)/g, 'Map()')
    .replace(/defineSpec<State>\(/g, 'defineSpec(')
    .replace(/always<State>\(/g, 'always(')
    .replace(/sometimes<State>\(/g, 'sometimes(');
  if (style === 'cjs') {
    js = js
      .replace("import { Map, Record } from 'immutable';", "const { Map, Record } = require('immutable');")
      .replace(`import { always, defineSpec, sometimes } from '${pkg.name}';`, `const { always, defineSpec, sometimes } = require('${pkg.name}');`)
      .replace('export default defineSpec(', 'module.exports = defineSpec(');
  }
  assert.doesNotMatch(js, /<State>|: Pc|type /, 'no TypeScript left');
  return js;
}

/** The README's spec in its layout form (spec/examples/mutexPacked.ts), importing kmc by its package name. */
function layoutSpec(): string {
  const file = readFileSync(join(root, 'spec/examples/mutexPacked.ts'), 'utf8');
  const spec = file.replace(/from '\.\.\/index\.ts';/, `from '${pkg.name}';`);
  assert.notEqual(spec, file, 'mutexPacked.ts imports kmc as ../index.ts');
  return spec;
}

/** A spec with a layout and 961 states: enough for worker threads to take over the search from the first levels. */
function gridSpec(): string {
  return `import { defineSpec, always, layout as L, type Packed } from '${pkg.name}';

const State = L.record('Grid', { x: L.int(0, 30), y: L.int(0, 30) });
type State = Packed<typeof State>;

export default defineSpec<State>({
  name: 'grid',
  description: 'two counters that wrap around',
  params: [],
  presets: [],
  build: () => ({
    layout: State,
    init: () => [State.from({ x: 0, y: 0 })],
    actions: [
      { name: 'StepX', params: () => [{}], enabled: () => true, next: (s) => s.set('x', (s.x + 1) % 31) },
      { name: 'StepY', params: () => [{}], enabled: () => true, next: (s) => s.set('y', (s.y + 1) % 31) },
    ],
    properties: [always<State>('Bounded', 'x + y is at most 60', (s) => s.x + s.y <= 60)],
  }),
});
`;
}

function run(cmd: string, args: string[], cwd: string) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', npm_config_update_notifier: 'false' } });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

test('the packed tarball installs into an empty folder and checks the README spec under every module type (slow; set KMC_SLOW=1)', { skip: !process.env.KMC_SLOW, timeout: 120_000 }, () => {
  assert.ok(existsSync(join(root, 'dist/spec/index.js')), 'dist/ is built (npm run build)');
  const work = mkdtempSync(join(tmpdir(), 'kmc-pack-'));
  try {
    // As npm pack and npm publish do it: prepack (an incremental build, then the manifest without
    // prepare), pack, postpack (prepare back in the checkout's package.json).
    const manifest = readFileSync(join(root, 'package.json'), 'utf8');
    const packed = run('npm', ['pack', '--silent', '--pack-destination', work], root);
    assert.equal(packed.code, 0, packed.stderr);
    assert.equal(readFileSync(join(root, 'package.json'), 'utf8'), manifest, 'postpack restores package.json as it was');
    const tarball = join(work, packed.stdout.trim().split('\n').pop()!);
    const listing = run('tar', ['-tzf', tarball], work).stdout.split('\n').filter(Boolean);
    const shipped = JSON.parse(run('tar', ['-xzOf', tarball, 'package/package.json'], work).stdout) as { scripts: Record<string, string> };
    // A tarball carries dist/: no prepare for npm to name in its install-scripts notice.
    assert.deepEqual(Object.keys(shipped.scripts).filter((k) => ['preinstall', 'install', 'postinstall', 'prepare'].includes(k)), []);
    assert.equal(JSON.parse(manifest).scripts.prepare, 'node scripts/build.mjs', 'a checkout and a git install still build dist/');
    assert.deepEqual(listing.filter((f) => /\.test\.|fixtures\/|bench\/|\.ts$/.test(f) && !f.endsWith('.d.ts') && !f.startsWith('package/dist/examples/')), [], 'no tests, fixtures, bench or sources but the examples');
    for (const file of ['LICENSE', 'README.md', 'docs/layouts.md', 'docs/counterexample-pictures.md', 'dist/examples/mutex.ts', 'dist/examples/mutexPacked.ts']) {
      assert.ok(listing.includes(`package/${file}`), `the tarball ships ${file}`);
    }
    assert.ok(listing.includes('package/dist/checker/cli/bin.mjs'), 'the tarball ships the kmc bin');

    const esm = join(work, 'esm');
    mkdirSync(esm);
    writeFileSync(join(esm, 'package.json'), JSON.stringify({ name: 'esm-user', version: '1.0.0', type: 'module', allowScripts: { esbuild: false } }));
    const installed = run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], esm);
    assert.equal(installed.code, 0, installed.stderr);
    assert.doesNotMatch(installed.stderr, /esbuild|install-scripts/, 'no install-scripts notice (esbuild recorded as not needing its script)');
    assert.deepEqual(readdirSync(join(esm, 'node_modules/immutable')).includes('package.json'), true, 'the peer dependency immutable is installed beside it');

    // The same installation under the other module types (the install does not depend on the type).
    const folders: Record<string, { type?: string; files: Record<string, string> }> = {
      esm: { type: 'module', files: { 'my-mutex.ts': readmeSpec(), 'my-mutex.mts': readmeSpec(), 'my-mutex.js': javascriptSpec(readmeSpec(), 'esm') } },
      commonjs: { type: 'commonjs', files: { 'my-mutex.ts': readmeSpec(), 'my-mutex.mts': readmeSpec(), 'my-mutex.js': javascriptSpec(readmeSpec(), 'cjs') } },
      none: { files: { 'my-mutex.ts': readmeSpec(), 'my-mutex.js': javascriptSpec(readmeSpec(), 'cjs') } },
    };
    for (const [name, { type, files }] of Object.entries(folders)) {
      const dir = join(work, name);
      if (name !== 'esm') {
        mkdirSync(dir);
        writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `${name}-user`, version: '1.0.0', ...(type ? { type } : {}) }));
        symlinkSync(join(esm, 'node_modules'), join(dir, 'node_modules'));
      }
      for (const [file, text] of Object.entries(files)) {
        writeFileSync(join(dir, file), text);
        // The README's command once; the installed bin directly for the rest (npx costs a second each).
        const r = name === 'esm' && file === 'my-mutex.ts' ? run('npx', ['kmc', 'check', `./${file}`, '--preset', 'racy'], dir) : run(join(dir, 'node_modules/.bin/kmc'), ['check', `./${file}`, '--preset', 'racy'], dir);
        assert.equal(r.code, 1, `${name}/${file}: ${r.stderr}`);
        assert.match(r.stdout, /Invariant MutualExclusion violated after 4 steps \(a shortest counterexample\)/, `${name}/${file}`);
        assert.match(r.stdout, /^9 distinct states, 12 generated, depth 5/m, `${name}/${file}`);
      }
      // With a layout: the engine knows a packed state by its class, so the spec must get the very kmc
      // modules the CLI runs (tsx's scoped import gave it a copy: "a state holds a plain StateView").
      const kmcBin = join(dir, 'node_modules/.bin/kmc');
      writeFileSync(join(dir, 'my-mutex-packed.ts'), layoutSpec());
      const packedRun = run(kmcBin, ['check', './my-mutex-packed.ts', '--preset', 'racy'], dir);
      assert.equal(packedRun.code, 1, `${name}/my-mutex-packed.ts: ${packedRun.stdout}${packedRun.stderr}`);
      assert.match(packedRun.stdout, /Invariant MutualExclusion violated after 4 steps \(a shortest counterexample\)/, `${name}/my-mutex-packed.ts`);
      assert.match(packedRun.stdout, /^9 distinct states, 12 generated, depth 5/m, `${name}/my-mutex-packed.ts`);
      // Worker threads load the user's TypeScript too.
      const workers = Math.min(2, availableParallelism());
      writeFileSync(join(dir, 'grid.ts'), gridSpec());
      const grid = run(kmcBin, ['check', './grid.ts', '--workers', String(workers), '--json'], dir);
      assert.equal(grid.code, 0, `${name}/grid.ts: ${grid.stdout}${grid.stderr}`);
      const g = JSON.parse(grid.stdout) as { status: string; distinct: number; generated: number; depth: number; workers: number };
      assert.deepEqual([g.status, g.distinct, g.generated, g.depth, g.workers], ['holds', 961, 1923, 61, workers], `${name}/grid.ts`);
    }

    // The shipped examples check where they are installed (they import kmc by its package name).
    for (const [example, distinct] of [['mutex.ts', 9], ['mutexPacked.ts', 9]] as const) {
      const r = run(join(esm, 'node_modules/.bin/kmc'), ['check', `node_modules/${pkg.name}/dist/examples/${example}`, '--preset', 'racy'], esm);
      assert.equal(r.code, 1, `${example}: ${r.stdout}${r.stderr}`);
      assert.match(r.stdout, new RegExp(`^${distinct} distinct states`, 'm'), example);
    }

    // kmc init: the project it writes depends on the tarball kmc was installed from (absolute, since the
    // project is elsewhere) and on typescript for its typecheck script; it installs, typechecks, checks its
    // example spec and passes its own suite.
    const project = join(work, 'project');
    const init = run(join(esm, 'node_modules/.bin/kmc'), ['init', project], work);
    assert.equal(init.code, 0, init.stderr);
    const made = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
    assert.equal(made.devDependencies[pkg.name], `file:${tarball}`);
    assert.ok(made.devDependencies.typescript, 'typescript for npm run typecheck');
    assert.match(init.stdout, new RegExp(`The project depends on ${pkg.name} file:${tarball.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: kmc was installed from`));
    const projectInstall = run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], project);
    assert.equal(projectInstall.code, 0, projectInstall.stderr);
    const typecheck = run('npm', ['run', 'typecheck'], project);
    assert.equal(typecheck.code, 0, typecheck.stdout + typecheck.stderr);
    const example = run(join(project, 'node_modules/.bin/kmc'), ['check', './specs/mutex.ts', '--preset', 'racy'], project);
    assert.equal(example.code, 1, example.stderr);
    assert.match(example.stdout, /Invariant MutualExclusion violated after 4 steps/);
    const suite = run(join(project, 'node_modules/.bin/kmc'), ['ci', '--jobs', '1'], project);
    assert.equal(suite.code, 0, suite.stdout + suite.stderr);
    assert.match(suite.stdout, /kmc ci: passed — all 2 checks passed/);

    const version = run(join(esm, 'node_modules/.bin/kmc'), ['--version'], esm);
    assert.equal(version.stdout.trim(), pkg.version);
    // The README's deep imports of earlier versions still resolve.
    const deep = run(process.execPath, ['--input-type=module', '-e', `import { defineSpec } from '${pkg.name}/spec/spec.ts'; import { always } from '${pkg.name}/invariants/property.ts'; console.log(typeof defineSpec, typeof always);`], esm);
    assert.equal(deep.stdout.trim(), 'function function', deep.stderr);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
