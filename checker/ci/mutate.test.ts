import { test } from 'node:test';
import assert from 'node:assert/strict';
import { prepareCheck } from '../run/runCheck.ts';
import { describeMutation, mutateModel, mutationsOf } from './mutate.ts';
import { describeFate, fateOf, mutationTest, type MutationReport } from './mutationTest.ts';
import { runCi } from './runCi.ts';
import { loadSuite } from './loadSuite.ts';
import { runSuite } from './runSuite.ts';
import { COUNTER, writeSuite } from './testSupport.ts';
import { toMarkdown } from './markdown.ts';
import { githubAnnotations } from './githubAnnotations.ts';
import { mutationText } from './summaryText.ts';
import { fileURLToPath } from 'node:url';

const BUDGET = { mutantStates: 200_000, mutantSeconds: 20, totalSeconds: 120 };

test('mutants: each action disabled, each guard dropped; only the targeted action changes', async () => {
  const { model } = await prepareCheck({ spec: COUNTER, preset: 'c3' });
  const ms = mutationsOf(model);
  assert.deepEqual(ms.map(describeMutation), [
    'disable IncX',
    'drop guard of IncX',
    'disable IncY',
    'drop guard of IncY',
    'disable Dec',
    'drop guard of Dec',
    // Toggle has no guard to drop.
    'disable Toggle',
    'disable Reset',
    'drop guard of Reset',
  ]);
  const s0 = model.init()[Symbol.iterator]().next().value;
  const disabled = mutateModel(model, ms[0]!);
  const dropped = mutateModel(model, ms[5]!);
  assert.equal(disabled.actions[0]!.enabled!(s0, {}), false);
  assert.equal(model.actions[0]!.enabled!(s0, {}), true);
  assert.equal(dropped.actions[2]!.enabled!(s0, {}), true);
  assert.equal(model.actions[2]!.enabled!(s0, {}), false);
  assert.throws(() => dropped.actions[2]!.next(s0, {}), /Dec on an empty counter/);
  for (const i of [1, 3, 4]) assert.equal(disabled.actions[i], model.actions[i]);
  assert.throws(() => mutateModel(model, { kind: 'disable', index: 1, action: 'IncX' }), /does not match action 1 \(IncY\)/);
});

async function mutate(suiteText: string, budget = BUDGET): Promise<MutationReport> {
  const suite = await loadSuite(writeSuite(suiteText));
  const run = await runSuite(suite, { lanes: 1 });
  return mutationTest(run.outcomes, budget, { lanes: 1 });
}

const fates = (m: MutationReport) => m.mutants.map((x) => `${x.check}: ${x.label}: ${describeFate(x.fate)}`);

test('the counter fixture meets every fate, and its vacuous invariant is named', async () => {
  const m = await mutate(`version: 1\nchecks:\n  - spec: ${COUNTER}\n    preset: c3\n    expect: holds\n`);
  assert.deepEqual(fates(m), [
    'counter/c3: disable IncX: killed by BothFull (never reached)',
    'counter/c3: drop guard of IncX: killed by XWithinMax',
    'counter/c3: disable IncY: killed by BothFull (never reached)',
    'counter/c3: drop guard of IncY: killed by YWithinMax',
    'counter/c3: disable Dec: SURVIVED',
    'counter/c3: drop guard of Dec: killed by error (the spec threw)',
    'counter/c3: disable Toggle: SURVIVED',
    'counter/c3: disable Reset: SURVIVED',
    'counter/c3: drop guard of Reset: SURVIVED',
  ]);
  assert.deepEqual(
    m.invariants.map((i) => [i.invariant, i.killedBy, i.survivors, i.unknown]),
    [
      [
        'XWithinMax',
        ['drop guard of IncX'],
        ['disable IncX', 'disable IncY', 'disable Dec', 'disable Toggle', 'disable Reset', 'drop guard of Reset'],
        // y grows without bound and never trips XWithinMax: the search runs out of its budget.
        ['drop guard of IncY', 'drop guard of Dec'],
      ],
      ['YWithinMax', ['drop guard of IncY'], ['disable IncX', 'disable IncY', 'disable Dec', 'disable Toggle', 'disable Reset', 'drop guard of Reset'], ['drop guard of IncX', 'drop guard of Dec']],
      ['NonNegative', [], ['disable IncX', 'disable IncY', 'disable Dec', 'disable Toggle', 'disable Reset', 'drop guard of Reset'], ['drop guard of IncX', 'drop guard of IncY', 'drop guard of Dec']],
    ],
  );
  assert.equal(m.truncated, false);
});

