import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

process.env.FORCE_COLOR = '0';
const { kmcInProcess } = await import('./testSupport.ts');

const root = fileURLToPath(new URL('../..', import.meta.url));
process.chdir(root);
const bin = join(root, 'dist/checker/cli/bin.mjs');

/** `kmc ARGS` as a process of its own: for what only a real process shows (exit codes, output streams). */
function spawnKmc(...args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** `kmc ARGS` through the CLI's main function in this process. */
const kmc = kmcInProcess;

function assertUserError(r: { code: number; stderr: string }, code: number, pattern: RegExp): void {
  assert.equal(r.code, code, r.stderr);
  assert.match(r.stderr, pattern);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace for a user mistake');
  assert.equal(r.stderr.trim().split('\n').length, 1, 'one paragraph');
}

test('check --json: holds, exit 0, the documented fields', async () => {
  const r = await kmc('check', 'twophase', '--preset', 'rm3', '--json', '--workers', '1');
  assert.equal(r.code, 0);
  const j = JSON.parse(r.stdout);
  assert.equal(j.status, 'holds');
  assert.equal(j.spec, 'twophase');
  assert.equal(j.preset, 'rm3');
  assert.deepEqual(j.params, { rm: 3, bug: 'none' });
  assert.deepEqual([j.distinct, j.generated, j.depth, j.property, j.traceLength, j.trace], [288, 1146, 11, null, null, null]);
  for (const k of ['seconds', 'cpuSeconds', 'collisionProbability']) assert.equal(typeof j[k], 'number');
});

test('check: a violation exits 1 with the property and an ITF trace; --out writes it for replay', async () => {
  const out = mkdtempSync(join(tmpdir(), 'kmc-'));
  const r = spawnKmc('check', 'twophase', '--preset', 'rm3-commit-early', '--json', '--out', out);
  assert.equal(r.code, 1);
  const j = JSON.parse(r.stdout);
  assert.equal(j.status, 'violation');
  assert.equal(j.property, 'TCConsistent');
  assert.equal(j.traceLength, 6);
  assert.deepEqual(j.trace.states.map((s: { '#meta': { action: string } }) => s['#meta'].action), ['Init', 'RMPrepare', 'TMRcvPrepared', 'TMCommit', 'RMChooseToAbort', 'RMRcvCommitMsg']);
  const file = join(out, 'twophase-rm3-commit-early-TCConsistent.itf.json');
  assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), j.trace);
  const replay = spawnKmc('replay', 'twophase', file);
  assert.equal(replay.code, 1);
  assert.match(replay.stdout, /Reproduced: the trace fits the spec and step 5 violates TCConsistent/);
  const fixed = spawnKmc('replay', 'twophase', file, '--param', 'bug=none');
  assert.equal(fixed.code, 0);
  assert.match(fixed.stdout, /No longer fits at step 3: TMCommit: its guard is false in the state reached at step 2/);
  // Breadth-first, the trace is a shortest; depth-first, it is the path the search took, and says so.
  assert.match((await kmc('check', 'twophase', '--preset', 'rm3-commit-early')).stdout, /^Invariant TCConsistent violated after 5 steps \(a shortest counterexample\)$/m);
  assert.match((await kmc('check', 'twophase', '--preset', 'rm3-commit-early', '--strategy', 'dfs')).stdout, /^Invariant TCConsistent violated after \d+ steps \(the path the depth-first search took, not necessarily a shortest; --strategy bfs finds one\)$/m);
});

test('check: the text report shows the trace with only what changed', async () => {
  const r = await kmc('check', 'diehard', '--workers', '1');
  assert.equal(r.code, 1);
  assert.match(r.stdout, /Step 6 {2}BigToSmall\n {2}small: 2 → 3\n {2}big: 5 → 4\n/);
  assert.match(r.stdout, /Invariant NotSolved violated after 6 steps \(a shortest counterexample\)/);
});

