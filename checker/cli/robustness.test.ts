/**
 * The command line as a new user meets it, through the CLI's main function in this process (no spawn):
 * output paths checked before the search, results never lost to a write error, clear errors for spec
 * mistakes, warnings for conflicting parameters, usage errors as JSON with --json.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { availableParallelism } from 'node:os';

process.env.FORCE_COLOR = '0';
const { kmcInProcess: kmc } = await import('./testSupport.ts');
const { progressDisplay } = await import('./progressDisplay.ts');

const root = fileURLToPath(new URL('../..', import.meta.url));
const fixture = (name: string) => join(root, 'test/fixtures', name);

const temp = () => mkdtempSync(join(tmpdir(), 'kmc-cli-'));

test('check --out naming an existing file is refused before the search', async () => {
  const file = join(temp(), 'taken');
  writeFileSync(file, 'x');
  const r = await kmc('check', 'twophase', '--preset', 'rm3-commit-early', '--out', file);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--out .*taken is an existing file; --out names a folder/);
  assert.doesNotMatch(r.stdout, /distinct/, 'no search ran');
  assert.doesNotMatch(r.stderr, /internal error|\n\s+at /);
});

test('check --out: a write that fails after the search still prints the counterexample, then the error', async () => {
  const dir = temp();
  // A folder where the text file should go makes that one write fail.
  mkdirSync(join(dir, 'twophase-rm3-commit-early-TCConsistent.txt'));
  const r = await kmc('check', 'twophase', '--preset', 'rm3-commit-early', '--out', dir, '--quiet');
  assert.equal(r.code, 1, 'the verdict stays the exit code');
  assert.match(r.stdout, /Invariant TCConsistent violated after 5 steps/);
  assert.match(r.stdout, /^Step 5 /m, 'the counterexample is printed');
  assert.match(r.stderr, /error: the counterexample could not be written to .*EISDIR/);
});

test("check --out keeps another run's counterexample in the folder: this one takes the next free name", async () => {
  const dir = temp();
  const first = await kmc('check', 'twophase', '--preset', 'rm3-commit-early', '--out', dir, '--quiet');
  assert.match(first.stdout, /Counterexample written to .*twophase-rm3-commit-early-TCConsistent\.itf\.json/);
  const other = await kmc('check', 'twophase', '--preset', 'rm3-commit-early', '--param', 'rm=4', '--out', dir, '--quiet');
  assert.match(other.stdout, /Counterexample written to .*twophase-rm3-commit-early-TCConsistent-2\.itf\.json/);
  const again = await kmc('check', 'twophase', '--preset', 'rm3-commit-early', '--out', dir, '--quiet');
  assert.match(again.stdout, /Counterexample written to .*twophase-rm3-commit-early-TCConsistent\.itf\.json/, 'the same run writes over its own');
  const params = (f: string) => JSON.parse(readFileSync(join(dir, f), 'utf8'))['#meta'].params.rm;
  assert.deepEqual([params('twophase-rm3-commit-early-TCConsistent.itf.json'), params('twophase-rm3-commit-early-TCConsistent-2.itf.json')], [3, 4]);
});

test('render --out under /proc fails at once', { skip: process.platform !== 'linux' }, async () => {
  const dir = temp();
  await kmc('check', 'diehard', '--out', dir, '--quiet');
  const trace = join(dir, 'diehard-NotSolved.itf.json');
  assert.ok(existsSync(trace), 'check --out writes the counterexample');
  const r = await kmc('render', trace, '--format', 'html', '--out', '/proc/kmc-no-such/report.html');
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--out \/proc\/kmc-no-such: cannot create folders under \/proc/);
  assert.ok(r.ms < 5000, `failed at once (${Math.round(r.ms)} ms)`);
});

test('a spec with a syntax error: the file, line, column and problem', async () => {
  const file = join(temp(), 'broken.ts');
  writeFileSync(file, "import { defineSpec } from 'kmc';\nconst x = ;\n");
  const r = await kmc('check', file);
  assert.equal(r.code, 2);
  assert.match(r.stderr, new RegExp(`${file.replace(/[.]/g, '\\.')}:2:11: Unexpected ";" \\(in \`const x = ;\`\\)`));
  assert.doesNotMatch(r.stderr, /Transform failed/);
});

test('a state holding a plain object is a user error (exit 2), not an internal error', async () => {
  const r = await kmc('check', fixture('plainObjectSpec.ts'), '--quiet');
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^error: The spec plain-object: a state holds a plain Object; states may hold only Immutable values/);
  assert.doesNotMatch(r.stderr, /internal error|\n\s+at /);
});

test('an init that returns no state is an error, not "no violation"', async () => {
  const r = await kmc('check', fixture('noInitSpec.ts'), '--quiet');
  assert.equal(r.code, 2);
  assert.match(r.stderr, /The spec no-init's init returned no state/);
  assert.doesNotMatch(r.stdout, /No violation/);
});

test('replay of a trace recorded for another spec says which spec recorded it', async () => {
  const dir = temp();
  await kmc('check', 'diehard', '--out', dir, '--quiet');
  const r = await kmc('replay', 'twophase', join(dir, 'diehard-NotSolved.itf.json'));
  assert.equal(r.code, 2);
  assert.match(r.stderr, /was recorded for the spec diehard, not twophase .* kmc replay diehard /);
});

test('--param repeated with another value, and --param over a preset value: a warning naming both', async () => {
  const repeated = await kmc('check', 'twophase', '--param', 'rm=2', '--param', 'rm=3', '--quiet');
  assert.equal(repeated.code, 0);
  assert.match(repeated.stderr, /warning: --param rm=3 replaces --param rm=2 given before it/);
  assert.match(repeated.stdout, /288 distinct states/, 'the last value counts');
  const overPreset = await kmc('check', 'twophase', '--preset', 'rm5', '--param', 'rm=2', '--quiet');
  assert.match(overPreset.stderr, /warning: --param rm=2 overrides preset rm5's rm=5/);
  const same = await kmc('check', 'twophase', '--preset', 'rm3', '--param', 'rm=3', '--quiet');
  assert.doesNotMatch(same.stderr, /warning/, 'the same value is not a conflict');
});

test('--workers above the number of cores is refused', async () => {
  const r = await kmc('check', 'twophase', '--workers', String(availableParallelism() + 1));
  assert.equal(r.code, 2);
  assert.match(r.stderr, new RegExp(`--workers ${availableParallelism() + 1} is more than the ${availableParallelism()} cores of this machine`));
});

test('usage errors with --json print one JSON object on stdout', async () => {
  for (const args of [['check', 'nosuchspec', '--json'], ['check', 'twophase', '--presett', 'rm3', '--json'], ['frobnicate', '--json']]) {
    const r = await kmc(...args);
    assert.equal(r.code, 2, args.join(' '));
    const lines = r.stdout.trim().split('\n');
    assert.equal(lines.length, 1, args.join(' '));
    const j = JSON.parse(lines[0]!);
    assert.equal(j.status, 'error');
    assert.equal(typeof j.message, 'string');
  }
});

test('unknown commands list the commands; unknown options suggest the nearest', async () => {
  const cmd = await kmc('frobnicate');
  assert.equal(cmd.code, 2);
  assert.match(cmd.stderr, /Unknown command 'frobnicate'\. The commands are list, check, simulate, replay, render, ci, diff, layout, worker, runs or init/);
  const near = await kmc('chek', 'twophase');
  assert.match(near.stderr, /Unknown command 'chek' \(did you mean 'check'\?\)/);
  const flag = await kmc('check', 'twophase', '--presett', 'rm3');
  assert.equal(flag.code, 2);
  assert.match(flag.stderr, /Unknown option --presett \(did you mean --preset\?\)/);
});

test('-v/--version print the version; -h/--help list every command', async () => {
  const { version } = (await import('../../package.json', { with: { type: 'json' } })).default;
  for (const flag of ['-v', '--version']) assert.equal((await kmc(flag)).stdout, `${version}\n`);
  for (const flag of ['-h', '--help']) {
    const r = await kmc(flag);
    assert.equal(r.code, 0);
    for (const name of ['list', 'check', 'simulate', 'replay', 'render', 'ci', 'init']) assert.match(r.stdout, new RegExp(`kmc ${name}\\b`));
  }
});

test('the progress line fits the terminal width', () => {
  let written = '';
  const stream = { isTTY: true, columns: 40, write: (s: string) => ((written += s), true) } as unknown as NodeJS.WriteStream;
  const display = progressDisplay(false, stream);
  display.onProgress!({ distinct: 123456789, generated: 987654321, queued: 55555, depth: 42, seconds: 1234 });
  const line = written.replace('\r\x1b[2K', '');
  assert.ok(line.length < 40, `${line.length} columns: ${line}`);
  assert.match(line, /^123,456,789 distinct/);
});

test('init writes a spec project, and never overwrites a file', async () => {
  const dir = join(temp(), 'my-designs');
  const r = await kmc('init', dir);
  assert.equal(r.code, 0, r.stderr);
  for (const f of ['package.json', 'tsconfig.json', 'specs/mutex.ts', 'kmc.suite.yaml', '.github/workflows/kmc.yml', '.gitignore']) assert.ok(existsSync(join(dir, f)), f);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  // Run from this checkout, kmc init depends on the checkout's folder (installSource.ts).
  assert.equal(pkg.devDependencies['kafka-model-checker'], `file:${fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '')}`);
  assert.ok(pkg.devDependencies.typescript, 'the project depends on typescript');
  assert.ok(pkg.devDependencies.immutable, 'the project depends on immutable');
  assert.match(readFileSync(join(dir, '.github/workflows/kmc.yml'), 'utf8'), /npx kmc ci --merge kmc-slices\/\* --junit kmc-out\/junit\.xml --markdown kmc-out\/summary\.md/);
  const again = await kmc('init', dir);
  assert.equal(again.code, 2);
  assert.match(again.stderr, /kmc init does not overwrite files: package\.json, tsconfig\.json, .* already exist in /);
});

test('ci --shard I/N runs checks I, I+N, … of the suite; the slices cover it exactly once', async () => {
  const dir = temp();
  const suite = join(dir, 'kmc.suite.yaml');
  writeFileSync(
    suite,
    ['version: 1', 'checks:', '  - { spec: diehard, expect: { violates: NotSolved } }', '  - { spec: twophase, preset: rm3, expect: holds }', '  - { spec: twophase, preset: rm3-commit-early, expect: { violates: TCConsistent } }', ''].join('\n'),
  );
  const ran = (stdout: string) => ['diehard', 'twophase/rm3', 'twophase/rm3-commit-early'].filter((n) => new RegExp(`^ok\\s+${n}\\s`, 'm').test(stdout));
  const first = await kmc('ci', suite, '--shard', '1/2', '--jobs', '1');
  assert.equal(first.code, 0, first.stdout + first.stderr);
  assert.deepEqual(ran(first.stdout), ['diehard', 'twophase/rm3-commit-early']);
  const second = await kmc('ci', suite, '--shard', '2/2', '--jobs', '1');
  assert.equal(second.code, 0, second.stdout + second.stderr);
  assert.deepEqual(ran(second.stdout), ['twophase/rm3']);
  const bad = await kmc('ci', suite, '--shard', '3/2');
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--shard takes I\/N with 1 ≤ I ≤ N/);
});

test('--owners or --workers where TMPDIR cannot be written: a user error naming the folder and what to set, before the search; by default, one thread', async () => {
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = join(temp(), 'missing');
  try {
    // Worker threads are owners too: asked for, they say the same; by default, the search goes on in one thread.
    const { availableParallelism } = await import('node:os');
    for (const asked of availableParallelism() > 1 ? [['--owners', '2'], ['--workers', '2']] : [['--owners', '2']]) {
      const r = await kmc('check', 'twophase', ...asked);
      assert.equal(r.code, 2, asked.join(' '));
      assert.match(r.stderr, /Cannot check twophase: cannot keep a search's records in \S+missing: ENOENT.*\(set TMPDIR to a directory this process can write\)/);
      assert.doesNotMatch(r.stdout, /distinct/, 'no search ran');
      assert.doesNotMatch(r.stderr, /internal error|\n\s+at /);
    }
    const byDefault = await kmc('check', 'twophase');
    assert.equal(byDefault.code, 0, byDefault.stderr);
    assert.match(byDefault.stdout, /No violation: 288 distinct states, .*, 1 worker\)/);
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
});

test('a spec whose states are views of a second copy of kmc (it imports kmc sources by path, compiled as CommonJS) is refused, naming the fix', async () => {
  // A folder without package.json: tsx compiles the spec as CommonJS, and its require of kmc's source loads
  // a copy of the layout library of its own, whose views the engine does not know for packed states.
  const dir = temp();
  const spec = join(dir, 'byPath.ts');
  writeFileSync(spec, `import twoPhase from ${JSON.stringify(join(root, 'spec/twophase/twoPhase.ts'))};\nexport default twoPhase;\n`);
  for (const how of [['--workers', '1'], ['--workers', '2'], ['--owners', '2']]) {
    const r = await kmc('check', spec, '--param', 'rm=3', ...how);
    assert.equal(r.code, 2, how.join(' '));
    // Its layout is declared: no warning that the workers go unused for want of one comes before the refusal.
    assert.doesNotMatch(r.stderr, /is not used/, how.join(' '));
    assert.match(r.stderr, /twophase cannot be checked: its states are TwoPhaseStateViews of a second copy of kmc's layout library, not of the kmc that checks it: .* Import kmc as 'kafka-model-checker' \(docs\/layouts\.md\)\.\n$/, how.join(' '));
    assert.doesNotMatch(r.stderr, /internal error|\n\s+at /, how.join(' '));
  }
});
