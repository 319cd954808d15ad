import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import twoPhase, { type TwoPhaseState } from '../../spec/twophase/twoPhase.ts';
import { ConfigError, checkModel } from './check.ts';
import { VERSION } from './checkpoint.ts';
import { readCheckpointFile, readManifest, writeCheckpointFiles } from './checkpointFiles.ts';
import type { CheckOptions } from './options.ts';
import { always } from '../../invariants/property.ts';
import { layout as L } from '../../spec/layout/index.ts';
import type { Model } from '../../spec/spec.ts';

const label = (params: Record<string, number | string>) => ({ spec: 'twophase', params });

/** The uninterrupted run each resumed one is compared with, searched once per parameters for the whole file. */
const uninterruptedRuns = new Map<string, ReturnType<typeof checkModel>>();
function uninterrupted(params: Record<string, number | string>): ReturnType<typeof checkModel> {
  const key = JSON.stringify(params);
  if (!uninterruptedRuns.has(key)) uninterruptedRuns.set(key, checkModel(twoPhase.build(params), {}, label(params)));
  return uninterruptedRuns.get(key)!;
}

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'kmc-checkpoint-test-'));
}

test('a search stopped after a checkpoint resumes to the counts and coverage of an uninterrupted run', async () => {
  const dir = tempDir();
  try {
    const params = { rm: 6 };
    const full = await uninterrupted(params);
    const stopped = await checkModel(twoPhase.build(params), { checkpointDirectory: dir, checkpointEverySeconds: 0, maxStates: 20_000 }, label(params));
    assert.equal(stopped.status, 'incomplete');
    const resumed = await checkModel(twoPhase.build(params), { resumeDirectory: dir, checkpointEverySeconds: 0 }, label(params));
    assert.equal(resumed.status, 'holds');
    assert.equal(resumed.stats.distinct, full.stats.distinct);
    assert.equal(resumed.stats.generated, full.stats.generated);
    assert.equal(resumed.stats.depth, full.stats.depth);
    assert.deepEqual(resumed.stats.coverage, full.stats.coverage);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a resumed search finds the same counterexample as an uninterrupted one', async () => {
  const dir = tempDir();
  try {
    const params = { rm: 5, bug: 'tmCommitEarly' };
    const full = await uninterrupted(params);
    assert.equal(full.status, 'violation');
    await checkModel(twoPhase.build(params), { checkpointDirectory: dir, checkpointEverySeconds: 0, maxStates: 200 }, label(params));
    const resumed = await checkModel(twoPhase.build(params), { resumeDirectory: dir }, label(params));
    assert.equal(resumed.status, 'violation');
    assert.equal(resumed.stats.distinct, full.stats.distinct);
    const steps = (r: typeof full) => ('trace' in r ? r.trace?.steps.map((s) => `${s.action} ${JSON.stringify(s.params)}`) : []);
    assert.deepEqual(steps(resumed), steps(full));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('checkpoints written by two workers resume, with one worker, two or three, to the uninterrupted counts', async () => {
  const dir = tempDir();
  try {
    const params = { rm: 6 };
    const source = { modulePath: fileURLToPath(new URL('../../spec/twophase/twoPhase.ts', import.meta.url)), params };
    const full = await uninterrupted(params);
    const stopped = await checkModel(twoPhase.build(params), { workers: 2, ownerThreadsFromDepth: 1, checkpointDirectory: dir, checkpointEverySeconds: 0, maxStates: 20_000 }, label(params), source);
    assert.equal(stopped.status, 'incomplete');
    assert.equal(stopped.stats.workers, 2);
    for (const workers of [1, 2, 3]) {
      const resumed = await checkModel(twoPhase.build(params), { workers, ownerThreadsFromDepth: 1, resumeDirectory: dir, checkpointEverySeconds: 1e9 }, label(params), source);
      assert.equal(resumed.status, 'holds');
      assert.equal(resumed.stats.workers, workers);
      assert.equal(resumed.stats.distinct, full.stats.distinct);
      assert.equal(resumed.stats.generated, full.stats.generated);
      assert.deepEqual(resumed.stats.coverage, full.stats.coverage);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a checkpoint of the search in one thread goes on in one thread with --workers 2, and a warning says so', async () => {
  const dir = tempDir();
  try {
    const params = { rm: 5 };
    const source = { modulePath: fileURLToPath(new URL('../../spec/twophase/twoPhase.ts', import.meta.url)), params };
    const full = await uninterrupted(params);
    const stopped = await checkModel(twoPhase.build(params), { checkpointDirectory: dir, checkpointEverySeconds: 0, maxStates: 3_000 }, label(params), source);
    assert.equal(stopped.status, 'incomplete');
    const warnings: string[] = [];
    const resumed = await checkModel(twoPhase.build(params), { workers: 2, resumeDirectory: dir, checkpointEverySeconds: 1e9, onWarning: (w) => warnings.push(w) }, label(params), source);
    assert.deepEqual([resumed.status, resumed.stats.workers, resumed.stats.distinct, resumed.stats.generated], ['holds', 1, full.stats.distinct, full.stats.generated]);
    assert.deepEqual(warnings, [`--workers 2 is not used: the checkpoint in ${dir} was written by a search in one thread, which goes on in one thread (a checkpoint written with --workers goes on with any number of workers).`]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('checkpoints of a search partitioned among owners (threads, or objects here) resume with any number of owners to the uninterrupted counts and counterexample', async () => {
  const dir = tempDir();
  try {
    // Owners as objects here for the run that holds, as threads for the one that finds a counterexample.
    for (const [params, stopAt, threads] of [[{ rm: 6 }, 20_000, false], [{ rm: 5, bug: 'tmCommitEarly' }, 200, true]] as [Record<string, number | string>, number, boolean][]) {
      const source = { modulePath: fileURLToPath(new URL('../../spec/twophase/twoPhase.ts', import.meta.url)), params };
      const full = await uninterrupted(params);
      for (const how of [threads ? source : undefined]) {
        rmSync(dir, { recursive: true, force: true });
        const stopped = await checkModel(twoPhase.build(params), { owners: 2, checkpointDirectory: dir, checkpointEverySeconds: 0, maxStates: stopAt }, label(params), how);
        assert.deepEqual([stopped.status, stopped.stats.owners], ['incomplete', 2]);
        // With as many owners, and with others: the states are dealt out again by fingerprint.
        for (const owners of [2, 3, 1]) {
          const resumed = await checkModel(twoPhase.build(params), { owners, resumeDirectory: dir, checkpointEverySeconds: 1e9 }, label(params), how);
          assert.equal(resumed.status, full.status);
          assert.deepEqual([resumed.stats.owners, resumed.stats.distinct, resumed.stats.generated, resumed.stats.depth], [owners, full.stats.distinct, full.stats.generated, full.stats.depth]);
          assert.deepEqual(resumed.stats.coverage, full.stats.coverage);
          const steps = (r: typeof full) => ('trace' in r ? r.trace?.steps.map((s) => `${s.action} ${JSON.stringify(s.params)}`) : []);
          assert.deepEqual(steps(resumed), steps(full));
        }
      }
    }
    // Stopped by Ctrl-C with checkpoints due only every 10^9 s: the last level boundary is saved as the run ends.
    const params = { rm: 5 };
    rmSync(dir, { recursive: true, force: true });
    let polls = 0;
    const interrupted = await checkModel(twoPhase.build(params), { owners: 2, checkpointDirectory: dir, checkpointEverySeconds: 1e9, shouldStop: () => ++polls > 3 }, label(params));
    assert.equal(interrupted.status === 'incomplete' && interrupted.reason, 'interrupted');
    const resumed = await checkModel(twoPhase.build(params), { owners: 2, resumeDirectory: dir }, label(params));
    assert.deepEqual([resumed.status, resumed.stats.distinct, resumed.stats.generated], ['holds', 8832, (await uninterrupted(params)).stats.generated]);
    // Under --memory-budget (a search in one thread, which spills): refused, saying why.
    await assert.rejects(
      checkModel(twoPhase.build(params), { resumeDirectory: dir, memoryBudgetBytes: 1e9 }, label(params)),
      (e: unknown) => e instanceof ConfigError && /written by worker threads or owners, and goes on partitioned among owners, which do not take --memory-budget .*Resume it without --memory-budget\.$/.test((e as Error).message),
    );
    // Resumed without --owners or --workers: one owner, in this thread.
    const alone = await checkModel(twoPhase.build(params), { resumeDirectory: dir }, label(params));
    assert.deepEqual([alone.status, alone.stats.distinct, alone.stats.generated, alone.stats.workers, alone.stats.owners], ['holds', 8832, resumed.stats.generated, 1, undefined]);
    // A checkpoint of owners whose snapshots do not name each level's first state (an earlier kmc's) is refused, saying so.
    const meta = readManifest<{ version: number; format?: number; sha256?: string }>(dir, VERSION);
    const { files, sha256: _sha, format: _format, ...older } = meta;
    writeCheckpointFiles(dir, Object.fromEntries(Object.keys(files).map((f) => [f, new Uint8Array(readCheckpointFile(dir, files, f))])), older);
    await assert.rejects(checkModel(twoPhase.build(params), { owners: 2, resumeDirectory: dir }, label(params)), /the checkpoint in .* was written by an earlier kmc, whose owners saved their states in another form \(1, this one reads 2\): start the run afresh/);
    // A checkpoint of one process resumes only without --owners.
    rmSync(dir, { recursive: true, force: true });
    await checkModel(twoPhase.build(params), { checkpointDirectory: dir, checkpointEverySeconds: 0, maxStates: 200 }, label(params));
    await assert.rejects(checkModel(twoPhase.build(params), { owners: 2, resumeDirectory: dir }, label(params)), /written by a search not partitioned among owners: resume it without --owners/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a checkpoint of another run is refused, naming what differs', async () => {
  const dir = tempDir();
  try {
    await checkModel(twoPhase.build({ rm: 4 }), { checkpointDirectory: dir, checkpointEverySeconds: 0, maxStates: 100 }, label({ rm: 4 }));
    await assert.rejects(
      checkModel(twoPhase.build({ rm: 5 }), { resumeDirectory: dir }, label({ rm: 5 })),
      (e: unknown) => e instanceof ConfigError && /belongs to another run: its parameters are \{"rm":4\}, not \{"rm":5\}/.test((e as Error).message),
    );
    await assert.rejects(
      checkModel(twoPhase.build({ rm: 4 }), { resumeDirectory: join(dir, 'nothing-here') }, label({ rm: 4 })),
      (e: unknown) => e instanceof ConfigError && /holds no checkpoint/.test((e as Error).message),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a checkpoint is refused once its spec's module, or a module it imports, is edited, even where the rules digest's sampled states do not show the edit", async () => {
  const dir = tempDir();
  try {
    // A counter that stops at `top`: an edit of `top` shows only in states the saved level does not hold.
    const Counter = L.record('Counter', { x: L.int(0, 20) });
    type Counter = ReturnType<typeof Counter.from>;
    const counter = (top: number) =>
      ({
        layout: Counter,
        init: () => [Counter.from({ x: 0 })],
        actions: [{ name: 'Inc', params: (s: Counter) => (s.x < top ? [{}] : []), next: (s: Counter) => s.merge({ x: s.x + 1 }) }],
        properties: [always<Counter>('Small', 'x stays small', (s) => s.x <= 20)],
      }) as unknown as Model<Counter>;
    // The module holds the parameters; its rules are in a module it imports, as the bundled specs' are.
    const modulePath = join(dir, 'counter.ts');
    const rulesPath = join(dir, 'rules.ts');
    const source = { modulePath, params: {} };
    const counterLabel = { spec: 'counter', params: {} };
    writeFileSync(modulePath, "import { top } from './rules.js';\nexport const bound = top;\n");
    writeFileSync(rulesPath, 'export const top = 10;\n');
    const saved = join(dir, 'saved');
    const first = await checkModel(counter(10), { checkpointDirectory: saved, checkpointEverySeconds: 0, maxStates: 4, deadlock: false }, counterLabel, source);
    assert.deepEqual([first.status, first.stats.distinct], ['incomplete', 4]);
    const refusal = (changed: string) =>
      `the checkpoint in ${saved} belongs to another run: the spec's sources have changed since the saved levels were searched: ${changed} (paths from ${dir}). Resume with the same spec, preset, parameters and properties, and the same --symmetry and --[no-]deadlock, or start afresh.`;
    const refusedWith = (changed: string) => (e: unknown) => e instanceof ConfigError && (e as Error).message === refusal(changed);
    const resume = (top: number, from: typeof source | null = source) => checkModel(counter(top), { resumeDirectory: saved, checkpointEverySeconds: 1e9, deadlock: false }, counterLabel, from ?? undefined);
    writeFileSync(rulesPath, 'export const top = 9;\n');
    await assert.rejects(resume(9), refusedWith('rules.ts differs'));
    // The control: held to the rules digest alone (no sources to compare), the edit goes unseen and the
    // resumed counts are those of neither version (10 states, or 11 uninterrupted with top 10).
    const blind = await resume(9, null);
    assert.deepEqual([blind.status, blind.stats.distinct], ['holds', 10]);
    writeFileSync(rulesPath, 'export const top = 10;\n');
    writeFileSync(modulePath, "import { top } from './rules.js';\nexport const bound = top + 0;\n");
    await assert.rejects(resume(10), refusedWith('counter.ts differs'));
    writeFileSync(modulePath, "import { top } from './rules.js';\nimport './extra.ts';\nexport const bound = top;\n");
    writeFileSync(join(dir, 'extra.ts'), 'export {};\n');
    await assert.rejects(resume(10), refusedWith('counter.ts differs'));
    // The files as they were: the run goes on to the uninterrupted counts.
    writeFileSync(modulePath, "import { top } from './rules.js';\nexport const bound = top;\n");
    const resumed = await resume(10);
    assert.deepEqual([resumed.status, resumed.stats.distinct], ['holds', 11]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a checkpoint already past --max-depth or --max-states is refused, saying how far it got; resumed without them it ends the search', async () => {
  // The resumed search once ended at once, incomplete by the limit, with counts past it.
  const dir = tempDir();
  try {
    const params = { rm: 5 };
    const stopped = await checkModel(twoPhase.build(params), { checkpointDirectory: dir, checkpointEverySeconds: 0, maxStates: 2000 }, label(params));
    assert.equal(stopped.status === 'incomplete' && stopped.reason, 'maxStates');
    for (const owners of [undefined, 2]) {
      const ownersDir = owners === undefined ? dir : tempDir();
      try {
        if (owners !== undefined) await checkModel(twoPhase.build(params), { owners, checkpointDirectory: ownersDir, checkpointEverySeconds: 0, maxStates: 2000 }, label(params));
        const resume = (more: CheckOptions) => checkModel(twoPhase.build(params), { ...(owners !== undefined ? { owners } : {}), resumeDirectory: ownersDir, checkpointEverySeconds: 1e9, ...more }, label(params));
        await assert.rejects(resume({ maxDepth: 3 }), (e: unknown) => e instanceof ConfigError && /^--max-depth 3 is below the depth the checkpoint in .* has reached \((\d+) levels searched\): a resumed search cannot take levels back\. Resume with --max-depth \1 or more/.test((e as Error).message));
        await assert.rejects(resume({ maxStates: 100 }), (e: unknown) => e instanceof ConfigError && /^--max-states 100 is below the [\d,]+ states the checkpoint in .* holds: a resumed search cannot take states back/.test((e as Error).message));
        const full = await resume({});
        assert.equal(full.status, 'holds', `owners: ${owners}`);
        assert.equal(full.stats.distinct, 8832);
      } finally {
        if (owners !== undefined) rmSync(ownersDir, { recursive: true, force: true });
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a checkpoint written by another version of the spec (same name, parameters and actions, other rules) is refused', async () => {
  const dir = tempDir();
  try {
    const params = { rm: 4 };
    await checkModel(twoPhase.build(params), { checkpointDirectory: dir, checkpointEverySeconds: 0, maxStates: 100 }, label(params));
    const model = twoPhase.build(params);
    // A resource manager may no longer choose to abort: every saved state with a working one now has fewer successors.
    const edited = { ...model, actions: model.actions.map((a) => (a.name === 'RMChooseToAbort' ? { ...a, enabled: () => false } : a)) };
    await assert.rejects(
      checkModel(edited, { resumeDirectory: dir }, label(params)),
      (e: unknown) =>
        e instanceof ConfigError &&
        /was written by another version of twophase: the same parameters and actions, but from the states it saved the rules now lead to other successors/.test((e as Error).message),
    );
    // The spec as it was still resumes, to the uninterrupted counts.
    const resumed = await checkModel(twoPhase.build(params), { resumeDirectory: dir }, label(params));
    const full = await uninterrupted(params);
    assert.equal(resumed.stats.distinct, full.stats.distinct);
    assert.deepEqual(resumed.stats.coverage, full.stats.coverage);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a checkpoint is refused when the properties, the CONSTRAINT or deadlock detection changed since: the levels it saved were never checked for them', async () => {
  const dir = tempDir();
  const ownersDir = tempDir();
  try {
    const params = { rm: 4 };
    const saved = { checkpointEverySeconds: 0, maxStates: 100 };
    await checkModel(twoPhase.build(params), { ...saved, checkpointDirectory: dir }, label(params));
    await checkModel(twoPhase.build(params), { ...saved, owners: 2, checkpointDirectory: ownersDir }, label(params));
    const model = twoPhase.build(params);
    const [consistent, typeOk, committed, aborted] = model.properties;
    const refusedWith = (pattern: RegExp) => (e: unknown) => e instanceof ConfigError && pattern.test((e as Error).message);
    for (const [resumeDirectory, owners] of [[dir, {}], [ownersDir, { owners: 2 }]] as const) {
      const resume = (m: typeof model, more: CheckOptions = {}) => checkModel(m, { ...owners, resumeDirectory, ...more }, label(params));
      // An invariant added: the saved levels were never checked against it.
      const added = { ...model, properties: [...model.properties, always<TwoPhaseState>('NoAbort', 'never aborted', (s) => s.tmState !== 'aborted')] };
      await assert.rejects(
        resume(added),
        refusedWith(/belongs to another run: the spec's properties have changed since \(always TCConsistent, always TPTypeOK, sometimes Committed, sometimes Aborted then, always TCConsistent, always TPTypeOK, sometimes Committed, sometimes Aborted, always NoAbort now\)/),
      );
      // Witnesses in another order: a witness is saved as reached by its place.
      await assert.rejects(resume({ ...model, properties: [consistent!, typeOk!, aborted!, committed!] }), refusedWith(/the spec's properties have changed since/));
      // Deadlocks looked for now, not then, or the other way.
      await assert.rejects(resume(model, { deadlock: false }), refusedWith(/belongs to another run: it was run with deadlock detection \(--no-deadlock\)/));
      // A CONSTRAINT added: same names, other verdicts on the states saved.
      await assert.rejects(resume({ ...model, constraint: (s) => s.msgs.size <= 2 }), refusedWith(/was written by another version of twophase: .* or its properties or constraints judge them otherwise/));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(ownersDir, { recursive: true, force: true });
  }
});

test('kmc check --owners 2 --checkpoint: a stopped run says how to go on, and --resume with 3 owners ends with the uninterrupted counts', async () => {
  // Through the CLI's main function in this process: its exit code and what it writes, as a kmc process's.
  const { kmcInProcess } = await import('../cli/testSupport.ts');
  const kmc = async (...args: string[]) => {
    const r = await kmcInProcess(...args);
    return { status: r.code, stdout: r.stdout, stderr: r.stderr.replace(/\x1b\[[0-9;]*m/g, '') };
  };
  const dir = tempDir();
  try {
    const stopped = await kmc('check', 'twophase', '--param', 'rm=5', '--owners', '2', '--checkpoint', dir, '--checkpoint-every', '0.0001', '--max-states', '4000');
    assert.equal(stopped.status, 4, stopped.stderr);
    assert.match(stopped.stderr, new RegExp(`The last checkpoint in ${dir} holds the search up to depth \\d+ \\([\\d,]+ states\\); the search since then is not saved\\. Continue with: kmc check twophase … --resume ${dir} --owners 2`));
    const resumed = await kmc('check', 'twophase', '--param', 'rm=5', '--owners', '3', '--resume', dir, '--json', '--quiet');
    const report = JSON.parse(resumed.stdout) as { status: string; distinct: number; generated: number; owners: number };
    const full = await uninterrupted({ rm: 5 });
    assert.deepEqual([report.status, report.owners, report.distinct, report.generated], ['holds', 3, full.stats.distinct, full.stats.generated]);
    // A run of --workers 2 is partitioned among owners too; it goes on with the workers the machine gives (no --owners).
    rmSync(dir, { recursive: true, force: true });
    const workers = await kmc('check', 'twophase', '--param', 'rm=5', '--workers', '2', '--checkpoint', dir, '--checkpoint-every', '0.0001', '--max-states', '4000');
    assert.equal(workers.status, 4, workers.stderr);
    assert.match(workers.stderr, new RegExp(`Continue with: kmc check twophase … --resume ${dir}\n?$`));
    const again = JSON.parse((await kmc('check', 'twophase', '--param', 'rm=5', '--resume', dir, '--json', '--quiet')).stdout) as { status: string; distinct: number; generated: number; owners?: number };
    assert.deepEqual([again.status, again.owners, again.distinct, again.generated], ['holds', undefined, full.stats.distinct, full.stats.generated]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('kmc killed with SIGKILL mid-search resumes from its last checkpoint to the uninterrupted counts', async () => {
  const { spawn } = await import('node:child_process');
  const { existsSync, readFileSync } = await import('node:fs');
  const { fileURLToPath } = await import('node:url');
  const bin = fileURLToPath(new URL('../../dist/checker/cli/bin.mjs', import.meta.url));
  const dir = tempDir();
  try {
    const child = spawn(process.execPath, [bin, 'check', 'twophase', '--param', 'rm=6', '--checkpoint', dir, '--checkpoint-every', '0.0001', '--quiet'], { stdio: 'ignore' });
    const meta = join(dir, 'meta.json');
    const depthSaved = () => (existsSync(meta) ? (JSON.parse(readFileSync(meta, 'utf8')) as { depth: number }).depth : 0);
    while (depthSaved() < 6 && child.exitCode === null) await new Promise((r) => setTimeout(r, 20));
    assert.equal(child.exitCode, null, 'the run was still going when killed');
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    // The killed process is what this test is about; the run that resumes its checkpoint is the CLI's main function here.
    const { kmcInProcess } = await import('../cli/testSupport.ts');
    const resumed = await kmcInProcess('check', 'twophase', '--param', 'rm=6', '--resume', dir, '--json', '--quiet');
    const report = JSON.parse(resumed.stdout) as { status: string; distinct: number; generated: number };
    const full = await uninterrupted({ rm: 6 });
    assert.equal(report.status, 'holds');
    assert.equal(report.distinct, full.stats.distinct);
    assert.equal(report.generated, full.stats.generated);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a damaged checkpoint is refused by name: a file cut short, bytes overwritten, the manifest edited, a file missing', async () => {
  const { truncateSync, writeFileSync, readFileSync, openSync, writeSync, closeSync, unlinkSync, cpSync } = await import('node:fs');
  const params = { rm: 6 };
  const saved = tempDir();
  try {
    await checkModel(twoPhase.build(params), { checkpointDirectory: saved, checkpointEverySeconds: 0, maxStates: 20_000 }, label(params));
    const damaged = (damage: (dir: string) => void, message: RegExp) => {
      const dir = tempDir();
      cpSync(saved, dir, { recursive: true });
      damage(dir);
      return assert.rejects(
        checkModel(twoPhase.build(params), { resumeDirectory: dir }, label(params)),
        (e: unknown) => e instanceof ConfigError && message.test((e as Error).message),
      ).finally(() => rmSync(dir, { recursive: true, force: true }));
    };
    await damaged((dir) => truncateSync(join(dir, 'seen.bin'), 4096), /is damaged: seen\.bin has 4096 bytes, its manifest says \d+ \(cut short since it was written\)\. Start afresh without --resume/);
    await damaged((dir) => {
      const fd = openSync(join(dir, 'level.bin'), 'r+');
      writeSync(fd, new Uint8Array([0xde, 0xad, 0xbe, 0xef]), 0, 4, 16);
      closeSync(fd);
    }, /is damaged: level\.bin was changed after it was written \(its SHA-256 differs from its manifest\)/);
    await damaged((dir) => {
      const meta = JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8'));
      writeFileSync(join(dir, 'meta.json'), JSON.stringify({ ...meta, generated: meta.generated + 1 }));
    }, /is damaged: meta\.json was changed after it was written/);
    await damaged((dir) => unlinkSync(join(dir, 'parents.bin')), /is damaged: parents\.bin is missing/);
  } finally {
    rmSync(saved, { recursive: true, force: true });
  }
});

test('--checkpoint into a folder that holds a checkpoint is refused, not overwritten: another run, or this one (use --resume)', async () => {
  const { readFileSync } = await import('node:fs');
  const dir = tempDir();
  try {
    await checkModel(twoPhase.build({ rm: 4 }), { checkpointDirectory: dir, checkpointEverySeconds: 0, maxStates: 100 }, label({ rm: 4 }));
    const before = readFileSync(join(dir, 'meta.json'), 'utf8');
    await assert.rejects(
      checkModel(twoPhase.build({ rm: 5 }), { checkpointDirectory: dir, checkpointEverySeconds: 0 }, label({ rm: 5 })),
      (e: unknown) => e instanceof ConfigError && /holds the checkpoint of another run \(its parameters are \{"rm":4\}, not \{"rm":5\}\); it is not overwritten/.test((e as Error).message),
    );
    await assert.rejects(
      checkModel(twoPhase.build({ rm: 4 }), { checkpointDirectory: dir, checkpointEverySeconds: 0 }, label({ rm: 4 })),
      (e: unknown) => e instanceof ConfigError && /holds a checkpoint of this very run already: continue it with --resume/.test((e as Error).message),
    );
    assert.equal(readFileSync(join(dir, 'meta.json'), 'utf8'), before, 'the checkpoint is untouched');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('SIGINT to a run with --checkpoint finishes the level, writes a last checkpoint, and the resumed run ends with the uninterrupted counts (slow; set KMC_SLOW=1)', { skip: !process.env.KMC_SLOW || process.platform !== 'linux', timeout: 180_000 }, async () => {
  const { spawn } = await import('node:child_process');
  const { existsSync } = await import('node:fs');
  const { fileURLToPath } = await import('node:url');
  const bin = fileURLToPath(new URL('../../dist/checker/cli/bin.mjs', import.meta.url));
  const dir = tempDir();
  try {
    const args = ['check', 'twophase', '--param', 'rm=8', '--workers', '1'];
    // No periodic checkpoint within the run: the one it leaves is the signal's.
    const child = spawn(process.execPath, [bin, ...args, '--checkpoint', dir, '--checkpoint-every', '60', '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((r) => child.on('close', r));
    await new Promise((r) => setTimeout(r, 2500));
    child.kill('SIGINT');
    assert.equal(await exited, 4, stderr);
    assert.match(stderr, /Finishing this level to write a last checkpoint first/);
    assert.match(stderr, /The last checkpoint in .* holds the search up to depth \d+ \([\d,]+ states\); written as the run stopped, so nothing is lost/);
    assert.equal(JSON.parse(stdout).reason, 'interrupted');
    assert.ok(existsSync(join(dir, 'meta.json')), 'the signal left a checkpoint');
    const resumed = spawn(process.execPath, [bin, ...args, '--resume', dir, '--json', '--quiet'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    resumed.stdout.on('data', (d) => (out += d));
    assert.equal(await new Promise((r) => resumed.on('close', r)), 0);
    const full = await checkModel(twoPhase.build({ rm: 8 }), { workers: 1 }, label({ rm: 8 }));
    const report = JSON.parse(out) as { distinct: number; generated: number; depth: number };
    assert.deepEqual([report.distinct, report.generated, report.depth], [full.stats.distinct, full.stats.generated, full.stats.depth]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
