/**
 * `kmc ci --merge`: slices of a sharded run, merged, report what the whole suite run at once reports
 * (JUnit, Markdown, the terminal summary, the exit code), and incomplete or mixed slices are refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

process.env.FORCE_COLOR = '0';
delete process.env.GITHUB_ACTIONS;
delete process.env.GITHUB_STEP_SUMMARY;
const { kmcInProcess: kmc } = await import('../cli/testSupport.ts');
const { ExitCode } = await import('../run/exitCodes.ts');
const { COUNTER, tempDir, withoutTimes, writeSuite } = await import('./testSupport.ts');

const SUITE = `version: 1
checks:
  - { spec: diehard, expect: { violates: NotSolved } }
  - { spec: twophase, preset: rm3, expect: holds }
  - { spec: twophase, preset: rm3-commit-early, expect: { violates: TCConsistent } }
  - { spec: ${COUNTER}, preset: c3, expect: holds }
  - { spec: twophase, preset: rm3, name: twophase-again, expect: holds }
`;

/** A report with its timings and lane count blanked: a merged run took other times on other lanes. */
const comparable = (s: string) => withoutTimes(s).replace(/\d+ lanes?\b/g, 'L lanes');
const read = (path: string) => readFileSync(path, 'utf8');
const testCount = (junit: string) => Number(/<testsuites [^>]*tests="(\d+)"/.exec(junit)?.[1]);

/**
 * A suite with a recorded baseline, then the baseline edited: counter/c3 recorded with 64 states (it has
 * 32, drift) and an entry for a check no longer in the suite (stale).
 */
function suiteWithDrift(): { dir: string; suite: string } {
  const dir = tempDir();
  const suite = writeSuite(SUITE, dir);
  const baseline = {
    version: 1,
    checks: {
      'counter/c3': { spec: 'counter', preset: 'c3', params: { max: 3 }, verdict: 'holds', distinct: 64, depth: 8, counterexampleLength: null },
      'gone/check': { spec: 'twophase', params: {}, verdict: 'holds', distinct: 1, depth: 0, counterexampleLength: null },
    },
  };
  writeFileSync(join(dir, 'kmc.baseline.json'), `${JSON.stringify(baseline, null, 2)}\n`);
  return { dir, suite };
}

async function reports(dir: string, name: string, ...args: string[]) {
  const r = await kmc('ci', ...args, '--jobs', '1', '--quiet', '--junit', join(dir, name, 'junit.xml'), '--markdown', join(dir, name, 'summary.md'));
  return { ...r, junit: read(join(dir, name, 'junit.xml')), markdown: read(join(dir, name, 'summary.md')) };
}

