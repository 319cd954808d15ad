/**
 * The README's commands, run as written. Every command of its `sh` blocks is either run here (through
 * kmc's main function, in a scratch folder, in README order so one command's output is the next one's
 * input) or listed in NOT_RUN with the reason; a command in neither fails the test, so nothing is
 * skipped silently. Its YAML blocks are read as kmc and GitHub read them. The README's spec
 * (`my-mutex.ts`) is checked from an installed tarball by test/package/packedInstall.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

process.env.FORCE_COLOR = '0';
delete process.env.GITHUB_ACTIONS;
delete process.env.GITHUB_STEP_SUMMARY;
const { kmcInProcess: kmc } = await import('../../checker/cli/testSupport.ts');
const { loadSuite } = await import('../../checker/ci/loadSuite.ts');
const { WORKFLOW } = await import('../../checker/cli/init/workflow.ts');

const root = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string };
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The README's commands deliberately not run here, and why. */
const NOT_RUN: Readonly<Record<string, string>> = {
  'npm install --save-dev ./kafka-model-checker-0.1.0.tgz immutable': 'test/package/packedInstall.test.ts packs this checkout and installs the tarball into an empty folder the same way (slow tier)',
  'npm install --save-dev immutable git+https://github.com/OWNER/kmc.git': 'a git install clones from the network (OWNER stands for the repository); the same prepare build runs on every npm install of this checkout',
  'npm install': 'installs from the npm registry; the project kmc init wrote gets this checkout linked as its node_modules instead',
  'npm run check': 'the whole default suite; checker/ci/defaultSuite.test.ts runs it (each preset once per npm test)',
  'npm test': 'the command that runs this test',
  'npm run test:slow': 'the slow tier: the test files that have slow tests, with KMC_SLOW=1 (.ci/run runs it after npm test)',
  'npx kmc check replication --preset elr': '44,722 states: searched and pinned by spec/replication/replication.test.ts',
  'npx kmc simulate replication --preset lrs-pre-elr --seed 7 --runs 2000': "2,000 random runs; simulate's seeds, shrinking and exit codes are tested in checker/cli/cli.test.ts",
};

/** What a command run here must do: its exit code and, where the README says what it finds, that. */
const EXPECT: Readonly<Record<string, { code: number; out?: RegExp }>> = {
  'npx kmc --version': { code: 0, out: new RegExp(`^${pkg.version.replace(/\./g, '\\.')}\\n$`) },
  'npx kmc init my-designs': { code: 0, out: /Wrote package\.json, .*\.github\/workflows\/kmc\.yml/ },
  'cd my-designs': { code: 0 },
  'npx kmc check ./specs/mutex.ts --preset racy': { code: 1, out: /Invariant MutualExclusion violated after 4 steps/ },
  'npx kmc ci': { code: 0, out: /kmc ci: passed — all 2 checks passed/ },
  'npx kmc check kraft --preset kraft-16281': { code: 1, out: /Invariant NoIllegalState violated after 4 steps/ },
  'npx kmc check twophase --param rm=5 --json': { code: 0, out: /"status":"holds".*"distinct":8832/ },
  'npx kmc check kraft --preset kraft-16281 --out out/': { code: 1, out: /NoIllegalState/ },
  'npx kmc replay kraft out/kraft-kraft-16281-NoIllegalState.itf.json --param fourthCondition=notProspective': { code: 0, out: /No longer fits at step 4/ },
  'npx kmc render out/kraft-kraft-16281-NoIllegalState.itf.json --format html --out report.html': { code: 0 },
  'npx kmc check lifecycle --preset ce8-gc-zombie': { code: 1, out: /after 5 steps/ },
};

interface Block {
  readonly lang: string;
  readonly text: string;
  readonly line: number;
}

function blocks(): Block[] {
  const found: Block[] = [];
  const re = /^```(\w*)\n([\s\S]*?)^```$/gm;
  for (let m = re.exec(readme); m; m = re.exec(readme)) found.push({ lang: m[1]!, text: m[2]!, line: readme.slice(0, m.index).split('\n').length });
  return found;
}