test('check --memory-budget with --workers 2: one thread, which spills its frontier to disk and finishes, and a warning says so; without the budget, no warning and 2 workers (KMC_SLOW=1: on the same search, to the same counts)', async () => {
  // replication-bench: its widest levels outgrow a 32 MB budget, its fingerprint tables do not.
  const args = ['check', 'replication', '--preset', 'replication-bench', '--json'];
  const budgeted = spawnKmc(...args, '--workers', '2', '--memory-budget', '32M');
  assert.equal(budgeted.code, 0, budgeted.stderr);
  assert.match(budgeted.stderr, /^warning: --workers 2 is not used with --memory-budget: a search under a memory budget runs in one thread, the one that spills its frontier to disk\.$/m);
  const j = JSON.parse(budgeted.stdout);
  // The generated count is that of the search without a budget, which the slow tier runs again below.
  assert.deepEqual([j.status, j.workers, j.distinct, j.depth, j.generated], ['holds', 1, 538217, 25, 1_402_836]);
  assert.ok(j.spilledBytes > 0, 'part of the frontier went to disk');
  const unbudgeted = process.env.KMC_SLOW ? spawnKmc(...args, '--workers', '2') : await kmc('check', 'twophase', '--preset', 'rm3', '--json', '--workers', '2');
  assert.doesNotMatch(unbudgeted.stderr, /--workers/);
  assert.equal(JSON.parse(unbudgeted.stdout).workers, 2);
  if (process.env.KMC_SLOW) assert.equal(JSON.parse(unbudgeted.stdout).generated, j.generated);
});

test('check --workers 2 on a spec without a layout, or depth-first: one thread, to the counts of one thread, and a warning says why', async () => {
  const two = await kmc('check', 'spec/twophase/twoPhaseImmutable.ts', '--param', 'rm=4', '--json', '--workers', '2');
  assert.equal(two.code, 0, two.stderr);
  assert.equal(
    two.stderr,
    'warning: --workers 2 is not used: twophase-immutable is searched in one thread, because its states are not the bytes of a declared layout (worker threads share out packed states only; docs/layouts.md says how to declare one).\n',
  );
  const one = await kmc('check', 'spec/twophase/twoPhaseImmutable.ts', '--param', 'rm=4', '--json', '--workers', '1');
  assert.equal(one.stderr, '');
  const counts = (r: { stdout: string }) => (({ status, workers, distinct, generated, depth }) => [status, workers, distinct, generated, depth])(JSON.parse(r.stdout));
  assert.deepEqual(counts(two), ['holds', 1, 1568, 8258, 14]);
  assert.deepEqual(counts(two), counts(one));
  const dfs = await kmc('check', 'twophase', '--preset', 'rm3', '--json', '--strategy', 'dfs', '--workers', '2');
  assert.equal(dfs.stderr, 'warning: --workers 2 is not used with --strategy dfs: the depth-first search runs in one thread.\n');
  assert.deepEqual(counts(dfs), ['holds', 1, 288, 1146, 11]);
});

test('exit 4 when a limit ends the search, exit 3 when the spec throws', async () => {
  const limited = spawnKmc('check', 'twophase', '--preset', 'rm5', '--max-states', '100', '--json');
  assert.equal(limited.code, 4);
  assert.equal(JSON.parse(limited.stdout).reason, 'maxStates');
  const throwing = spawnKmc('check', 'test/fixtures/throwingSpec.ts', '--json');
  assert.equal(throwing.code, 3);
  const j = JSON.parse(throwing.stdout);
  assert.equal(j.status, 'error');
  assert.match(j.message, /Inc: effect threw: cannot step past 2/);
  assert.equal(j.traceLength, 3);
  // The exit code of a kmc process whose spec throws is the spawned run's above; the message, here.
  assertUserError(await kmc('check', 'test/fixtures/throwingSpec.ts', '--param', 'buildFails=true'), 3, /threw while building its model.*no model for you/);
});

test("a user's own spec module checks by path", async () => {
  const r = await kmc('check', './spec/examples/mutex.ts', '--preset', 'racy', '--json');
  assert.equal(r.code, 1);
  assert.equal(JSON.parse(r.stdout).property, 'MutualExclusion');
  assert.equal((await kmc('check', './spec/examples/mutex.ts', '--preset', 'atomic', '--symmetry', '--quiet')).code, 0);
});

