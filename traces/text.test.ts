import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { ItfTrace } from './itf/write.ts';
import { renderText } from './text.ts';
import { renderMermaid } from './render/mermaid.ts';
import { stepsOf } from './render/steps.ts';
import { stripAnsi } from './render/formats.ts';

const read = (path: string) => JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as ItfTrace;
const kraft16281 = read('./regressions/kraft-kraft-16281.itf.json');
const lasso = read('./render/fixtures/lasso-prevote.itf.json');

test("a step whose parameter is a message is named in the spec's words; plain parameters stay as they are", () => {
  const steps = stepsOf(kraft16281);
  assert.deepEqual(
    steps.map((s) => s.label),
    [
      'Init',
      'CheckQuorumResign(s=r1)',
      'ElectionTimeout(s=r1)',
      'HandleVoteRequest r2 ← r1: PreVote e1 last=(1,2)',
      'HandleVoteResponse r1 ← r2: PreVoteResp e1 denied leader=r1',
    ],
  );
  assert.match(steps[4]!.call, /^HandleVoteResponse\(s=r1, m=\[type \|-> "VoteResponse", from \|-> "r2", to \|-> "r1", epoch \|-> 1/);
  assert.equal(stepsOf(lasso)[5]!.label, 'DropMessage r1: lost: r2->r1 PreVote e1 last=(1,1)');
});

test('the text trace uses those words and keeps the full record one flag away', () => {
  const lines = stripAnsi(renderText(kraft16281)).split('\n').filter((l) => l.startsWith('Step'));
  assert.deepEqual(lines.slice(3), [
    'Step 3  HandleVoteRequest r2 ← r1: PreVote e1 last=(1,2)  r2 → r1: PreVoteResp e1 denied leader=r1',
    'Step 4  HandleVoteResponse r1 ← r2: PreVoteResp e1 denied leader=r1  r1 IllegalState: transitionToFollower(epoch=1, leader=r1): the leader is the local replica',
  ]);
  const full = stripAnsi(renderText(kraft16281, { params: true })).split('\n').filter((l) => l.startsWith('Step 4'));
  assert.match(full[0]!, /^Step 4 {2}HandleVoteResponse\(s=r1, m=\(type: VoteResponse, from: r2, to: r1, epoch: 1, preVote: true, leaderId: r1, granted: false/);
  assert.match(full[0]!, /r1 ← r2: PreVoteResp e1 denied leader=r1/);
});

test('a lasso says where it repeats from, in the text trace and the Mermaid chart', () => {
  const text = stripAnsi(renderText(lasso));
  assert.match(text, /^Step 1 {2}CutLink\(a=r1, b=r2\) {2}r2 partition r1-r2 {2}↻ from here the trace repeats forever$/m);
  assert.match(text, /^↻ After step 5 the trace repeats forever from step 1$/m);
  assert.match(renderMermaid(lasso), /Note over p0,p2: ↻ after step 5 the trace repeats forever from step 1\n/);
  assert.doesNotMatch(stripAnsi(renderText(kraft16281)), /repeats/);
});