/** The commands of each `sh` block, in order: one per line, `&&` chains split, comments dropped. */
function commandBlocks(): string[][] {
  return blocks()
    .filter((b) => b.lang === 'sh')
    .map((b) =>
      b.text
        .split('\n')
        .map((l) => l.replace(/\s+#.*$/, '').trim())
        .filter((l) => l.length > 0 && !l.startsWith('#'))
        .flatMap((l) => l.split(' && ').map((c) => c.trim())),
    );
}

const commands = () => commandBlocks().flat();

test('every command of the README is run here or listed, with the reason, as not run', (t) => {
  const listed = commands();
  const unknown = listed.filter((c) => !(c in NOT_RUN) && !(c in EXPECT));
  assert.deepEqual(unknown, [], 'a new command in the README: run it in this test (EXPECT) or say in NOT_RUN why not');
  // Nothing listed here that the README no longer says.
  assert.deepEqual([...Object.keys(NOT_RUN), ...Object.keys(EXPECT)].filter((c) => !listed.includes(c)), []);
  for (const [command, why] of Object.entries(NOT_RUN)) t.diagnostic(`not run: ${command} — ${why}`);
});

test("the README's commands, run as written, do what it says", async () => {
  const cwd = process.cwd();
  try {
    // Each block on its own, in a fresh folder: the blocks are alternatives (two of them start with kmc init).
    for (const block of commandBlocks()) {
      const scratch = mkdtempSync(join(tmpdir(), 'kmc-readme-'));
      // This test process loads TypeScript by `--import tsx`, which a worker thread started by a check
      // resolves again from the current folder: tsx is found from here as from this checkout.
      mkdirSync(join(scratch, 'node_modules'));
      symlinkSync(join(root, 'node_modules/tsx'), join(scratch, 'node_modules/tsx'), 'dir');
      process.chdir(scratch);
      for (const command of block) {
        if (command in NOT_RUN) continue;
        const expected = EXPECT[command]!;
        if (command.startsWith('cd ')) {
          process.chdir(command.slice(3));
          continue;
        }
        const words = command.split(' ');
        assert.deepEqual(words.slice(0, 2), ['npx', 'kmc'], command);
        const r = await kmc(...words.slice(2));
        assert.equal(r.code, expected.code, `${command}\n${r.stdout}${r.stderr}`);
        if (expected.out) assert.match(r.stdout, expected.out, command);
        if (command.startsWith('npx kmc init ')) {
          // What `npm install` would put there: this checkout (its dist/) and the immutable both share.
          const project = join(scratch, words[3]!);
          mkdirSync(join(project, 'node_modules'));
          symlinkSync(root, join(project, 'node_modules', pkg.name), 'dir');
          symlinkSync(join(root, 'node_modules/immutable'), join(project, 'node_modules/immutable'), 'dir');
        }
        if (command.includes('--out report.html')) assert.match(readFileSync('report.html', 'utf8'), /^<!doctype html>/i);
      }
    }
  } finally {
    process.chdir(cwd);
  }
});

test("the README's allowScripts fragment is JSON naming esbuild (not run) and this package (reviewed)", () => {
  const json = blocks().filter((b) => b.lang === 'json');
  assert.equal(json.length, 1);
  assert.deepEqual(JSON.parse(`{${json[0]!.text}}`), { allowScripts: { esbuild: false, [pkg.name]: true } });
});

test("the README's suite example is a valid suite, and its workflow is the one kmc init writes", async () => {
  const yaml = blocks().filter((b) => b.lang === 'yaml');
  assert.equal(yaml.length, 2, 'a suite and a workflow');
  const [suite, workflow] = yaml;
  const dir = mkdtempSync(join(tmpdir(), 'kmc-readme-suite-'));
  mkdirSync(join(dir, 'specs'));
  // The suite names ./specs/myProtocol.ts, a spec of the reader's with the parameters nodes and bug.
  const standIn = [
    "import { Record } from 'immutable';",
    `import { defineSpec } from '${root}spec/spec.ts';`,
    'const S = Record({ n: 0 });',
    'export default defineSpec({',
    "  name: 'my-protocol', description: 'stands in for the reader\\'s spec',",
    "  params: [{ name: 'nodes', description: 'nodes', type: 'int', default: 3, min: 1, max: 9 }, { name: 'bug', description: 'a bug', type: 'enum', default: 'none', choices: ['none'] }],",
    '  presets: [],',
    '  build: () => ({ init: () => [S()], actions: [], properties: [] }),',
    '});',
  ].join('\n');
  writeFileSync(join(dir, 'specs/myProtocol.ts'), standIn);
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  writeFileSync(join(dir, 'kmc.suite.yaml'), suite!.text);
  const loaded = await loadSuite(join(dir, 'kmc.suite.yaml'));
  assert.deepEqual(
    loaded.checks.map((c) => [c.name, c.bounded, c.skip ?? null]),
    [
      ['twophase/rm3', false, null],
      ['twophase/rm3-commit-early', false, null],
      ['my-protocol/3-nodes', false, null],
      ['kraft/kraft-bench', true, null],
      ['replication/replication-bench', false, 'runs nightly instead'],
    ],
  );
  // The README's workflow is kmc init's, with the step names and comments left out.
  const shape = (text: string) => {
    const w = parse(text) as { jobs: Record<string, { steps: { uses?: string; run?: string; with?: unknown; if?: string }[] } & Record<string, unknown>> };
    return Object.fromEntries(Object.entries(w.jobs).map(([name, { steps, ...job }]) => [name, { ...job, name: undefined, steps: steps.map((s) => ({ uses: s.uses, run: s.run, with: s.with, if: s.if })) }]));
  };
  assert.deepEqual(shape(workflow!.text), shape(WORKFLOW));
});