test('coverage: an action the parameters rule out is reported as disabled, not as a modelling bug', async () => {
  const atomic = await kmc('check', './spec/examples/mutex.ts', '--preset', 'atomic', '--coverage');
  assert.equal(atomic.code, 0);
  assert.match(atomic.stdout, /Disabled by parameters: Take \(atomic: Check takes the lock\)/);
  assert.doesNotMatch(atomic.stdout, /never enabled/);
  assert.match(atomic.stdout, /Take +disabled by parameters: atomic: Check takes the lock/);
  const json = JSON.parse((await kmc('check', './spec/examples/mutex.ts', '--preset', 'atomic', '--json')).stdout);
  assert.deepEqual(json.coverage.find((c: { action: string }) => c.action === 'Take'), { action: 'Take', enabled: 0, fired: 0, newStates: 0, disabledBy: 'atomic: Check takes the lock' });
  // A dead action with no stated reason is still flagged.
  const dead = await kmc('check', 'test/fixtures/deadActionSpec.ts', '--no-deadlock');
  assert.equal(dead.code, 0);
  assert.match(dead.stdout, /Actions never enabled: Never \(usually a modelling bug\)/);
  assert.doesNotMatch(dead.stdout, /Disabled by parameters/);
});

test("memory per state: the checker's tables once they have grown, process growth apart; not measured on a handful of states", async () => {
  const tiny = await kmc('check', './spec/examples/mutex.ts', '--preset', 'atomic');
  assert.match(tiny.stdout, /memory per state: too few states to measure \(the tables are at their start size\)/);
  const tinyJson = JSON.parse((await kmc('check', './spec/examples/mutex.ts', '--preset', 'atomic', '--json')).stdout);
  assert.equal(tinyJson.tablesAtStartSize, true);
  const big = JSON.parse((await kmc('check', 'twophase', '--param', 'rm=7', '--workers', '1', '--json')).stdout);
  assert.equal(big.tablesAtStartSize, false);
  // 8-byte fingerprints at most three quarters full, an 8-byte log entry, and the frontier's share.
  assert.ok(big.bytesPerState >= 16 && big.bytesPerState < 200, `${big.bytesPerState} bytes/state`);
  assert.equal(typeof big.processBytesPerState, 'number');
  // The CPU the search took: its thread was busy throughout (a second or so of TwoPhase rm=7).
  assert.ok(big.cpuSeconds > 0.2 * big.seconds, `${big.cpuSeconds} s of CPU in ${big.seconds} s`);
});

test('a .cts spec module loads as CommonJS and checks', async () => {
  const r = await kmc('check', 'test/fixtures/counterSpec.cts', '--no-deadlock', '--json');
  assert.equal(r.code, 1, r.stderr);
  const report = JSON.parse(r.stdout);
  assert.deepEqual([report.spec, report.property, report.distinct, report.traceLength], ['cts-counter', 'Small', 4, 4]);
});

test('coverage of a TLC-ordered spec: each binding labelled by its parameters, dead-by-construction bindings said apart', async () => {
  const r = await kmc('check', 'test/fixtures/bindingsSpec.ts', '--no-deadlock', '--coverage');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Actions never enabled: Stop\(p=p2\) \(usually a modelling bug\)/);
  assert.match(r.stdout, /Dead by construction, as declared: Send\(p=p3\) \(p3 starts done\)/);
  const rows = r.stdout.split('\n').filter((l) => /^ {2}(Send|Stop)/.test(l)).map((l) => l.trim().replace(/ +/g, ' '));
  assert.deepEqual(rows, [
    // 6 states: {} {p1} {p2} {p1,p2}, and p1 done after {p1} and after {p1,p2}.
    'Send(p=p1) 2 2 1',
    'Send(p=p2) 3 3 2',
    'Send(p=p3) 0 0 0 dead by construction: p3 starts done',
    'Stop(p=p1) 2 2 2',
    'Stop(p=p2) 0 0 0',
  ]);
  const json = JSON.parse((await kmc('check', 'test/fixtures/bindingsSpec.ts', '--no-deadlock', '--json')).stdout);
  assert.deepEqual(json.coverage[2], { action: 'Send', enabled: 0, fired: 0, newStates: 0, label: 'Send(p=p3)', deadByConstruction: 'p3 starts done' });
});

