/**
 * Spec mistakes are errors naming the action (exit 3), never states, violations or traces that
 * contradict their verdict: an effect returning undefined (a missing return), a number or a plain object;
 * an effect that reads a random number; a property with a memory.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kmcInProcess as kmc } from './testSupport.ts';

const SPEC = 'test/fixtures/specMistakes.ts';
const check = (mistake: string) => kmc('check', SPEC, '--param', `mistake=${mistake}`, '--no-deadlock', '--json');

test('an effect that returns something that is not a state is an error naming the action and what it returned', async () => {
  const cases: [string, RegExp][] = [
    ['undefined', /^Inc: its effect returned undefined, not a state of this model \(an Immutable\.js value, as init\(\) gives\): does the effect miss a return\?$/],
    ['number', /^Inc: its effect returned number 42, not a state of this model \(an Immutable\.js value, as init\(\) gives\): an effect returns the next state$/],
    ['plainObject', /^Inc: its effect returned a plain object, not a state of this model/],
  ];
  for (const [mistake, message] of cases) {
    const r = await check(mistake);
    assert.equal(r.code, 3, mistake);
    const report = JSON.parse(r.stdout);
    assert.equal(report.status, 'error', mistake);
    assert.match(report.message, message, mistake);
    assert.equal(report.distinct, 1, `${mistake}: nothing it returned was counted as a state`);
  }
  const fine = JSON.parse((await check('none')).stdout);
  assert.deepEqual([fine.status, fine.property, fine.traceLength], ['violation', 'BelowThree', 4]);
});

test('a spec that is not deterministic is an error: an effect or an init reading a random number (found as the search starts or expands, or as the counterexample is rebuilt), a property with a memory', async () => {
  // The first state is expanded twice, and its two lists of successors differ: the search stops there.
  const random = await check('random');
  assert.equal(random.code, 3);
  const first = JSON.parse(random.stdout);
  assert.equal(first.status, 'error');
  assert.match(first.message, /^the spec is not deterministic: one state, expanded twice, gave two different lists of successors \(the first difference is its successor 1, by Inc\)/);
  assert.deepEqual([first.distinct, first.traceLength], [1, 1]);
  // Initial states made twice differ: the search does not start.
  const init = await check('randomInit');
  assert.equal(init.code, 3);
  const i = JSON.parse(init.stdout);
  assert.deepEqual([i.status, i.distinct], ['error', 0]);
  assert.match(i.message, /^the spec is not deterministic: init\(\), called twice, gave two different lists of initial states/);
  // Random only from its third call on: the first state's two expansions agree, the rebuilt counterexample does not.
  const late = await check('randomLate');
  assert.equal(late.code, 3);
  const r = JSON.parse(late.stdout);
  assert.equal(r.status, 'error');
  assert.match(r.message, /^the spec is not deterministic: could not rebuild the counterexample: step \d \(Inc\) gave two different states when run twice from the same state/);
  assert.equal(r.trace, null);
  const stateful = JSON.parse((await check('statefulProperty')).stdout);
  assert.equal(stateful.status, 'error');
  assert.match(stateful.message, /^the spec is not deterministic: the rebuilt counterexample ends in a state where Forgetful holds, though the search found it violated there/);
});
