/**
 * Bad input, as a new user gives it: over a hundred mistakes run through the installed command (the
 * compiled bin, in a child process each). Each must end with its class's exit code (2 a usage or
 * configuration mistake, 3 the spec's own code, 4 a limit) and one clear first line, never a stack trace
 * or an internal error. The test prints the table it checked: case, exit code, first line.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'dist/checker/cli/bin.mjs');
const fixture = (f: string) => join(root, 'test/fixtures', f);
const { KMC_HEAP_SET: _, KMC_LAUNCHER_PID: __, ...parentEnv } = process.env;
const env = { ...parentEnv, NO_COLOR: '1', FORCE_COLOR: '0' };

interface Case {
  readonly name: string;
  readonly args: readonly string[];
  readonly code: number;
  /** What the first line of output (standard error first, for errors) must say. */
  readonly first: RegExp;
  /** What the whole output must also say, when the first line only introduces it. */
  readonly detail?: RegExp;
}

function run(args: readonly string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [bin, ...args], { cwd, env });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function firstLine(text: string): string {
  return text.split('\n').find((l) => l.trim() !== '') ?? '';
}

test('over a hundred bad inputs: each its exit code and one clear first line, no stack trace (slow; set KMC_SLOW=1)', { skip: !process.env.KMC_SLOW, timeout: 600_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kmc-bad-input-'));
  try {
    const file = join(dir, 'a-file.txt');
    writeFileSync(file, 'not a folder');
    writeFileSync(join(dir, 'empty.ts'), '');
    writeFileSync(join(dir, 'syntax.ts'), 'export default {{{');
    // defineSpec's object without its presets, and one whose build is not a function.
    writeFileSync(join(dir, 'nopresets.ts'), "export default { name: 'np', description: 'no presets', params: [], build: () => ({ init: () => [0], actions: [], properties: [] }) };");
    writeFileSync(join(dir, 'badbuild.ts'), "export const spec = { name: 'bb', description: 'a build that is not one', params: [], presets: [], build: 'soon' };");
    writeFileSync(join(dir, 'notjson.itf.json'), '{"states": [');
    writeFileSync(join(dir, 'notitf.itf.json'), '{"hello": 1}');
    writeFileSync(join(dir, 'suite-bad-yaml.yaml'), 'version: 1\nchecks: [\n');
    writeFileSync(join(dir, 'suite-unknown-field.yaml'), 'version: 1\nchecks:\n  - spec: twophase\n    presett: rm3\n    expect: holds\n');
    writeFileSync(join(dir, 'suite-bad-expect.yaml'), 'version: 1\nchecks:\n  - spec: twophase\n    preset: rm3\n    expect: maybe\n');
    writeFileSync(join(dir, 'suite-unknown-spec.yaml'), 'version: 1\nchecks:\n  - spec: kafak\n    expect: holds\n');
    writeFileSync(join(dir, 'suite-unknown-preset.yaml'), 'version: 1\nchecks:\n  - spec: twophase\n    preset: rm4\n    expect: holds\n');
    writeFileSync(join(dir, 'suite-no-version.yaml'), 'checks:\n  - spec: twophase\n    expect: holds\n');
    writeFileSync(join(dir, 'suite-empty.yaml'), '');
    writeFileSync(join(dir, 'suite-bad-budget.yaml'), 'version: 1\nchecks:\n  - spec: twophase\n    expect: holds\n    budget: { timeSeconds: -1 }\n');
    writeFileSync(join(dir, 'suite-bad-param.yaml'), 'version: 1\nchecks:\n  - spec: twophase\n    params: { rm: 99 }\n    expect: holds\n');
    // A checkpoint of rm=5 by two owners (as worker threads write it), then copies of it damaged.
    const saved = join(dir, 'cp');
    const made = await run(['check', 'twophase', '--param', 'rm=5', '--owners', '2', '--checkpoint', saved, '--checkpoint-every', '0.00001', '--max-states', '3000', '--quiet'], dir);
    assert.equal(made.code, 4, made.stderr);
    const damaged = join(dir, 'cp-cut');
    cpSync(saved, damaged, { recursive: true });
    truncateSync(join(damaged, 'owner-0.bin'), 64);
    const emptyDir = join(dir, 'empty-dir');
    mkdirSync(emptyDir);
    const trace = join(dir, 'out');
    const violated = await run(['check', 'twophase', '--preset', 'rm3-commit-early', '--out', trace, '--quiet'], dir);
    assert.equal(violated.code, 1, violated.stderr);
    const itf = join(trace, 'twophase-rm3-commit-early-TCConsistent.itf.json');

    const usage = (name: string, args: readonly string[], first: RegExp): Case => ({ name, args, code: 2, first });
    const suiteProblem = (suite: string) => new RegExp(`^error: The suite .*${suite}\\.yaml has a problem:$`);
    const cases: Case[] = [
      // Commands
      usage('no command', [], /^error: Name a command: list, check, .* or init \(kmc --help lists them\)\.$/),
      usage('unknown command', ['frobnicate'], /^error: Unknown command 'frobnicate'\. The commands are /),
      usage('command typo', ['chek', 'twophase'], /^error: Unknown command 'chek' \(did you mean 'check'\?\)/),
      usage('check without a spec', ['check'], /^error: Not enough non-option arguments/),
      usage('unknown option', ['check', 'twophase', '--frobnicate'], /^error: Unknown option --frobnicate/),
      usage('option typo', ['check', 'twophase', '--presett', 'rm3'], /^error: Unknown option --presett \(did you mean --preset\?\)/),
      usage('replay without a trace', ['replay', 'twophase'], /^error: Not enough non-option arguments/),
      usage('render without a trace', ['render'], /^error: Not enough non-option arguments/),
      usage('diff without a spec', ['diff'], /^error: Not enough non-option arguments/),
      usage('simulate without a spec', ['simulate'], /^error: Not enough non-option arguments/),
      // Specs
      usage('unknown bundled spec', ['check', 'kafak'], /^error: Unknown spec 'kafak'\. The bundled specs are twophase, diehard, kraft, replication or lifecycle/),
      usage('spec path missing', ['check', './nowhere.ts'], /^error: No spec file at \.\/nowhere\.ts/),
      usage('spec is a folder', ['check', emptyDir], /^error: Could not load the spec module /),
      usage('empty spec file', ['check', join(dir, 'empty.ts')], /^error: .*empty\.ts does not export a spec/),
      usage('spec with a syntax error', ['check', join(dir, 'syntax.ts')], /^error: Could not load the spec module .*syntax\.ts/),
      usage('spec importing what is not there', ['check', fixture('brokenImport.ts')], /^error: Could not load the spec module /),
      usage('module that is not a spec', ['check', fixture('notASpec.ts')], /^error: .*notASpec\.ts does not export a spec/),
      usage('a spec without presets', ['check', join(dir, 'nopresets.ts')], /^error: .*nopresets\.ts does not export a spec\. Its default export is not one: it has no `presets` \(an array of presets, \[\] for none\)\. /),
      usage('a spec whose build is not a function', ['check', join(dir, 'badbuild.ts')], /^error: .*badbuild\.ts does not export a spec\. Its spec export is not one: its `build` is not a function from parameters to the model\. /),
      usage('a text file as a spec', ['check', file], /^error: Could not load the spec module /),
      usage('a spec with no initial state', ['check', fixture('noInitSpec.ts')], /^error: /),
      // Presets and parameters
      usage('unknown preset', ['check', 'twophase', '--preset', 'rm4'], /^error: Unknown preset 'rm4' for spec twophase\. Its presets are rm3, rm5 or rm3-commit-early/),
      usage('preset typo', ['check', 'kraft', '--preset', 'kraft-16821'], /^error: Unknown preset 'kraft-16821' for spec kraft/),
      usage('unknown parameter', ['check', 'twophase', '--param', 'brokers=3'], /^error: Unknown parameter 'brokers' for spec twophase/),
      usage('parameter typo', ['check', 'kraft', '--param', 'voter=4'], /^error: Unknown parameter 'voter' for spec kraft/),
      usage('int parameter above its range', ['check', 'twophase', '--param', 'rm=11'], /^error: Parameter rm of twophase must be a whole number from 1 to 10 \(number of resource managers\); got '(11|0)'\.$/),
      usage('int parameter below its range', ['check', 'twophase', '--param', 'rm=0'], /^error: Parameter rm of twophase must be a whole number from 1 to 10 \(number of resource managers\); got '(11|0)'\.$/),
      usage('int parameter not a number', ['check', 'twophase', '--param', 'rm=three'], /^error: Parameter rm of twophase must be a whole number from 1 to 10 \(number of resource managers\); got '[^']*'\.$/),
      usage('int parameter a fraction', ['check', 'twophase', '--param', 'rm=2.5'], /^error: Parameter rm of twophase must be a whole number from 1 to 10 \(number of resource managers\); got '[^']*'\.$/),
      usage('enum parameter not a choice', ['check', 'twophase', '--param', 'bug=maybe'], /^error: Parameter bug of twophase must be one of none or tmCommitEarly \(.*\); got 'maybe'\.$/),
      usage('bool parameter not a bool', ['check', 'kraft', '--param', 'nudge=perhaps'], /^error: Parameter nudge of kraft must be true or false \(.*\); got 'perhaps'\.$/),
      usage('parameter without =', ['check', 'twophase', '--param', 'rm'], /^error: --param takes NAME=VALUE, got 'rm'/),
      usage('parameter with an empty value', ['check', 'twophase', '--param', 'rm='], /^error: Parameter rm of twophase must be a whole number from 1 to 10 \(number of resource managers\); got '[^']*'\.$/),
      usage('parameter with an empty name', ['check', 'twophase', '--param', '=3'], /^error: /),
      usage('kraft voters out of range', ['check', 'kraft', '--param', 'voters=9'], /^error: Parameter voters of kraft must be a whole number from 3 to 5 \(number of voters r1\.\.rN\); got '9'\.$/),
      usage('replication unknown strategy', ['check', 'replication', '--param', 'strategy=Reckless'], /^error: Parameter strategy of replication must be one of None, Balanced or Aggressive \(.*\); got 'Reckless'\.$/),
      usage('lifecycle unknown init', ['check', 'lifecycle', '--param', 'init=warm'], /^error: Parameter init of lifecycle must be one of fresh or running \(.*\); got 'warm'\.$/),
      // Numeric options
      usage('--max-states 0', ['check', 'twophase', '--max-states', '0'], /^error: --max-states takes a whole number of at least 1; got '0'/),
      usage('--max-states negative', ['check', 'twophase', '--max-states', '-5'], /^error: --max-states takes a whole number of at least 1/),
      usage('--max-states a word', ['check', 'twophase', '--max-states', 'lots'], /^error: --max-states takes a whole number of at least 1; got 'lots'/),
      usage('--max-states a fraction', ['check', 'twophase', '--max-states', '1.5'], /^error: --max-states takes a whole number of at least 1; got '1\.5'/),
      usage('--max-depth 0', ['check', 'twophase', '--max-depth', '0'], /^error: --max-depth takes a whole number of at least 1/),
      usage('--time-limit 0', ['check', 'twophase', '--time-limit', '0'], /^error: --time-limit takes a positive number; got '-?\d+'\.$/),
      usage('--time-limit negative', ['check', 'twophase', '--time-limit', '-3'], /^error: --time-limit takes a positive number; got '-?\d+'\.$/),
      usage('--time-limit a word', ['check', 'twophase', '--time-limit', 'soon'], /^error: --time-limit takes a positive number; got 'soon'\.$/),
      usage('--workers 0', ['check', 'twophase', '--workers', '0'], /^error: --workers takes a whole number of at least 1/),
      usage('--workers above the cores', ['check', 'twophase', '--workers', '999'], /^error: --workers 999 is more than the \d+ cores of this machine; more threads than cores only slow a search down\. Use --workers \d+ or fewer\.$/),
      usage('--workers a word', ['check', 'twophase', '--workers', 'many'], /^error: --workers takes a whole number of at least 1/),
      usage('--owners past the most', ['check', 'twophase', '--owners', '5000000000'], /^error: --owners takes at most 1024 owners \(each holds a part of the seen states, and on a cluster is a consumer on the NATS server\); got 5000000000\.$/),
      usage('--checkpoint-every 0', ['check', 'twophase', '--checkpoint-every', '0'], /^error: --checkpoint-every takes a positive number; got '0'\.$/),
      usage('--memory-budget 0', ['check', 'twophase', '--memory-budget', '0'], /^error: --memory-budget 0 is below what a search needs to start/),
      usage('--memory-budget 1K', ['check', 'twophase', '--memory-budget', '1K'], /^error: --memory-budget 1K is below what a search needs to start/),
      usage('--memory-budget a unit kmc does not know', ['check', 'twophase', '--memory-budget', '10Q'], /^error: --memory-budget takes a size such as 512M, 8G or a number of bytes; got '10Q'/),
      usage('--memory-budget negative', ['check', 'twophase', '--memory-budget', '-5'], /^error: --memory-budget takes a size such as 512M/),
      usage('--strategy unknown', ['check', 'twophase', '--strategy', 'random'], /^error: Invalid values:/),
      usage('simulate --runs 0', ['simulate', 'twophase', '--runs', '0'], /^error: --runs takes a whole number of at least 1/),
      usage('simulate --max-depth 0', ['simulate', 'twophase', '--max-depth', '0'], /^error: --max-depth takes a whole number of at least 1/),
      usage('simulate --seed a word', ['simulate', 'twophase', '--seed', 'banana'], /^error: --seed takes a whole number/),
      usage('simulate --workers 0', ['simulate', 'twophase', '--workers', '0'], /^error: --workers takes a whole number of at least 1/),
      usage('layout suggest --max-states 0', ['layout', 'suggest', './spec/examples/mutex.ts', '--max-states', '0'], /^error: --max-states takes a whole number of at least 1/),
      // Paths
      usage('--out is a file', ['check', 'twophase', '--out', file], /^error: --out .*a-file\.txt is an existing file; --out names a folder/),
      usage('--out under /proc', ['check', 'twophase', '--out', '/proc'], /^error: --out \/proc: the kernel's proc filesystem holds no files of ours/),
      usage('--out under a file', ['check', 'twophase', '--out', join(file, 'sub')], /^error: --out .*: .*a-file\.txt is a file, not a folder/),
      usage('--checkpoint under /proc', ['check', 'twophase', '--checkpoint', '/proc/x'], /^error: --checkpoint \/proc\/x: the kernel's proc filesystem holds no files of ours/),
      usage('--checkpoint is a file', ['check', 'twophase', '--checkpoint', file], /^error: --checkpoint .* is an existing file/),
      usage('--spill-dir under /proc', ['check', 'twophase', '--memory-budget', '1G', '--spill-dir', '/proc/x'], /^error: --spill-dir \/proc\/x: the kernel's proc filesystem/),
      usage('--spill-dir under /sys', ['check', 'twophase', '--memory-budget', '1G', '--spill-dir', '/sys/kmc'], /^error: --spill-dir \/sys\/kmc: the kernel's sys filesystem/),
      usage('--resume from a missing folder', ['check', 'twophase', '--resume', join(dir, 'nowhere')], /^error: .*holds no checkpoint/),
      usage('--resume from an empty folder', ['check', 'twophase', '--resume', emptyDir], /^error: .*holds no checkpoint/),
      usage('--resume with other parameters', ['check', 'twophase', '--param', 'rm=4', '--resume', saved], /^error: .*belongs to another run: its parameters are/),
      usage('--resume from a cut checkpoint', ['check', 'twophase', '--param', 'rm=5', '--resume', damaged], /^error: .*is damaged: owner-0\.bin has 64 bytes, its manifest says/),
      usage('--checkpoint over another run', ['check', 'twophase', '--param', 'rm=3', '--checkpoint', saved], /^error: .*holds the checkpoint of another run/),
      usage('--checkpoint over this run', ['check', 'twophase', '--param', 'rm=5', '--checkpoint', saved], /^error: .*holds a checkpoint of this very run already: continue it with --resume/),
      usage('--checkpoint with an Immutable.js spec', ['check', './spec/examples/mutex.ts', '--checkpoint', join(dir, 'cp-mutex')], /^error: .*checkpoints need a spec that declares its state layout/),
      usage('--checkpoint with dfs', ['check', 'twophase', '--strategy', 'dfs', '--checkpoint', join(dir, 'cp-dfs')], /^error: .*checkpoints are written by the breadth-first search/),
      // Traces
      usage('replay a missing trace', ['replay', 'twophase', join(dir, 'missing.itf.json')], /^error: Cannot read the trace .*missing\.itf\.json: there is no such file/),
      usage('replay a file that is not JSON', ['replay', 'twophase', join(dir, 'notjson.itf.json')], /^error: .*notjson\.itf\.json is not a trace kmc can (render|replay): it is not valid JSON/),
      usage('replay JSON that is not ITF', ['replay', 'twophase', join(dir, 'notitf.itf.json')], /^error: .*notitf\.itf\.json is not/),
      usage('replay on an unknown spec', ['replay', 'kafak', itf], /^error: Unknown spec 'kafak'/),
      usage('render a missing trace', ['render', join(dir, 'missing.itf.json')], /^error: Cannot read the trace .*: there is no such file/),
      usage('render an unknown format', ['render', itf, '--format', 'png'], /^error: Unknown format 'png'\. kmc render draws text, dot, svg, sequence, mermaid, html, graphml or gexf/),
      usage('render bad labels', ['render', itf, '--labels', 'some'], /^error: --labels must be auto, full or changes/),
      usage('render a negative neighbourhood', ['render', itf, '--format', 'dot', '--neighbourhood', '-1'], /^error: --neighbourhood takes a whole number/),
      usage('render neighbourhood and reachable', ['render', itf, '--format', 'dot', '--neighbourhood', '1', '--reachable'], /^error: Give either --neighbourhood K \(the trace and its surroundings\) or --reachable \(the whole state graph\), not both\.$/),
      usage('render --out under /proc', ['render', itf, '--out', '/proc/x/trace.html'], /^error: --out /),
      usage('render --out is a folder', ['render', itf, '--out', emptyDir], /^error: --out .* is a folder; give a file name/),
      usage('render --reachable of a spec that is not bundled', ['render', itf, '--format', 'dot', '--reachable', '--spec', 'kafak'], /^error: --reachable re-runs the spec kafak/),
      // Suites
      usage('ci with a missing suite', ['ci', join(dir, 'nowhere.yaml')], /^error: /),
      usage('ci suite that is not YAML', ['ci', join(dir, 'suite-bad-yaml.yaml')], /^error: /),
      { ...usage('ci suite with an unknown field', ['ci', join(dir, 'suite-unknown-field.yaml')], suiteProblem('suite-unknown-field')), detail: /unknown field 'presett' \(did you mean 'preset'\?\)/ },
      { ...usage('ci suite with a bad expectation', ['ci', join(dir, 'suite-bad-expect.yaml')], suiteProblem('suite-bad-expect')), detail: /expect/ },
      { ...usage('ci suite with an unknown spec', ['ci', join(dir, 'suite-unknown-spec.yaml')], suiteProblem('suite-unknown-spec')), detail: /checks\[0\]\.spec: unknown spec 'kafak': the bundled specs are twophase/ },
      { ...usage('ci suite with an unknown preset', ['ci', join(dir, 'suite-unknown-preset.yaml')], suiteProblem('suite-unknown-preset')), detail: /checks\[0\]\.preset: spec twophase has no preset 'rm4'; its presets are rm3, rm5 or rm3-commit-early/ },
      { ...usage('ci suite without a version', ['ci', join(dir, 'suite-no-version.yaml')], /^error: /), detail: /version/ },
      usage('ci empty suite', ['ci', join(dir, 'suite-empty.yaml')], /^error: /),
      { ...usage('ci suite with a negative budget', ['ci', join(dir, 'suite-bad-budget.yaml')], suiteProblem('suite-bad-budget')), detail: /timeSeconds/ },
      { ...usage('ci suite with a parameter out of range', ['ci', join(dir, 'suite-bad-param.yaml')], suiteProblem('suite-bad-param')), detail: /rm of twophase must be a whole number from 1 to 10/ },
      usage('ci --shard malformed', ['ci', '--shard', 'two'], /^error: --shard /),
      usage('ci --shard past the count', ['ci', '--shard', '5/4'], /^error: --shard /),
      usage('ci --merge of nothing', ['ci', '--merge', join(dir, 'no-slices', '*')], /^error: /),
      usage('ci --jobs 0', ['ci', '--jobs', '0'], /^error: --jobs /),
      { ...usage('ci --jobs with --cluster', ['ci', '--jobs', '4', '--cluster', 'nats://127.0.0.1:1'], /^error: --jobs sets how many checks run at once on this machine/), detail: /Drop --jobs or --cluster\./ },
      // Design diffs
      usage('diff without variants', ['diff', 'twophase'], /^error: /),
      usage('diff with an unknown preset', ['diff', 'twophase', '--a-preset', 'rm3', '--b-preset', 'rm9'], /^error: .*rm9/),
      usage('diff with an unknown parameter', ['diff', 'twophase', '--a', 'rm=3', '--b', 'brokers=3'], /^error: .*brokers/),
      usage('diff with a missing B spec', ['diff', 'twophase', '--a-preset', 'rm3', '--b-preset', 'rm5', '--b-spec', './nowhere.ts'], /^error: .*nowhere\.ts/),
      // Layouts, projects, symmetry
      usage('layout with an unknown subcommand', ['layout', 'propose', 'twophase'], /^error: Unknown layout command 'propose'\. kmc layout has one: suggest/),
      usage('layout suggest on a spec with a layout', ['layout', 'suggest', 'twophase'], /^error: kmc layout suggest cannot lay out twophase's states: this spec already declares a layout/),
      usage('init into an existing project', ['init', root], /^error: kmc init does not overwrite files: package\.json/),
      usage('init under a file', ['init', join(file, 'project')], /^error: /),
      usage('--symmetry on a spec without symmetry sets', ['check', 'diehard', '--symmetry'], /^error: .*declares no symmetry sets/),
      usage('--symmetry with temporal properties', ['check', 'kraft', '--preset', 'kraft-nudge-live', '--symmetry'], /^error: .*symmetry reduction cannot be used with the temporal properties/),
      // The spec's own code
      { name: 'an effect that returns undefined', args: ['check', fixture('specMistakes.ts'), '--param', 'mistake=undefined', '--no-deadlock'], code: 3, first: /^kmc check spec-mistakes mistake=undefined/ },
      { name: 'an effect that returns a number', args: ['check', fixture('specMistakes.ts'), '--param', 'mistake=number', '--no-deadlock', '--json'], code: 3, first: /"message":"Inc: its effect returned number 42, not a state of this model/ },
      { name: 'an effect that returns a plain object', args: ['check', fixture('specMistakes.ts'), '--param', 'mistake=plainObject', '--no-deadlock', '--json'], code: 3, first: /"message":"Inc: its effect returned a plain object/ },
      { name: 'an effect that reads a random number', args: ['check', fixture('specMistakes.ts'), '--param', 'mistake=random', '--no-deadlock', '--json'], code: 3, first: /"message":"the spec is not deterministic: one state, expanded twice, gave two different lists of successors/ },
      { name: 'a property with a memory', args: ['check', fixture('specMistakes.ts'), '--param', 'mistake=statefulProperty', '--no-deadlock', '--json'], code: 3, first: /"message":"the spec is not deterministic: the rebuilt counterexample ends in a state where Forgetful holds/ },
      { name: 'an effect that returns undefined, depth-first', args: ['check', fixture('specMistakes.ts'), '--param', 'mistake=undefined', '--no-deadlock', '--strategy', 'dfs', '--json'], code: 3, first: /"message":"Inc: its effect returned undefined, not a state of this model/ },
      { name: 'an effect that returns undefined, in simulation', args: ['simulate', fixture('specMistakes.ts'), '--param', 'mistake=undefined', '--no-deadlock', '--seed', '1', '--runs', '5'], code: 3, first: /./ },
      { name: 'a spec whose build throws', args: ['check', fixture('throwingSpec.ts')], code: 3, first: /./ },
      { name: 'an action that never returns, under --time-limit', args: ['check', fixture('hangingSpec.ts'), '--no-deadlock', '--time-limit', '2'], code: 4, first: /^(kmc check loop|Incomplete: stopped by --time-limit)/, detail: /stopped by --time-limit/ },
      { name: 'a limit reached', args: ['check', 'twophase', '--param', 'rm=6', '--max-states', '100', '--quiet'], code: 4, first: /^kmc check twophase rm=6/ },
    ];
    assert.ok(cases.length >= 100, `${cases.length} cases`);
    const table: string[] = [];
    const failures: string[] = [];
    let next = 0;
    const lane = async () => {
      for (let i = next++; i < cases.length; i = next++) {
        const c = cases[i]!;
        const r = await run(c.args, root);
        const first = firstLine(r.stderr) || firstLine(r.stdout);
        table[i] = `${String(r.code).padStart(3)}  ${c.name.padEnd(52)}  ${first.slice(0, 150)}`;
        const all = r.stdout + r.stderr;
        if (r.code !== c.code) failures.push(`${c.name}: exit ${r.code}, expected ${c.code}: ${first}`);
        else if (!c.first.test(first)) failures.push(`${c.name}: first line '${first}' does not match ${c.first}`);
        else if (c.detail && !c.detail.test(all)) failures.push(`${c.name}: the output does not say ${c.detail}: ${all.slice(0, 300)}`);
        else if (/internal error|\n\s+at .*:\d+:\d+\)?\n/.test(all)) failures.push(`${c.name}: a stack trace or internal error: ${all.slice(0, 300)}`);
      }
    };
    await Promise.all([lane(), lane()]);
    process.stdout.write(`# exit  case  first line\n${table.map((l) => `# ${l}`).join('\n')}\n`);
    assert.deepEqual(failures, []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