test('slices 1/2 and 2/2 merged report what the whole suite reports: JUnit, Markdown, summary, drift and exit code', async () => {
  const { dir, suite } = suiteWithDrift();
  const whole = await reports(dir, 'whole', suite);
  assert.equal(whole.code, ExitCode.Violation, whole.stdout + whole.stderr);
  assert.equal(testCount(whole.junit), 5);
  assert.match(whole.stdout, /counter\/c3: distinct states 64 → 32 \(−50\.0%\)/);
  assert.match(whole.stdout, /The baseline has entries for checks no longer in the suite: gone\/check\./);

  const first = await reports(dir, 'shard-1', suite, '--shard', '1/2', '--out', join(dir, 'shard-1'));
  const second = await reports(dir, 'shard-2', suite, '--shard', '2/2', '--out', join(dir, 'shard-2'));
  assert.deepEqual([testCount(first.junit), testCount(second.junit)], [3, 2]);
  // Slice 2 holds the drifting check (the 4th); slice 1 alone passes.
  assert.deepEqual([first.code, second.code], [ExitCode.Holds, ExitCode.Violation]);
  assert.doesNotMatch(first.stdout + second.stdout, /no longer in the suite/, 'a slice does not call the other slices’ checks stale');

  const merged = await reports(dir, 'merged', '--merge', join(dir, 'shard-1'), join(dir, 'shard-2'));
  assert.equal(merged.code, whole.code, merged.stderr);
  assert.equal(merged.stderr, '');
  assert.equal(testCount(merged.junit), testCount(whole.junit));
  assert.equal(comparable(merged.junit), comparable(whole.junit));
  assert.equal(comparable(merged.markdown), comparable(whole.markdown));
  assert.equal(comparable(merged.stdout), comparable(whole.stdout));
  assert.match(comparable(merged.stdout), /kmc ci: FAILED — 5 of 5 checks passed; 1 drifted from the baseline \(T s, L lanes\)/);

  // Order of the folders does not matter; --allow-drift applies to the merge as to a run.
  const allowed = await reports(dir, 'allowed', '--merge', join(dir, 'shard-2'), join(dir, 'shard-1'), '--allow-drift');
  assert.equal(allowed.code, ExitCode.Holds);
  assert.equal(comparable(allowed.junit).replace(/<failure[^]*?<\/failure>\n/g, ''), comparable(allowed.junit));
  assert.match(allowed.markdown, /### State-space drift from the baseline \(reported, not failing\)/);
});

test('a merged run with a differing verdict exits 1 and carries the counterexample, as the whole run does', async () => {
  const dir = tempDir();
  const suite = writeSuite(SUITE.replace('preset: rm3-commit-early, expect: { violates: TCConsistent }', 'preset: rm3-commit-early, expect: holds'), dir);
  const whole = await reports(dir, 'whole', suite, '--out', join(dir, 'whole'));
  const shards = [];
  for (const i of [1, 2, 3]) shards.push(await reports(dir, `s${i}`, suite, '--shard', `${i}/3`, '--out', join(dir, `s${i}`)));
  assert.deepEqual(
    shards.map((s) => s.code),
    [ExitCode.Holds, ExitCode.Holds, ExitCode.Violation],
  );
  const merged = await reports(dir, 'merged', '--merge', join(dir, 's1'), join(dir, 's2'), join(dir, 's3'), '--out', join(dir, 'merged'));
  assert.equal(whole.code, ExitCode.Violation);
  assert.equal(merged.code, whole.code);
  assert.equal(comparable(merged.junit), comparable(whole.junit));
  assert.match(merged.junit, /<failure message="twophase\/rm3-commit-early: expected holds, got violates TCConsistent/);
  assert.equal(comparable(merged.markdown), comparable(whole.markdown));
  // The counterexample is found beside the slice's record, and written again into the merged --out folder.
  assert.match(merged.stdout, /counterexample: .*merged\/twophase_rm3-commit-early\.itf\.json/);
  assert.equal(read(join(dir, 'merged/twophase_rm3-commit-early.itf.json')), read(join(dir, 's3/twophase_rm3-commit-early.itf.json')));
  assert.ok(existsSync(join(dir, 'merged/kmc-ci.json')), 'the merged record is written to --out');
});

test('--merge refuses a missing slice, a slice given twice, slices of different runs and folders without a result', async () => {
  const { dir, suite } = suiteWithDrift();
  for (const i of [1, 2]) assert.notEqual((await kmc('ci', suite, '--jobs', '1', '--quiet', '--shard', `${i}/2`, '--out', join(dir, `s${i}`))).code, ExitCode.Usage);
  await kmc('ci', suite, '--jobs', '1', '--quiet', '--shard', '1/3', '--out', join(dir, 'other'));
  await kmc('ci', suite, '--jobs', '1', '--quiet', '--out', join(dir, 'unsharded'));

  const cases: [string[], RegExp][] = [
    [[join(dir, 's1')], /Slice 2\/2 is missing: the merged report would leave its checks out\. Give the output folder of every slice \(1 of 2 given\)\./],
    [[join(dir, 's1'), join(dir, 's1'), join(dir, 's2')], /Slice 1\/2 is given twice/],
    [[join(dir, 's1'), join(dir, 'other')], /other is slice 1\/3 of 5 checks of .*kmc\.suite\.yaml, but .*s1 is slice 1\/2 of 5 checks .*merge only the slices of one run/],
    [[join(dir, 's1'), join(dir, 'unsharded')], /unsharded is not a slice of a sharded run/],
    [[join(dir, 's1'), dir], /holds no kmc-ci\.json: give each slice an output folder \(kmc ci --shard I\/N --out DIR\)/],
    [[join(dir, 'nowhere')], /nowhere does not exist/],
  ];
  for (const [dirs, message] of cases) {
    const r = await kmc('ci', '--merge', ...dirs);
    assert.equal(r.code, ExitCode.Usage, `${dirs.join(' ')}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, message);
    assert.equal(r.stdout, '');
  }
  const withSuite = await kmc('ci', suite, '--merge', join(dir, 's1'), join(dir, 's2'));
  assert.equal(withSuite.code, ExitCode.Usage);
  assert.match(withSuite.stderr, /--merge combines finished slices and runs nothing; it does not take a suite/);
});

test('a design diff runs in exactly one slice and is merged back', async () => {
  const dir = tempDir();
  const suite = writeSuite(
    `${SUITE}diffs:\n  - name: commit-early\n    spec: twophase\n    a: { preset: rm3-commit-early }\n    b: { preset: rm3 }\n    expect: { fixes: [TCConsistent] }\n`,
    dir,
  );
  const whole = await kmc('ci', suite, '--jobs', '1', '--quiet');
  const s1 = await kmc('ci', suite, '--jobs', '1', '--quiet', '--shard', '1/2', '--out', join(dir, 's1'));
  const s2 = await kmc('ci', suite, '--jobs', '1', '--quiet', '--shard', '2/2', '--out', join(dir, 's2'));
  const line = /^ok +commit-early: /m;
  // Five checks, then the diff: item 6 goes to slice 2.
  assert.deepEqual([line.test(whole.stdout), line.test(s1.stdout), line.test(s2.stdout)], [true, false, true]);
  const merged = await kmc('ci', '--merge', join(dir, 's1'), join(dir, 's2'));
  assert.equal(merged.code, whole.code);
  assert.equal(comparable(merged.stdout), comparable(whole.stdout));
});

test("one slice's --allow-drift does not excuse another slice's drift: the merged run fails as that slice did", async () => {
  const { dir, suite } = suiteWithDrift();
  // counter/c3, the check that drifted, is the fourth: slice 2 runs it, without --allow-drift.
  const s1 = await kmc('ci', suite, '--jobs', '1', '--quiet', '--shard', '1/2', '--allow-drift', '--out', join(dir, 's1'));
  const s2 = await kmc('ci', suite, '--jobs', '1', '--quiet', '--shard', '2/2', '--out', join(dir, 's2'));
  assert.deepEqual([s1.code, s2.code], [ExitCode.Holds, ExitCode.Violation]);
  const merged = await kmc('ci', '--merge', join(dir, 's1'), join(dir, 's2'));
  assert.equal(merged.code, ExitCode.Violation, merged.stdout);
  assert.match(merged.stdout, /kmc ci: FAILED — 5 of 5 checks passed; 1 drifted from the baseline \(/);
  // The merge's own --allow-drift excuses it.
  assert.equal((await kmc('ci', '--merge', join(dir, 's1'), join(dir, 's2'), '--allow-drift')).code, ExitCode.Holds);
});
