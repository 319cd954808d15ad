/**
 * kmc run compiled from a source checkout builds the sources saved since its last build before a long
 * command runs (bin.mjs), so a check never runs the rules as they were before an edit. Run in a checkout
 * of its own: kmc's real bin.mjs and launcher.mjs, a build script and a CLI that say what they did.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));

/** A checkout whose build records that it ran (or fails, with `failing`), whose CLI prints `ran`. */
function checkout(failing = false): string {
  const root = mkdtempSync(join(tmpdir(), 'kmc-stale-'));
  for (const dir of ['dist/checker/cli', 'scripts', 'spec/model', 'checker/cli/fixtures']) mkdirSync(join(root, dir), { recursive: true });
  for (const file of ['bin.mjs', 'launcher.mjs']) copyFileSync(join(here, file), join(root, 'dist/checker/cli', file));
  writeFileSync(join(root, 'dist/checker/cli/cli.js'), "export async function run() { process.stdout.write('ran\\n'); }\n");
  writeFileSync(
    join(root, 'scripts/build.mjs'),
    failing ? "console.error('spec/model/rules.ts(3,1): error TS1005'); process.exit(1);\n" : "import { writeFileSync } from 'node:fs'; writeFileSync(new URL('../built-again', import.meta.url), 'yes');\n",
  );
  for (const file of ['spec/model/rules.ts', 'spec/model/rules.test.ts', 'checker/cli/fixtures/odd.ts', 'dist/.built']) writeFileSync(join(root, file), '');
  return root;
}
const age = (file: string, seconds: number) => utimesSync(file, Date.now() / 1000 + seconds, Date.now() / 1000 + seconds);
// As a user runs it: not under the test runner, which has kmc run the build it made first (KMC_NO_BUILD).
const { KMC_LAUNCHER_PID: _, KMC_NO_BUILD: __, ...env } = process.env;
const kmc = (root: string) => spawnSync(process.execPath, [join(root, 'dist/checker/cli/bin.mjs'), 'check', 'model'], { cwd: root, encoding: 'utf8', env });

test('sources older than the build: no build, the command runs', () => {
  const root = checkout();
  try {
    age(join(root, 'spec/model/rules.ts'), -60);
    // A test or a fixture saved since is no source of the compiled kmc.
    age(join(root, 'spec/model/rules.test.ts'), 60);
    age(join(root, 'checker/cli/fixtures/odd.ts'), 60);
    const r = kmc(root);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, 'ran\n');
    assert.equal(existsSync(join(root, 'built-again')), false);
    assert.equal(r.stderr, '');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a source saved since the build: built first, said on stderr, then the command runs', () => {
  const root = checkout();
  try {
    age(join(root, 'spec/model/rules.ts'), 60);
    const r = kmc(root);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(readFileSync(join(root, 'built-again'), 'utf8'), 'yes');
    assert.equal(r.stderr, 'kmc: sources changed since the last build; building (npm run build)\n');
    assert.equal(r.stdout, 'ran\n');
    assert.equal(existsSync(join(root, 'dist/.building')), false, 'the build lock is released');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a build that fails: its errors, one paragraph on what to do, exit 2, and the command does not run', () => {
  const root = checkout(true);
  try {
    age(join(root, 'spec/model/rules.ts'), 60);
    const r = kmc(root);
    assert.equal(r.status, 2);
    assert.equal(r.stdout, '');
    assert.equal(
      r.stderr,
      'kmc: sources changed since the last build; building (npm run build)\nspec/model/rules.ts(3,1): error TS1005\n' +
        'error: the build of the changed sources failed (above): fix them and run the command again; kmc runs compiled, and dist/ holds the sources as they were.\n',
    );
    assert.equal(existsSync(join(root, 'dist/.building')), false, 'the build lock is released');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('KMC_NO_BUILD=1: sources saved since the build are not built (the test runner built once, before its tests)', () => {
  const root = checkout();
  try {
    age(join(root, 'spec/model/rules.ts'), 60);
    const r = spawnSync(process.execPath, [join(root, 'dist/checker/cli/bin.mjs'), 'check', 'model'], { cwd: root, encoding: 'utf8', env: { ...env, KMC_NO_BUILD: '1' } });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, 'ran\n');
    assert.equal(existsSync(join(root, 'built-again')), false);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('another build under way: kmc waits for it, and builds nothing more when it has built the sources', async () => {
  const root = checkout();
  try {
    age(join(root, 'spec/model/rules.ts'), -60);
    age(join(root, 'dist/.built'), -120);
    mkdirSync(join(root, 'dist/.building'));
    const child = spawn(process.execPath, [join(root, 'dist/checker/cli/bin.mjs'), 'check', 'model'], { cwd: root, env });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    await new Promise((resolve) => setTimeout(resolve, 600));
    assert.equal(out, '', 'it waits while the lock is held');
    // The other build finishes: the sources are in dist/, and the lock goes.
    age(join(root, 'dist/.built'), 0);
    rmSync(join(root, 'dist/.building'), { recursive: true });
    assert.equal(await exited, 0, err);
    assert.equal(out, 'ran\n');
    assert.equal(err, '');
    assert.equal(existsSync(join(root, 'built-again')), false);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