test('two-phase commit rm3: TPTypeOK is vacuous, and two mutants go unnoticed', async () => {
  const m = await mutate('version: 1\nchecks:\n  - spec: twophase\n    preset: rm3\n    expect: holds\n  - spec: twophase\n    preset: rm3-commit-early\n    expect: { violates: TCConsistent }\n');
  assert.deepEqual(fates(m), [
    'twophase/rm3: disable TMRcvPrepared: killed by Committed (never reached)',
    'twophase/rm3: drop guard of TMRcvPrepared: killed by TCConsistent',
    'twophase/rm3: disable TMCommit: killed by Committed (never reached)',
    'twophase/rm3: drop guard of TMCommit: killed by TCConsistent',
    'twophase/rm3: disable TMAbort: killed by Deadlock',
    'twophase/rm3: drop guard of TMAbort: killed by TCConsistent',
    'twophase/rm3: disable RMPrepare: killed by Committed (never reached)',
    // An RM may prepare again after it committed or aborted: no property looks at that.
    'twophase/rm3: drop guard of RMPrepare: SURVIVED',
    'twophase/rm3: disable RMChooseToAbort: SURVIVED',
    'twophase/rm3: drop guard of RMChooseToAbort: killed by TCConsistent',
    'twophase/rm3: disable RMRcvCommitMsg: killed by Deadlock',
    'twophase/rm3: drop guard of RMRcvCommitMsg: killed by TCConsistent',
    'twophase/rm3: disable RMRcvAbortMsg: killed by Deadlock',
    'twophase/rm3: drop guard of RMRcvAbortMsg: killed by TCConsistent',
  ]);
  assert.deepEqual(
    m.invariants.map((i) => [i.invariant, i.killedBy.length, i.survivors.length, i.unknown]),
    [
      ['TCConsistent', 6, 8, []],
      ['TPTypeOK', 0, 13, ['drop guard of TMCommit']],
    ],
  );
  assert.deepEqual(m.skipped, [{ check: 'twophase/rm3-commit-early', reason: 'expected to violate a property: mutants of a broken design say nothing' }]);
});

test('step properties are checked alone against the mutants too, and named as step properties', async () => {
  const epochs = fileURLToPath(new URL('../../test/fixtures/epochSteps.ts', import.meta.url));
  const m = await mutate(`version: 1\nchecks:\n  - { spec: ${epochs}, params: { reset: false }, expect: holds }\n`, { ...BUDGET, mutantStates: 2000 });
  assert.deepEqual(fates(m), [
    'epochSteps[reset=false]: disable Bump: SURVIVED',
    // The epoch climbs past the top: EpochInRange sees it first, and EpochNeverDecreases never does.
    'epochSteps[reset=false]: drop guard of Bump: killed by EpochInRange',
    'epochSteps[reset=false]: disable Tick: SURVIVED',
    'epochSteps[reset=false]: disable Rewrite: SURVIVED',
  ]);
  assert.deepEqual(
    m.invariants.map((i) => [i.invariant, i.step ?? false, i.killedBy, i.survivors, i.unknown]),
    [
      ['EpochInRange', false, ['drop guard of Bump'], ['disable Bump', 'disable Tick', 'disable Rewrite'], []],
      // Checked alone against the unbounded epoch: no step takes it back, to the mutant budget.
      ['EpochNeverDecreases', true, [], ['disable Bump', 'disable Tick', 'disable Rewrite'], ['drop guard of Bump']],
    ],
  );
  assert.match(mutationText(m), /epochSteps\[reset=false\] EpochNeverDecreases \(step property\): violated by 0 of 4 mutants — no mutant can violate it: it is probably vacuous \(no step takes the leader epoch back\)/);
});

test('the total budget bounds the self-test: mutants not started are reported as not run', async () => {
  const m = await mutate(`version: 1\nchecks:\n  - spec: ${COUNTER}\n    preset: c3\n    expect: holds\n`, { ...BUDGET, totalSeconds: 1e-6 });
  assert.equal(m.truncated, true);
  assert.deepEqual(new Set(m.mutants.map((x) => describeFate(x.fate))), new Set(['unknown (not run (total budget spent))']));
});

test('--mutate reports: Markdown table per invariant, warning annotations for vacuous invariants', async () => {
  const r = await runCi({ suitePath: writeSuite(`version: 1\nchecks:\n  - spec: ${COUNTER}\n    preset: c3\n    expect: holds\n`), lanes: 1, mutate: BUDGET });
  assert.equal(r.exitCode, 0);
  const md = toMarkdown(r);
  assert.match(md, /\| counter\/c3 \| XWithinMax \| 1 of 9 \| disable IncX, disable IncY, disable Dec, disable Toggle, disable Reset, drop guard of Reset \|/);
  assert.match(md, /\| counter\/c3 \| NonNegative ⚠️ \| 0 of 9 \|/);
  assert.match(md, /⚠️ No mutant violates `NonNegative` \(counter\/c3\): probably vacuous\./);
  assert.match(md, /- counter\/c3: disable Toggle\n/);
  const notes = githubAnnotations(r);
  assert.equal(notes.length, 1);
  assert.match(notes[0]!, /^::warning file=.*kmc\.suite\.yaml,line=3,title=kmc ci --mutate%3A NonNegative may be vacuous::No mutant of counter\/c3 \(one action disabled or one guard dropped\) violates NonNegative \(neither counter goes below zero\)\.$/);
});

test('a mutant whose check ran to no verdict (a step that never returned, ended by the watchdog) is unknown, not killed', async () => {
  const suite = await loadSuite(writeSuite(`version: 1\nchecks:\n  - { spec: ${COUNTER}, preset: c3, expect: holds }\n`));
  const check = suite.checks[0]!;
  const hung = fateOf({ ok: false, message: 'the check ran past its time budget of 2 s by more than 2 s without returning' }, check);
  assert.deepEqual(hung, { kind: 'unknown', reason: 'the check ran past its time budget of 2 s by more than 2 s without returning' });
  assert.equal(describeFate(hung), 'unknown (the check ran past its time budget of 2 s by more than 2 s without returning)');
});
