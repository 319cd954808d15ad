import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ExitCode } from '../run/exitCodes.ts';
import type { ItfTrace } from '../../traces/itf/write.ts';
import { runCi } from './runCi.ts';
import { runSuite } from './runSuite.ts';
import { loadSuite } from './loadSuite.ts';
import { gateExitCode, headline } from './gate.ts';
import { toJUnit } from './junit.ts';
import { toMarkdown } from './markdown.ts';
import { githubAnnotations } from './githubAnnotations.ts';
import { InputFileError } from './sourceFile.ts';
import { summaryText } from './summaryText.ts';
import { COUNTER, COUNTER_NO_TOGGLE, tempDir, withoutTimes, writeSuite } from './testSupport.ts';

const MATCHING = `version: 1
checks:
  - spec: twophase
    preset: rm3
    expect: holds
  - spec: twophase
    preset: rm5
    expect: holds
  - spec: twophase
    preset: rm3-commit-early
    expect: { violates: TCConsistent }
  - spec: ${COUNTER}
    preset: c3
    expect: holds
`;

const numbers = (r: Awaited<ReturnType<typeof runCi>>) =>
  r.run.outcomes.map((o) => [o.check.name, o.kind, o.got, o.report?.distinct, o.report?.depth, o.report?.traceLength]);

