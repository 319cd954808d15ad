import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExitCode } from '../run/exitCodes.ts';
import { COUNTER, tempDir, writeSuite } from './testSupport.ts';

interface Invocation {
  readonly args: string[];
  readonly env?: Record<string, string | null>;
  readonly cwd?: string;
}

process.env.FORCE_COLOR = '0';
const { kmcInProcess } = await import('../cli/testSupport.ts');

/**
 * Runs `kmc` invocations one after the other through the CLI's main function in this process, each with
 * its environment variables (null: unset) and folder, both put back after it; returns each exit code and
 * output (colours removed). It ran them in a child process (checker/ci/fixtures/runKmc.ts) that did the
 * same, at half a second of CPU each to start and load kmc again.
 */
async function kmc(...invocations: Invocation[]): Promise<{ code: number; out: string; err: string }[]> {
  const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');
  const results: { code: number; out: string; err: string }[] = [];
  for (const inv of invocations) {
    const saved = Object.fromEntries(Object.keys(inv.env ?? {}).map((k) => [k, process.env[k]]));
    const cwd = process.cwd();
    for (const [k, v] of Object.entries(inv.env ?? {})) {
      if (v === null) delete process.env[k];
      else process.env[k] = v;
    }
    if (inv.cwd) process.chdir(inv.cwd);
    try {
      const r = await kmcInProcess(...inv.args);
      results.push({ code: r.code, out: plain(r.stdout), err: plain(r.stderr) });
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      process.chdir(cwd);
    }
  }
  return results;
}

const NO_GITHUB = { GITHUB_ACTIONS: null, GITHUB_STEP_SUMMARY: null };

test('kmc ci under GitHub Actions: annotations on stdout, summary appended to $GITHUB_STEP_SUMMARY, JUnit and Markdown files', async () => {
  const dir = tempDir();
  const suite = writeSuite(`version: 1\nchecks:\n  - spec: twophase\n    preset: rm3\n    expect: holds\n  - spec: twophase\n    preset: rm3-commit-early\n    expect: holds\n`, dir);
  const summary = join(dir, 'step-summary.md');
  writeFileSync(summary, 'earlier step\n');
  const env = { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary };
  const [r, quiet] = await kmc(
    { args: ['ci', suite, '--jobs', '1', '--quiet', '--junit', join(dir, 'r/junit.xml'), '--markdown', join(dir, 'r/summary.md'), '--out', join(dir, 'cex')], env },
    { args: ['ci', suite, '--jobs', '1', '--quiet', '--only', 'twophase/rm3'], env: NO_GITHUB },
  );
  assert.equal(r!.code, ExitCode.Violation);
  assert.equal(r!.err, '');
  assert.match(r!.out, /^BROKEN +twophase\/rm3-commit-early +holds +violates TCConsistent +167 +6 /m);
  assert.match(r!.out, /\n::error file=[^,]*kmc\.suite\.yaml,line=6,title=kmc ci%3A twophase\/rm3-commit-early%3A expected holds%2C got violates TCConsistent::breaks TCConsistent/);
  const md = readFileSync(join(dir, 'r/summary.md'), 'utf8');
  assert.equal(readFileSync(summary, 'utf8'), `earlier step\n${md}\n`);
  assert.match(readFileSync(join(dir, 'r/junit.xml'), 'utf8'), /<failure message="twophase\/rm3-commit-early: expected holds, got violates TCConsistent/);
  assert.ok(existsSync(join(dir, 'cex/twophase_rm3-commit-early.itf.json')), 'the counterexample is written under --out');
  assert.match(r!.out, /counterexample: .*cex\/twophase_rm3-commit-early\.itf\.json/);

  assert.equal(quiet!.code, ExitCode.Holds);
  assert.doesNotMatch(quiet!.out, /::error/);
});

test('kmc ci usage mistakes exit 2 with one clear paragraph', async () => {
  const dir = tempDir();
  const bad = writeSuite('version: 1\nchecks:\n  - spec: twophase\n    preset: rm3\n    expect: hold\n', dir);
  const good = writeSuite('version: 1\nchecks:\n  - spec: twophase\n    preset: rm3\n    expect: holds\n', dir, 'good.yaml');
  const [malformed, missing, tolerance, none] = await kmc(
    { args: ['ci', bad], env: NO_GITHUB },
    { args: ['ci', join(dir, 'missing.yaml')], env: NO_GITHUB },
    { args: ['ci', good, '--tolerance', '-1'], env: NO_GITHUB },
    { args: ['ci'], env: NO_GITHUB, cwd: tempDir() },
  );
  assert.equal(malformed!.code, ExitCode.Usage);
  assert.match(malformed!.err, /^error: The suite .*kmc\.suite\.yaml has a problem:\n {2}.*kmc\.suite\.yaml:5:13: checks\[0\]\.expect: expected verdict must be holds or violates: <PropertyName>; got string "hold"\./);
  assert.equal(malformed!.out, '');
  assert.equal(missing!.code, ExitCode.Usage);
  assert.match(missing!.err, /Cannot read the suite .*missing\.yaml: no such file\./);
  assert.equal(tolerance!.code, ExitCode.Usage);
  assert.match(tolerance!.err, /--tolerance takes a fraction of at least 0/);
  assert.equal(none!.code, ExitCode.Usage);
  assert.match(none!.err, /No suite file given and none found \(looked for kmc\.suite\.yaml, kmc\.suite\.yml, kmc\.suite\.json, ci\/kmc\.suite\.yaml\)/);
});

test('kmc ci --init writes a suite with one check per preset, which then passes; it never overwrites', async () => {
  const dir = tempDir();
  const target = join(dir, 'specs.suite.yaml');
  const [init, run, again] = await kmc(
    { args: ['ci', target, '--init', '--spec', COUNTER, '--spec', 'twophase'], env: NO_GITHUB },
    { args: ['ci', target, '--jobs', '1', '--quiet', '--update-baseline'], env: NO_GITHUB },
    { args: ['ci', target, '--init'], env: NO_GITHUB },
  );
  assert.equal(init!.code, ExitCode.Holds);
  assert.match(init!.out, /^Wrote .*specs\.suite\.yaml: 5 checks \(one per preset of .*counter\.ts, twophase\)/);
  const text = readFileSync(target, 'utf8');
  assert.match(text, /^# kmc CI suite/);
  assert.deepEqual(
    [...text.matchAll(/- spec: (\S+)\n {4}preset: (\S+)\n {4}expect: (.*)/g)].map((m) => [m[1]!.replace(/^.*\/fixtures\//, 'F/'), m[2], m[3]]),
    [
      ['F/counter.ts', 'c3', 'holds'],
      ['F/counter.ts', 'c3-overflow', '{ violates: XWithinMax }'],
      ['twophase', 'rm3', 'holds'],
      ['twophase', 'rm5', 'holds'],
      ['twophase', 'rm3-commit-early', '{ violates: TCConsistent }'],
    ],
  );
  // A path is written relative to the suite file.
  assert.match(text, /- spec: \.\/\.\.\/.*fixtures\/counter\.ts/);
  assert.equal(run!.code, ExitCode.Holds, run!.out);
  assert.ok(existsSync(join(dir, 'specs.baseline.json')), '--update-baseline writes specs.baseline.json beside the suite');
  assert.equal(again!.code, ExitCode.Usage);
  assert.match(again!.err, /specs\.suite\.yaml already exists/);
});
