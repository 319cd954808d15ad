import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { designDiff } from '../../run/designDiff.ts';
import { diffToHtml, diffToJson, diffToMarkdown, diffToText } from '../../diff/format.ts';

const bin = fileURLToPath(new URL('../../../dist/checker/cli/bin.mjs', import.meta.url));
const kmc = (...args: string[]) => {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};

/**
 * `kmc diff ARGS` through the CLI's main function in this process, colours removed: for what it writes
 * and returns. `kmc` above runs the real binary, for what only a process shows (its exit codes).
 */
async function kmcHere(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const { kmcInProcess } = await import('../testSupport.ts');
  const r = await kmcInProcess(...args);
  const plain = (t: string) => t.replace(/\x1b\[[0-9;]*m/g, '');
  return { code: r.code, stdout: plain(r.stdout), stderr: plain(r.stderr) };
}

// KAFKA-16281 under small budgets: the JIRA's code (no fourth condition) against the leaderId != self fix.
const kraftSmall = ['--preset', 'kraft-16281', '--param', 'maxRestarts=0', '--param', 'maxFetchTimeouts=0'];

test('kmc diff kraft: fourthCondition=none vs leaderIdNotSelf, as text', async () => {
  const r = await kmcHere('diff', 'kraft', ...kraftSmall, '--a', 'fourthCondition=none', '--b', 'fourthCondition=leaderIdNotSelf');
  assert.equal(r.code, 0, r.stderr);
  const [table, ...rest] = r.stdout.split('\nNoIllegalState fixed by B: ');
  assert.equal(
    table,
    `kmc diff kraft
  A: fourthCondition=none
  B: fourthCondition=leaderIdNotSelf

property                        A                   B
NoIllegalState                  violated (4 steps)  holds          fixed by B
NoFollowerOfSelf                holds               holds
ElectionSafety                  holds               holds
LogMatching                     holds               holds
NoLogDivergence                 holds               holds
LeaderCompleteness              holds               holds
LeaderHoldsCommitted            holds               holds
CommittedOnMajority             holds               holds
HighWatermarkWithinLog          holds               holds
AckedValueNotLost               holds               holds
ValidRolesAndStates             violated (4 steps)  holds          fixed by B
EpochNeverDecreases             holds               holds
LeaderElected                   never reached       never reached
PreVoteRejectedWithKnownLeader  holds               holds
LeaderResigned                  holds               holds
PreVoteToOwnFollower            holds               holds
PreVoteReplyNamesRequester      holds               holds

A: 137 distinct states, depth 10
B: 86 distinct states, depth 9
`,
  );
  const detail = rest.join('');
  assert.match(
    detail,
    /^A's counterexample \(4 steps\), replayed on B: does not fit B: step 4 \(HandleVoteResponse r1 ← r2: PreVoteResp e1 denied leader=r1\) leads to a different state: replicas\[r1\]\.role: expected IllegalState, got Prospective/,
  );
  assert.match(detail, /\n {2}Step 4 {2}HandleVoteResponse r1 ← r2: PreVoteResp e1 denied leader=r1 /);
});

test('kmc diff kraft as JSON and Markdown', async () => {
  const d = await designDiff(
    { name: 'A', spec: 'kraft', preset: 'kraft-16281', params: ['maxRestarts=0', 'maxFetchTimeouts=0', 'fourthCondition=none'] },
    { name: 'B', spec: 'kraft', preset: 'kraft-16281', params: ['maxRestarts=0', 'maxFetchTimeouts=0', 'fourthCondition=leaderIdNotSelf'] },
  );
  const json = JSON.parse(diffToJson(d));
  assert.deepEqual(
    json.properties.map((p: { property: string; a: { status: string; traceLength?: number }; b: { status: string }; change: string }) => [p.property, p.a.status, p.a.traceLength, p.b.status, p.change]),
    [
      ['NoIllegalState', 'violated', 4, 'holds', 'fixed'],
      ['NoFollowerOfSelf', 'holds', undefined, 'holds', 'same'],
      ['ElectionSafety', 'holds', undefined, 'holds', 'same'],
      ['LogMatching', 'holds', undefined, 'holds', 'same'],
      ['NoLogDivergence', 'holds', undefined, 'holds', 'same'],
      ['LeaderCompleteness', 'holds', undefined, 'holds', 'same'],
      ['LeaderHoldsCommitted', 'holds', undefined, 'holds', 'same'],
      ['CommittedOnMajority', 'holds', undefined, 'holds', 'same'],
      ['HighWatermarkWithinLog', 'holds', undefined, 'holds', 'same'],
      ['AckedValueNotLost', 'holds', undefined, 'holds', 'same'],
      ['ValidRolesAndStates', 'violated', 4, 'holds', 'fixed'],
      ['EpochNeverDecreases', 'holds', undefined, 'holds', 'same'],
      ['LeaderElected', 'unreached', undefined, 'unreached', 'same'],
      ['PreVoteRejectedWithKnownLeader', 'holds', undefined, 'holds', 'same'],
      ['LeaderResigned', 'holds', undefined, 'holds', 'same'],
      ['PreVoteToOwnFollower', 'holds', undefined, 'holds', 'same'],
      ['PreVoteReplyNamesRequester', 'holds', undefined, 'holds', 'same'],
    ],
  );
  assert.deepEqual([json.a.distinct, json.a.depth, json.b.distinct, json.b.depth], [137, 10, 86, 9]);
  assert.deepEqual(json.properties[0].replay.outcome, {
    kind: 'diverged',
    step: 4,
    action: json.properties[0].replay.outcome.action,
    reason: json.properties[0].replay.outcome.reason,
  });
  assert.equal(json.properties[0].replay.outcome.step, 4);
  assert.equal(json.properties[0].a.trace.states.length, 5);

  const md = diffToMarkdown(d);
  assert.ok(
    md.startsWith(`### kmc diff \`kraft\`

- **A**: \`fourthCondition=none\`
- **B**: \`fourthCondition=leaderIdNotSelf\`

| property | A | B | |
| --- | --- | --- | --- |
| NoIllegalState | ❌ violated (4 steps) | ✅ holds | **fixed by B** |
| NoFollowerOfSelf | ✅ holds | ✅ holds |  |
`),
    md,
  );
  assert.match(md, /\n\| \*distinct states\* \| 137 \| 86 \| \|\n\| \*depth\* \| 10 \| 9 \| \|\n/);
  assert.match(md, /\n\*\*NoIllegalState\*\* fixed by B\. Replayed on B, A's counterexample does not fit B: step 4 \(HandleVoteResponse r1 ← r2: PreVoteResp e1 denied leader=r1\) leads to a different state/);
  assert.match(md, /<details><summary>A's counterexample \(4 steps\)<\/summary>\n\n```text\nStep 0 {2}Init\n/);

  const html = diffToHtml(d);
  assert.match(html, /<section class="variant" id="variant-A">\n<h2>A: <code>fourthCondition=none<\/code><\/h2>/);
  assert.match(html, /<tr class="violated changed" data-property="NoIllegalState"><th>NoIllegalState<\/th><td>violated \(4 steps\)<\/td><\/tr>/);
  assert.match(html, /<tr class="holds changed" data-property="NoIllegalState"><th>NoIllegalState<\/th><td>holds<\/td><\/tr>/);
});

test('kmc diff twophase: two parameter sets, exact text; the planted bug does not replay on the fixed TM', async () => {
  const r = await kmcHere('diff', 'twophase', '--preset', 'rm3', '--a', 'bug=tmCommitEarly', '--b', 'bug=none');
  assert.equal(r.code, 0, r.stderr);
  assert.ok(
    r.stdout.startsWith(`kmc diff twophase
  A: bug=tmCommitEarly
  B: bug=none

property      A                   B
TCConsistent  violated (5 steps)  holds  fixed by B
TPTypeOK      holds               holds
Committed     holds               holds
Aborted       holds               holds
Deadlock      holds               holds

A: 498 distinct states, depth 11
B: 288 distinct states, depth 11

TCConsistent fixed by B: A's counterexample (5 steps), replayed on B: does not fit B: step 3 (TMCommit) fails: its guard is false in the state reached at step 2
  Step 0  Init
`),
    r.stdout,
  );
  // The same comparison the other way round: B breaks what A had.
  const back = await designDiff({ name: 'A', spec: 'twophase', preset: 'rm3', params: [] }, { name: 'B', spec: 'twophase', preset: 'rm3-commit-early', params: [] });
  assert.deepEqual(
    back.rows.map((x) => `${x.property}: ${x.change}`),
    ['TCConsistent: broken', 'TPTypeOK: same', 'Committed: same', 'Aborted: same', 'Deadlock: same'],
  );
  assert.equal(back.a.differs, 'preset rm3 bug=none');
  assert.equal(back.b.differs, 'preset rm3-commit-early bug=tmCommitEarly');
  assert.match(diffToText(back), /TCConsistent broken by B: B's counterexample \(5 steps\), replayed on A: does not fit A: step 3 \(TMCommit\)/);
});

test('kmc diff refuses two identical variants and malformed parameter lists', async () => {
  // Through the real binary once, for the exit code; the other mistakes through the CLI's main function
  // in this process (a process each would take half a second).
  const same = kmc('diff', 'twophase', '--preset', 'rm3');
  assert.equal(same.code, 2);
  assert.match(same.stderr, /Nothing tells the two variants apart/);
  const { kmcInProcess } = await import('../testSupport.ts');
  const here = async (...args: string[]) => {
    const r = await kmcInProcess(...args);
    return { code: r.code, stderr: r.stderr.replace(/\x1b\[[0-9;]*m/g, '') };
  };
  const bad = await here('diff', 'twophase', '--a', 'bug', '--b', 'bug=none');
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--a takes NAME=VALUE items separated by spaces.*'bug' has no '='/);
  const both = await here('diff', 'twophase', '--a', 'bug=none', '--b', 'rm=2', '--json', '--markdown');
  assert.equal(both.code, 2);
  assert.match(both.stderr, /Give at most one of --json, --markdown and --html/);
});

const variants = fileURLToPath(new URL('../../../test/fixtures/counterVariants.ts', import.meta.url));
const rowsOf = (d: Awaited<ReturnType<typeof designDiff>>) => d.rows.map((r) => [r.property, r.a.status, r.b.status, r.change]);

test('kmc diff: a witness never reached in either variant does not hide a temporal property B breaks', async () => {
  const d = await designDiff({ name: 'A', spec: variants, params: ['witness=7', 'fair=true'] }, { name: 'B', spec: variants, params: ['witness=7', 'fair=false'] });
  assert.deepEqual(rowsOf(d), [
    ['Small', 'holds', 'holds', 'same'],
    ['ReachesTwo', 'holds', 'violated', 'broken'],
    ['SeesWitness', 'unreached', 'unreached', 'same'],
    ['SeesAlso', 'holds', 'holds', 'same'],
    ['Deadlock', 'holds', 'holds', 'same'],
  ]);
  assert.deepEqual([d.a.complete, d.b.complete], [true, true]);
});

test('kmc diff: a property only one variant has, violated there, is a difference; a witness lost has no trace to replay', async () => {
  const added = await designDiff({ name: 'A', spec: variants, params: ['strict=false'] }, { name: 'B', spec: variants, params: ['strict=true'] });
  assert.deepEqual(rowsOf(added).at(-1), ['Tiny', 'absent', 'violated', 'other']);
  const lost = await designDiff({ name: 'A', spec: variants, params: ['witness=1'] }, { name: 'B', spec: variants, params: ['witness=7'] });
  const row = lost.rows.find((r) => r.property === 'SeesWitness')!;
  assert.deepEqual([row.a.status, row.b.status, row.change, row.replay], ['holds', 'unreached', 'broken', undefined]);
});

test('kmc diff: a variant whose spec throws exits 3, as a check does', () => {
  const r = kmc('diff', variants, '--param', 'top=4', '--a', 'boom=false', '--b', 'boom=true');
  assert.equal(r.code, 3, r.stderr);
  assert.match(r.stdout, /B: 5 distinct states, depth 3 \(incomplete: the spec threw: Inc: effect threw: Inc at 2\)/);
});