test('bad input: one clear paragraph naming the problem and the valid choices, exit 2', async () => {
  assertUserError(await kmc('check', 'kafak'), 2, /Unknown spec 'kafak'\. The bundled specs are twophase, diehard, kraft, replication or lifecycle/);
  assertUserError(await kmc('check', 'twophase', '--preset', 'rm4'), 2, /Unknown preset 'rm4' for spec twophase\. Its presets are rm3, rm5 or rm3-commit-early/);
  assertUserError(await kmc('check', 'twophase', '--param', 'brokers=3'), 2, /Unknown parameter 'brokers' for spec twophase\. Its parameters are: rm \(int 1\.\.10, default 3\), bug/);
  assertUserError(await kmc('check', 'twophase', '--param', 'rm=11'), 2, /rm of twophase must be a whole number from 1 to 10/);
  assertUserError(await kmc('check', 'twophase', '--param', 'bug=maybe'), 2, /must be one of none or tmCommitEarly \(.*\); got 'maybe'/);
  assertUserError(await kmc('check', 'twophase', '--param', 'rm'), 2, /--param takes NAME=VALUE, got 'rm'/);
  assertUserError(await kmc('check', 'twophase', '--max-states', '-5'), 2, /--max-states takes a whole number of at least 1/);
  assertUserError(await kmc('check', './no/such/spec.ts'), 2, /No spec file at \.\/no\/such\/spec\.ts/);
  assertUserError(await kmc('check', 'test/fixtures/notASpec.ts'), 2, /does not export a spec.*this module exports: answer/);
  assertUserError(await kmc('check', 'test/fixtures/brokenImport.ts'), 2, /Could not load the spec module .*this module fails while loading/);
  assertUserError(await kmc('check', 'twophase', '--symmetry', '--preset', 'rm3', '--param', 'rm=2', '--workers', '1', '--max-depth', 'x'), 2, /--max-depth takes a whole number of at least 1; got 'x'/);
  assertUserError(await kmc('frobnicate'), 2, /Unknown argument|Unknown command|frobnicate/);
});

test('bad trace files: missing, not JSON, not ITF', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kmc-'));
  assertUserError(await kmc('replay', 'twophase', join(dir, 'none.itf.json')), 2, /Cannot read the trace .*none\.itf\.json: there is no such file/);
  writeFileSync(join(dir, 'bad.json'), '{"vars": [');
  assertUserError(await kmc('replay', 'twophase', join(dir, 'bad.json')), 2, /is not a trace kmc can replay: it is not valid JSON/);
  writeFileSync(join(dir, 'shape.json'), JSON.stringify({ vars: ['x'], states: [{ x: 1 }] }));
  assertUserError(await kmc('replay', 'twophase', join(dir, 'shape.json')), 2, /is not a trace kmc can replay: states\[0\] has no "#meta"/);
});

test('list --json describes every bundled spec with params and presets', async () => {
  const r = await kmc('list', '--json');
  assert.equal(r.code, 0);
  const specs = JSON.parse(r.stdout).specs as { name: string; params: { name: string }[]; presets: { name: string; expect: string }[] }[];
  const twophase = specs.find((s) => s.name === 'twophase')!;
  assert.deepEqual(twophase.params.map((p) => p.name), ['rm', 'bug']);
  assert.deepEqual(twophase.presets.map((p) => [p.name, p.expect]), [['rm3', 'holds'], ['rm5', 'holds'], ['rm3-commit-early', 'violates: TCConsistent']]);
  assert.deepEqual(specs.map((s) => s.name), ['twophase', 'diehard', 'kraft', 'replication', 'lifecycle']);
});