test('a suite where every verdict matches exits 0, with exact sizes', async () => {
  const r = await runCi({ suitePath: writeSuite(MATCHING), lanes: 1 });
  assert.equal(r.exitCode, ExitCode.Holds);
  assert.deepEqual(numbers(r), [
    ['twophase/rm3', 'pass', 'holds', 288, 11, null],
    ['twophase/rm5', 'pass', 'holds', 8832, 17, null],
    ['twophase/rm3-commit-early', 'pass', 'violates TCConsistent', 167, 6, 6],
    ['counter/c3', 'pass', 'holds', 32, 8, null],
  ]);
  assert.equal(r.drift.baselineFound, false);
  const text = withoutTimes(summaryText(r)).replace(/\x1b\[[0-9;]*m/g, '');
  assert.ok(text.startsWith(`result  check                      expected               got                    distinct  depth    time
ok      twophase/rm3               holds                  holds                       288     11  T s
ok      twophase/rm5               holds                  holds                     8,832     17  T s
ok      twophase/rm3-commit-early  violates TCConsistent  violates TCConsistent       167      6  T s
ok      counter/c3                 holds                  holds                        32      8  T s
`), text);
  assert.match(text, /kmc ci: passed — all 4 checks passed \(T s, 1 lane\)$/);
});

test('results are the same on one lane and on two (worker threads)', async () => {
  const suite = await loadSuite(writeSuite(MATCHING));
  const one = await runSuite(suite, { lanes: 1 });
  const two = await runSuite(suite, { lanes: 2, workerDelayMs: 0 });
  assert.equal(two.lanes, 2);
  const strip = (run: typeof one) =>
    run.outcomes.map((o) => ({ name: o.check.name, kind: o.kind, got: o.got, distinct: o.report?.distinct, generated: o.report?.generated, depth: o.report?.depth, trace: o.report?.trace }));
  assert.deepEqual(strip(two), strip(one));
});

test('a changed verdict fails the gate and says which way it changed; counterexamples land in --out', async () => {
  const out = join(tempDir(), 'out');
  const r = await runCi({
    suitePath: writeSuite(`version: 1
checks:
  - name: commit-early-now-holds?
    spec: twophase
    preset: rm3-commit-early
    expect: holds
  - name: rm3-still-buggy?
    spec: twophase
    preset: rm3
    expect: { violates: TCConsistent }
  - spec: ${COUNTER}
    preset: c3-overflow
    expect: { violates: YWithinMax }
  - spec: twophase
    preset: rm3
    expect: holds
`),
    lanes: 1,
    outDir: out,
  });
  assert.equal(r.exitCode, ExitCode.Violation);
  assert.deepEqual(
    r.run.outcomes.map((o) => [o.check.name, o.kind, o.expected, o.got, o.message]),
    [
      ['commit-early-now-holds?', 'broken', 'holds', 'violates TCConsistent', 'breaks TCConsistent: no resource manager has committed while another has aborted fails after 5 steps'],
      ['rm3-still-buggy?', 'fixed', 'violates TCConsistent', 'holds', "no longer violates TCConsistent: if the change fixes this known bug, change the check's expect to holds"],
      ['counter/c3-overflow', 'changed', 'violates YWithinMax', 'violates XWithinMax', 'violates XWithinMax instead of YWithinMax: x never passes max fails after 4 steps'],
      ['twophase/rm3', 'pass', 'holds', 'holds', ''],
    ],
  );
  // The counterexamples of the two failing checks that have one, as ITF and as text.
  assert.deepEqual(Object.keys(r.files), ['commit-early-now-holds?', 'counter/c3-overflow']);
  const itf = JSON.parse(readFileSync(join(out, 'commit-early-now-holds_.itf.json'), 'utf8')) as ItfTrace;
  assert.deepEqual(
    itf.states.map((s) => s['#meta'].action),
    ['Init', 'RMPrepare', 'TMRcvPrepared', 'TMCommit', 'RMChooseToAbort', 'RMRcvCommitMsg'],
  );
  assert.equal(itf['#meta'].verdict?.property, 'TCConsistent');
  const counter = JSON.parse(readFileSync(join(out, 'counter_c3-overflow.itf.json'), 'utf8')) as ItfTrace;
  assert.deepEqual(counter.states.map((s) => s['#meta'].action), ['Init', 'IncX', 'IncX', 'IncX', 'IncX']);
  assert.match(readFileSync(join(out, 'counter_c3-overflow.txt'), 'utf8'), /^counter\/c3-overflow: violates XWithinMax instead of YWithinMax/);

  const text = summaryText(r).replace(/\x1b\[[0-9;]*m/g, '');
  assert.match(text, /^BROKEN +commit-early-now-holds\? +holds +violates TCConsistent +167 +6 /m);
  assert.match(text, /^FIXED\? +rm3-still-buggy\? +violates TCConsistent +holds +288 +11 /m);
  assert.match(text, /^CHANGED +counter\/c3-overflow +violates YWithinMax +violates XWithinMax +17 +5 /m);
  assert.match(text, /Verdicts that differ from the suite:\n {2}commit-early-now-holds\? \(.*kmc\.suite\.yaml:3\): breaks TCConsistent/);
  assert.match(text, /kmc ci: FAILED — 1 of 4 checks passed; 3 verdicts differ from the expectation/);
});

test('a budget that runs out exits 4, unless the check is bounded', async () => {
  const r = await runCi({
    suitePath: writeSuite(`version: 1
checks:
  - spec: ${COUNTER}
    params: { max: 20 }
    budget: { maxStates: 100 }
    expect: holds
  - name: bounded
    spec: ${COUNTER}
    params: { max: 20 }
    budget: { maxStates: 100 }
    bounded: true
    expect: holds
  - name: bounded-but-bug-not-found
    spec: ${COUNTER}
    params: { max: 20, bug: overflowX }
    budget: { maxStates: 100 }
    bounded: true
    expect: { violates: XWithinMax }
`),
    lanes: 1,
  });
  assert.equal(r.exitCode, ExitCode.Incomplete);
  assert.deepEqual(
    r.run.outcomes.map((o) => [o.check.name, o.kind, o.got, o.report?.distinct, o.message]),
    [
      [
        'counter[max=20]',
        'budget',
        'incomplete (maxStates)',
        100,
        'ran out of its state budget (100 states) before the search finished; raise the budget, or mark the check bounded if exploring part of the state space is enough',
      ],
      ['bounded', 'pass', 'holds (bounded)', 100, 'no violation within the bound (100 states)'],
      ['bounded-but-bug-not-found', 'budget', 'incomplete (maxStates)', 100, 'ran out of its state budget (100 states) before the search finished; raise the budget'],
    ],
  );
});

test('a time budget that runs out is reported as such', async () => {
  const r = await runCi({
    suitePath: writeSuite(`version: 1\nchecks:\n  - spec: twophase\n    params: { rm: 8 }\n    budget: { timeSeconds: 0.2 }\n    expect: holds\n`),
    lanes: 1,
  });
  assert.equal(r.exitCode, ExitCode.Incomplete);
  const o = r.run.outcomes[0]!;
  assert.equal(o.got, 'incomplete (timeLimit)');
  assert.match(o.message, /^ran out of its time budget \(0\.2 s, [\d,]+ states explored\) before the search finished/);
});

test('a spec that throws exits 3', async () => {
  const r = await runCi({
    suitePath: writeSuite(`version: 1\nchecks:\n  - spec: ${COUNTER}\n    params: { bug: decFromZero }\n    expect: holds\n`),
    lanes: 1,
  });
  assert.equal(r.exitCode, ExitCode.SpecError);
  assert.equal(r.run.outcomes[0]!.kind, 'error');
  assert.equal(r.run.outcomes[0]!.message, 'the spec threw in an initial state: Dec: effect threw: Dec on an empty counter');
  assert.deepEqual(r.run.outcomes[0]!.report?.trace?.states.map((s) => s['#meta'].action), ['Init']);
});

test('exit codes: a differing verdict outranks a spec error, which outranks budget, which outranks drift', () => {
  const o = (kind: string) => ({ kind }) as never;
  const drift = { baselineFound: true, drifts: [{ check: 'x' }], missing: [], stale: [] } as never;
  const none = { baselineFound: true, drifts: [], missing: [], stale: [] };
  assert.equal(gateExitCode([o('pass'), o('budget'), o('error'), o('broken')], drift, false), ExitCode.Violation);
  assert.equal(gateExitCode([o('pass'), o('budget'), o('error')], drift, false), ExitCode.SpecError);
  assert.equal(gateExitCode([o('pass'), o('budget')], drift, false), ExitCode.Incomplete);
  assert.equal(gateExitCode([o('pass'), o('skipped')], drift, false), ExitCode.Violation);
  assert.equal(gateExitCode([o('pass'), o('skipped')], drift, true), ExitCode.Holds);
  assert.equal(gateExitCode([o('pass'), o('fixed')], none, true), ExitCode.Violation);
  assert.equal(gateExitCode([o('pass'), o('skipped')], none, false), ExitCode.Holds);
});

const BASELINED = (counterSpec: string, params = '') => `version: 1
checks:
  - name: counter
    spec: ${counterSpec}
    preset: c3${params}
    expect: holds
  - spec: twophase
    preset: rm3-commit-early
    expect: { violates: TCConsistent }
`;

test('--update-baseline records sizes; a change that halves the state space is drift, reported apart from verdicts', async () => {
  const dir = tempDir();
  const suitePath = writeSuite(BASELINED(COUNTER), dir);
  const recorded = await runCi({ suitePath, lanes: 1, updateBaseline: true });
  assert.equal(recorded.exitCode, ExitCode.Holds);
  assert.equal(recorded.baselineUpdated, true);
  assert.equal(
    readFileSync(join(dir, 'kmc.baseline.json'), 'utf8'),
    `{
  "checks": {
    "counter": {
      "counterexampleLength": null,
      "depth": 8,
      "distinct": 32,
      "params": {
        "bug": "none",
        "max": 3
      },
      "preset": "c3",
      "spec": "counter",
      "verdict": "holds"
    },
    "twophase/rm3-commit-early": {
      "counterexampleLength": 5,
      "depth": 6,
      "distinct": 167,
      "params": {
        "bug": "tmCommitEarly",
        "rm": 3
      },
      "preset": "rm3-commit-early",
      "spec": "twophase",
      "verdict": "violates TCConsistent"
    }
  },
  "version": 1
}
`,
  );

  const same = await runCi({ suitePath, lanes: 1 });
  assert.equal(same.exitCode, ExitCode.Holds);
  assert.deepEqual(same.drift, { baselineFound: true, drifts: [], missing: [], stale: [] });

  // The design changes: Toggle is gone. Every property still holds, but half the states are gone too.
  writeSuite(BASELINED(COUNTER_NO_TOGGLE), dir);
  const changed = await runCi({ suitePath, lanes: 1 });
  assert.equal(changed.exitCode, ExitCode.Violation);
  assert.deepEqual(changed.run.outcomes.map((o) => o.kind), ['pass', 'pass']);
  assert.deepEqual(changed.drift.drifts, [
    { check: 'counter', metric: 'distinct', before: 32, after: 16, change: -0.5, tolerance: 0.1, paramsChanged: false },
    { check: 'counter', metric: 'depth', before: 8, after: 7, change: -0.125, tolerance: 0.1, paramsChanged: false },
  ]);
  const text = summaryText(changed).replace(/\x1b\[[0-9;]*m/g, '');
  assert.match(text, /^DRIFT {3}counter /m);
  assert.match(text, /State-space drift from .*kmc\.baseline\.json:\n {2}counter: distinct states 32 → 16 \(−50\.0%\), beyond the ±10% tolerance\n {2}counter: depth 8 → 7 \(−12\.5%\), beyond the ±10% tolerance/);
  assert.match(text, /kmc ci: FAILED — 2 of 2 checks passed; 1 drifted from the baseline/);

  const allowed = await runCi({ suitePath, lanes: 1, allowDrift: true });
  assert.equal(allowed.exitCode, ExitCode.Holds);
  assert.equal(allowed.drift.drifts.length, 2);

  const tolerant = await runCi({ suitePath, lanes: 1, tolerance: 0.5 });
  assert.equal(tolerant.exitCode, ExitCode.Holds);
  assert.deepEqual(tolerant.drift.drifts, []);

  // Recording the new size makes it the norm.
  assert.equal((await runCi({ suitePath, lanes: 1, updateBaseline: true })).exitCode, ExitCode.Holds);
  assert.equal((await runCi({ suitePath, lanes: 1 })).exitCode, ExitCode.Holds);
});

test('drift caused by a parameter change says so; verdict and counterexample changes are drift too', async () => {
  const dir = tempDir();
  const suitePath = writeSuite(BASELINED(COUNTER), dir);
  await runCi({ suitePath, lanes: 1, updateBaseline: true });
  writeSuite(BASELINED(COUNTER, '\n    params: { max: 4 }'), dir);
  const r = await runCi({ suitePath, lanes: 1 });
  assert.deepEqual(
    r.drift.drifts.map((d) => [d.check, d.metric, d.before, d.after, d.paramsChanged]),
    [
      ['counter', 'distinct', 32, 50, true],
      ['counter', 'depth', 8, 10, true],
    ],
  );
  // A baseline recorded when the check was expected to fail, and the counterexample was longer.
  const baseline = JSON.parse(readFileSync(join(dir, 'kmc.baseline.json'), 'utf8'));
  baseline.checks['twophase/rm3-commit-early'].counterexampleLength = 7;
  baseline.checks.counter.verdict = 'violates XWithinMax';
  baseline.checks.gone = { ...baseline.checks.counter };
  writeFileSync(join(dir, 'kmc.baseline.json'), JSON.stringify(baseline));
  writeSuite(BASELINED(COUNTER), dir);
  const again = await runCi({ suitePath, lanes: 1 });
  assert.deepEqual(
    again.drift.drifts.map((d) => [d.check, d.metric, d.before, d.after, d.change]),
    [
      ['counter', 'verdict', 'violates XWithinMax', 'holds', null],
      ['twophase/rm3-commit-early', 'counterexampleLength', 7, 5, -2 / 7],
    ],
  );
  assert.deepEqual(again.drift.stale, ['gone']);
});

test('a failing check keeps its old baseline entry; a new check is reported as missing from the baseline', async () => {
  const dir = tempDir();
  const suitePath = writeSuite(BASELINED(COUNTER), dir);
  await runCi({ suitePath, lanes: 1, updateBaseline: true });
  writeSuite(
    `${BASELINED(COUNTER).replace('expect: { violates: TCConsistent }', 'expect: holds')}  - spec: twophase\n    preset: rm3\n    expect: holds\n`,
    dir,
  );
  const r = await runCi({ suitePath, lanes: 1 });
  assert.deepEqual(r.drift.missing, ['twophase/rm3']);
  await runCi({ suitePath, lanes: 1, updateBaseline: true });
  const b = JSON.parse(readFileSync(join(dir, 'kmc.baseline.json'), 'utf8'));
  assert.deepEqual(Object.keys(b.checks), ['counter', 'twophase/rm3', 'twophase/rm3-commit-early']);
  assert.equal(b.checks['twophase/rm3-commit-early'].verdict, 'violates TCConsistent');
});

test('--only runs the named checks and leaves the other baseline entries alone', async () => {
  const dir = tempDir();
  const suitePath = writeSuite(BASELINED(COUNTER), dir);
  await runCi({ suitePath, lanes: 1, updateBaseline: true });
  const r = await runCi({ suitePath, lanes: 1, only: ['count*'], updateBaseline: true });
  assert.deepEqual(r.run.outcomes.map((o) => o.check.name), ['counter']);
  assert.deepEqual(r.drift.stale, []);
  const b = JSON.parse(readFileSync(join(dir, 'kmc.baseline.json'), 'utf8'));
  assert.deepEqual(Object.keys(b.checks), ['counter', 'twophase/rm3-commit-early']);
  await assert.rejects(runCi({ suitePath, lanes: 1, only: ['nope'] }), /--only nope matches no check of .*; its checks are counter or twophase\/rm3-commit-early\./);
});

test('a malformed baseline is reported with its file, line and field before anything runs', async () => {
  const dir = tempDir();
  const suitePath = writeSuite(BASELINED(COUNTER), dir);
  writeFileSync(join(dir, 'kmc.baseline.json'), '{\n  "version": 1,\n  "checks": {\n    "counter": { "verdict": "holds", "distinct": "many", "depth": 8, "counterexampleLength": null }\n  }\n}\n');
  await assert.rejects(runCi({ suitePath, lanes: 1 }), (e: unknown) => {
    assert.ok(e instanceof InputFileError, `expected an InputFileError, got ${String(e)}`);
    assert.deepEqual(
      e.problems.map((p) => `${p.line}:${p.col} ${p.field}: ${p.message}`),
      ['4:50 checks.counter.distinct: distinct must be a whole number'],
    );
    return true;
  });
});

test('a check that expects a witness unreached fails when a temporal property fails too, or another witness is lost with it', async () => {
  const variants = fileURLToPath(new URL('../../test/fixtures/counterVariants.ts', import.meta.url));
  const out = join(tempDir(), 'out');
  const r = await runCi({
    suitePath: writeSuite(`version: 1
checks:
  - name: witness-known-lost
    spec: ${variants}
    params: { witness: 7 }
    expect: { violates: SeesWitness }
  - name: witness-lost-and-unfair
    spec: ${variants}
    params: { witness: 7, fair: false }
    expect: { violates: SeesWitness }
  - name: two-witnesses-lost
    spec: ${variants}
    params: { witness: 7, also: 8 }
    expect: { violates: SeesWitness }
  - name: over/x
    spec: ${variants}
    params: { strict: true }
    expect: holds
  - name: over x
    spec: ${variants}
    params: { strict: true }
    expect: holds
`),
    lanes: 1,
    outDir: out,
  });
  assert.deepEqual(
    r.run.outcomes.map((o) => [o.check.name, o.kind, o.got]),
    [
      ['witness-known-lost', 'pass', 'violates SeesWitness'],
      ['witness-lost-and-unfair', 'changed', 'violates ReachesTwo'],
      ['two-witnesses-lost', 'changed', 'violates SeesWitness, SeesAlso'],
      ['over/x', 'broken', 'violates Tiny'],
      ['over x', 'broken', 'violates Tiny'],
    ],
  );
  assert.equal(r.run.outcomes[2]!.message, 'no reachable state satisfies SeesWitness, SeesAlso (x reaches the witness value): something the model must be able to do became impossible, not SeesWitness alone');
  // Two names that come out as one file name: each counterexample keeps a file of its own.
  assert.deepEqual(r.files, { 'witness-lost-and-unfair': [join(out, 'witness-lost-and-unfair.itf.json'), join(out, 'witness-lost-and-unfair.txt')], 'over/x': [join(out, 'over_x.itf.json'), join(out, 'over_x.txt')], 'over x': [join(out, 'over_x-2.itf.json'), join(out, 'over_x-2.txt')] });
  assert.match(readFileSync(join(out, 'over_x-2.txt'), 'utf8'), /^over x: breaks Tiny/);
});

test('a design diff that is not as expected fails in every report: headline, JUnit, Markdown and annotations', async () => {
  const r = await runCi({
    suitePath: writeSuite(`version: 1
checks:
  - spec: twophase
    preset: rm3
    expect: holds
diffs:
  - name: commit-early
    spec: twophase
    a: { preset: rm3-commit-early }
    b: { preset: rm3 }
    expect: { fixes: [] }
`),
    lanes: 1,
  });
  assert.equal(r.exitCode, ExitCode.Violation);
  assert.equal(headline(r), '1 of 1 checks passed; 1 of 1 design diff not as expected');
  const junit = toJUnit(r);
  assert.match(junit, /<testsuites name="kmc ci" tests="2" failures="1" errors="0"/);
  assert.match(junit, /<testcase name="commit-early" classname="kmc\.twophase\.diff" time="[\d.]+">\n {6}<failure message="commit-early: B fixes TCConsistent; breaks nothing; the suite expects B to fix nothing; break nothing" type="diff">/);
  const markdown = toMarkdown(r);
  assert.match(markdown, /^## ❌ kmc ci: 1 of 1 checks passed; 1 of 1 design diff not as expected$/m);
  assert.match(markdown, /^\| ❌ \| commit-early \| fixes nothing; breaks nothing \| fixes TCConsistent; breaks nothing \|$/m);
  assert.match(githubAnnotations(r).join('\n'), /^::error file=.*kmc\.suite\.yaml,line=7,title=kmc ci%3A design diff commit-early%3A B fixes TCConsistent; breaks nothing::B fixes TCConsistent; breaks nothing; the suite expects B to fix nothing; break nothing$/m);
});
