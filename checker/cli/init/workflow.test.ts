/**
 * The workflow `kmc init` writes: its shape as GitHub Actions reads it (a matrix of slices, a report job
 * that merges them and publishes JUnit and the Markdown summary), and its commands, run as written in the
 * project `kmc init` made, give the verdict of the whole suite.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

process.env.FORCE_COLOR = '0';
delete process.env.GITHUB_ACTIONS;
delete process.env.GITHUB_STEP_SUMMARY;
const { kmcInProcess: kmc } = await import('../testSupport.ts');
const { WORKFLOW } = await import('./workflow.ts');

interface Step {
  readonly name?: string;
  readonly uses?: string;
  readonly run?: string;
  readonly if?: string;
  readonly with?: Record<string, unknown>;
}
interface Job {
  readonly name?: string;
  readonly needs?: string;
  readonly if?: string;
  readonly strategy?: { readonly 'fail-fast': boolean; readonly matrix: { readonly slice: number[] } };
  readonly steps: Step[];
}

const workflow = parse(WORKFLOW) as { on: Record<string, unknown>; jobs: Record<string, Job> };
const { slice, report } = workflow.jobs as { slice: Job; report: Job };
const runOf = (job: Job, pattern: RegExp) => {
  const steps = job.steps.filter((s) => s.run !== undefined && pattern.test(s.run));
  assert.equal(steps.length, 1, `one step of ${job.name ?? 'the job'} runs ${pattern}`);
  return steps[0]!;
};

test('the workflow: a matrix of slices, and a report job that merges them and publishes JUnit and the summary', () => {
  assert.deepEqual(Object.keys(workflow.jobs), ['slice', 'report']);
  assert.deepEqual(Object.keys(workflow.on), ['pull_request', 'push']);

  assert.deepEqual(slice.strategy, { 'fail-fast': false, matrix: { slice: [1, 2] } });
  assert.deepEqual(
    slice.steps.map((s) => s.uses ?? s.run),
    ['actions/checkout@v4', 'actions/setup-node@v4', 'npm ci', 'npx kmc ci --shard ${{ matrix.slice }}/${{ strategy.job-total }} --out kmc-out', 'actions/upload-artifact@v4'],
  );
  const keep = slice.steps.at(-1)!;
  assert.deepEqual([keep.if, keep.with], ['always()', { name: 'kmc-slice-${{ matrix.slice }}', path: 'kmc-out/' }]);

  // The report runs after every slice, whether they passed or not: it gives the verdict.
  assert.deepEqual([report.needs, report.if], ['slice', 'always()']);
  assert.deepEqual(
    report.steps.map((s) => s.uses ?? s.run),
    [
      'actions/checkout@v4',
      'actions/setup-node@v4',
      'npm ci',
      'actions/download-artifact@v4',
      'npx kmc ci --merge kmc-slices/* --junit kmc-out/junit.xml --markdown kmc-out/summary.md --out kmc-out/counterexamples',
      'mikepenz/action-junit-report@v5',
      'actions/upload-artifact@v4',
    ],
  );
  const download = report.steps[3]!;
  // Each artifact in its own folder under kmc-slices/, which the merge names with a glob.
  assert.deepEqual(download.with, { pattern: 'kmc-slice-*', path: 'kmc-slices' });
  const publish = report.steps[5]!;
  assert.deepEqual([publish.if, publish.with], ['always()', { report_paths: 'kmc-out/junit.xml' }]);
  assert.deepEqual(report.steps[6]!.with, { name: 'kmc-ci', path: 'kmc-out/' });
  for (const job of [slice, report]) assert.deepEqual(job.steps[1]!.with, { 'node-version': 20, cache: 'npm' });
});

test('the workflow’s commands, run as written in a project kmc init made, give the whole suite’s verdict and report', async () => {
  const root = fileURLToPath(new URL('../../..', import.meta.url));
  const dir = join(mkdtempSync(join(tmpdir(), 'kmc-init-')), 'designs');
  assert.equal((await kmc('init', dir)).code, 0);
  // What npm ci would install: this package (its compiled dist/) and the one immutable both share.
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(root, join(dir, 'node_modules/kafka-model-checker'), 'dir');
  symlinkSync(join(root, 'node_modules/immutable'), join(dir, 'node_modules/immutable'), 'dir');

  const argsOf = (run: string, vars: Record<string, string> = {}) => {
    const words = run.replace(/\$\{\{ ([\w.-]+) \}\}/g, (_, v: string) => vars[v] ?? assert.fail(`no value for ${v}`)).split(' ');
    assert.deepEqual(words.slice(0, 2), ['npx', 'kmc']);
    // The shell expands the glob, in name order.
    return words.slice(2).flatMap((w) => (w.endsWith('/*') ? readdirSync(join(dir, w.slice(0, -2))).sort().map((f) => `${w.slice(0, -1)}${f}`) : [w]));
  };
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    const whole = await kmc('ci', '--junit', 'whole/junit.xml', '--markdown', 'whole/summary.md');
    assert.equal(whole.code, 0, whole.stdout + whole.stderr);
    const slices = slice.strategy!.matrix.slice;
    for (const i of slices) {
      const r = await kmc(...argsOf(runOf(slice, /--shard/).run!, { 'matrix.slice': String(i), 'strategy.job-total': String(slices.length) }));
      assert.equal(r.code, 0, r.stdout + r.stderr);
      // upload-artifact, then download-artifact with a pattern: one folder per artifact. Each slice runs
      // on a machine of its own: nothing of this one is left for the next.
      cpSync('kmc-out', join('kmc-slices', `kmc-slice-${i}`), { recursive: true });
      rmSync('kmc-out', { recursive: true });
    }
    const merged = await kmc(...argsOf(runOf(report, /--merge/).run!));
    assert.equal(merged.code, whole.code, merged.stdout + merged.stderr);
    assert.match(merged.stdout, /kmc ci: passed — all 2 checks passed/);
    const comparable = (s: string) => s.replace(/\d+\.\d+ s\b/g, 'T s').replace(/time="[\d.]+"/g, 'time="T"').replace(/\d+ lanes?\b/g, 'L lanes');
    assert.equal(comparable(readFileSync('kmc-out/junit.xml', 'utf8')), comparable(readFileSync('whole/junit.xml', 'utf8')));
    assert.match(readFileSync('kmc-out/junit.xml', 'utf8'), /<testsuites name="kmc ci" tests="2" failures="0" errors="0"/);
    assert.equal(comparable(readFileSync('kmc-out/summary.md', 'utf8')), comparable(readFileSync('whole/summary.md', 'utf8')));
  } finally {
    process.chdir(cwd);
  }
});