test('simulate: a seeded violation is shrunk, and the same seed gives the same trace', async () => {
  const a = await kmc('simulate', 'twophase', '--preset', 'rm3-commit-early', '--seed', '42', '--json');
  const b = await kmc('simulate', 'twophase', '--preset', 'rm3-commit-early', '--seed', '0x2a', '--json');
  assert.equal(a.code, 1);
  const ja = JSON.parse(a.stdout);
  assert.equal(ja.seed, '0x2a');
  assert.equal(ja.property, 'TCConsistent');
  assert.ok(ja.traceLength <= ja.shrunkFrom, `the shrunk trace (${ja.traceLength} steps) is no longer than the walk it came from (${ja.shrunkFrom})`);
  assert.deepEqual(JSON.parse(b.stdout).trace, ja.trace);
  const ok = await kmc('simulate', 'twophase', '--preset', 'rm3', '--seed', '1', '--runs', '20', '--json');
  assert.equal(ok.code, 0);
  assert.equal(JSON.parse(ok.stdout).runs, 20);
  // No violation on 20 walks is said as such: not exhaustive.
  assert.deepEqual([JSON.parse(ok.stdout).status, JSON.parse(ok.stdout).exhaustive], ['holds', false]);
  assertUserError(await kmc('simulate', 'twophase', '--seed', 'abc'), 2, /--seed takes a whole number/);
});

test('simulate --workers 2: a swarm of seeds finds the bug; the seed and runs printed with it replay that trace alone', async () => {
  const swarm = await kmc('simulate', 'twophase', '--preset', 'rm3-commit-early', '--seed', '7', '--runs', '200', '--workers', '2', '--json');
  assert.equal(swarm.code, 1, swarm.stderr);
  const j = JSON.parse(swarm.stdout);
  assert.equal(j.property, 'TCConsistent');
  assert.deepEqual(j.workers.map((w: { runs: number }) => w.runs), [100, 100]);
  assert.equal(j.workers[0].seed, '0x7');
  const found = j.workers.find((w: { seed: string }) => w.seed === j.seed);
  assert.equal(found.status, 'violation');
  const alone = await kmc('simulate', 'twophase', '--preset', 'rm3-commit-early', '--seed', j.seed, '--runs', String(found.runs), '--json');
  assert.equal(alone.code, 1);
  assert.deepEqual(JSON.parse(alone.stdout).trace, j.trace);
  const text = await kmc('simulate', 'twophase', '--preset', 'rm3-commit-early', '--seed', '7', '--runs', '200', '--workers', '2');
  assert.match(text.stdout, /^ {2}worker 1 {2}--seed 0x7 --runs 100: /m);
  assert.match(text.stdout, /^ {2}worker 2 {2}--seed 0x[0-9a-f]+ --runs 100: /m);
  assert.match(text.stdout, /Invariant TCConsistent violated after \d+ steps .* Replay with --seed 0x[0-9a-f]+ --runs 100/);
  assertUserError(await kmc('simulate', 'twophase', '--workers', '1000'), 2, /--workers 1000 is more than the \d+ cores of this machine/);
});

test('the KAFKA-16281 regression trace reproduces, and no longer fits under each fix', async () => {
  const trace = 'traces/regressions/kraft-kraft-16281.itf.json';
  const buggy = await kmc('replay', 'kraft', trace);
  assert.equal(buggy.code, 1);
  assert.match(buggy.stdout, /Reproduced: the trace fits the spec and step 4 violates NoIllegalState/);
  const notProspective = await kmc('replay', 'kraft', trace, '--param', 'fourthCondition=notProspective');
  assert.equal(notProspective.code, 0);
  assert.match(notProspective.stdout, /No longer fits at step 4: HandleVoteResponse\(s=r1, .*replicas\[r1\]\.role: expected IllegalState, got Prospective/);
  const finalFix = await kmc('replay', 'kraft', trace, '--param', 'resignedTimeout=unattached', '--json');
  assert.equal(finalFix.code, 0);
  const j = JSON.parse(finalFix.stdout);
  assert.equal(j.status, 'diverged');
  assert.equal(j.step, 2);
  assert.match(j.reason, /replicas\[r1\]\.role: expected Prospective, got Unattached; replicas\[r1\]\.epoch: expected 1, got 2/);
  // The shipped Prospective keeps the leader it knew: the trace leaves it at the same step.
  const shipped = JSON.parse((await kmc('replay', 'kraft', trace, '--param', 'prospective=kip996', '--json')).stdout);
  assert.deepEqual([shipped.status, shipped.step], ['diverged', 2]);
  assert.match(shipped.reason, /replicas\[r1\]\.leader: expected .*, got r1/);
});
