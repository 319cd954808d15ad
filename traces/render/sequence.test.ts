import { test } from 'node:test';
import assert from 'node:assert/strict';
import twoPhase from '../../spec/twophase/twoPhase.ts';
import { checkModel } from '../../checker/engine/check.ts';
import { toItf, type ItfTrace } from '../itf/write.ts';
import { messageFlights } from './messages.ts';
import { renderMermaid } from './mermaid.ts';
import { renderSequenceSvg } from './sequence.ts';
import { actorsOf, stepsOf, type Step } from './steps.ts';

async function twoPhaseTrace(): Promise<ItfTrace> {
  const params = { rm: 3, bug: 'tmCommitEarly' };
  const r = await checkModel(twoPhase.build(params), {}, { spec: 'twophase', preset: 'rm3-commit-early', params });
  assert.ok(r.status === 'violation' && r.trace, `expected a violation with a trace, got ${r.status}`);
  return toItf(r.trace);
}

const step = (over: Partial<Step>): Step => ({ index: 0, action: 'A', params: {}, paramsText: '', label: 'A', call: 'A', sends: [], receives: [], marks: [], vars: {}, ...over });
const m = (from: string, to: string, label: string) => ({ from, to, label });

test('a receive pairs with the earliest unmatched send; a redelivery with the latest; a reply never with itself', () => {
  const flights = messageFlights([
    step({ sends: [m('a', 'b', 'X'), m('a', 'b', 'X')] }),
    step({ receives: [m('a', 'b', 'X')] }),
    step({ receives: [m('a', 'b', 'X')] }),
    step({ receives: [m('a', 'b', 'X')] }),
    step({ receives: [m('b', 'a', 'Y')], sends: [m('b', 'a', 'Y')] }),
  ]);
  assert.deepEqual(
    flights.map((f) => [f.message.label, f.sentAt, f.receivedAt]),
    [
      ['X', 0, 1],
      ['X', 0, 2],
      ['X', 0, 3], // a third receive of a message still in the network: its latest send
      ['Y', undefined, 4], // received with no send in the trace
      ['Y', 4, undefined], // sent by the same step, not received by it
    ],
  );
});

test('Quint action names are read when kmc narration is absent', () => {
  const steps = stepsOf({ states: [{ x: 0 }, { x: 1, 'mbt::actionTaken': 'inc' }] } as unknown as ItfTrace);
  assert.deepEqual(steps.map((s) => s.action), ['Init', 'inc']);
  assert.deepEqual(steps[1]!.vars, { x: 1 });
});

test('the sequence chart of the two-phase counterexample: lifelines, rows, messages, marks, verdict', async () => {
  const itf = await twoPhaseTrace();
  assert.deepEqual(actorsOf(stepsOf(itf)), ['r1', 'r2', 'r3', 'TM']);
  const svg = renderSequenceSvg(itf);
  assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  const all = (re: RegExp) => [...svg.matchAll(re)].map((x) => x[1]);
  assert.deepEqual(all(/<g class="kmc-actor" data-actor="([^"]+)"/g), ['r1', 'r2', 'r3', 'TM']);
  assert.deepEqual(all(/<g class="kmc-step" data-step="(\d+)"/g), ['0', '1', '2', '3', '4', '5']);
  // Prepared r1→TM sent at 1, received at 2; Commit TM→r1 sent at 3, received at 5; Commit to r2 and r3 never received.
  assert.deepEqual(all(/<g class="kmc-msg[^"]*"((?: data-[a-z]+="[^"]*")+)>/g), [
    ' data-sent="1" data-received="2" data-from="r1" data-to="TM"',
    ' data-sent="3" data-received="5" data-from="TM" data-to="r1"',
    ' data-sent="3" data-from="TM" data-to="r2"',
    ' data-sent="3" data-from="TM" data-to="r3"',
  ]);
  assert.equal(all(/class="kmc-msg kmc-in-flight"/g).length, 2);
  assert.deepEqual(all(/<g class="kmc-mark" data-step="(\d+)"/g), ['4']);
  assert.match(svg, /<g class="kmc-verdict" data-property="TCConsistent">/);
  assert.match(svg, /✗ Invariant TCConsistent is violated at step 5/);
});

test('the Mermaid text of the two-phase counterexample', async () => {
  assert.equal(
    renderMermaid(await twoPhaseTrace()),
    `sequenceDiagram
  title twophase · preset rm3-commit-early · rm=3, bug=tmCommitEarly
  participant p0 as r1
  participant p1 as r2
  participant p2 as r3
  participant p3 as TM
  Note over p0,p3: 0. Init
  Note over p0: 1. RMPrepare(rm=r1)
  p0-)p3: Prepared (received at step 2)
  Note over p3: 2. TMRcvPrepared(rm=r1) ← Prepared from r1
  Note over p3: 3. TMCommit
  p3-)p0: Commit (received at step 5)
  p3--)p1: Commit (never received)
  p3--)p2: Commit (never received)
  Note over p1: 4. RMChooseToAbort(rm=r2)
  Note over p1: ⊘ abort
  Note over p0: 5. RMRcvCommitMsg(rm=r1) ← Commit from TM
  Note over p0,p3: ✗ Invariant TCConsistent is violated at step 5: no resource manager has committed while another has aborted
`,
  );
});

test('Mermaid statement separators in names and labels are escaped', () => {
  const itf = { states: [{ '#meta': { index: 0, action: 'Init', params: {} } }, { '#meta': { index: 1, action: 'Send', params: {}, actor: 'a;b', sends: [m('a;b', 'c#1', 'x;y')] } }] };
  const text = renderMermaid(itf as unknown as ItfTrace);
  assert.match(text, /participant p0 as a#59;b/);
  assert.match(text, /participant p1 as c#35;1/);
  assert.match(text, /p0--\)p1: x#59;y \(never received\)/);
});

test('every label of every regression trace finds a clear place without the chart growing past its rows', async () => {
  const { readdirSync, readFileSync } = await import('node:fs');
  const { layoutSequence } = await import('./sequenceLayout.ts');
  const dir = new URL('../regressions/', import.meta.url);
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.itf.json'))) {
    const steps = stepsOf(JSON.parse(readFileSync(new URL(f, dir), 'utf8')) as ItfTrace);
    const layout = layoutSequence(steps, actorsOf(steps), messageFlights(steps));
    assert.equal(layout.crowded, 0, f);
    assert.equal(layout.bands.length, steps.length, f);
    // Bands follow each other without gaps: each step owns one vertical band.
    layout.bands.forEach((b, i) => i > 0 && assert.equal(b.top, layout.bands[i - 1]!.top + layout.bands[i - 1]!.h, `${f} band ${i}`));
  }
});

test('a lasso is drawn back to the state it repeats from', async () => {
  const { readFileSync } = await import('node:fs');
  const lasso = JSON.parse(readFileSync(new URL('./fixtures/lasso-prevote.itf.json', import.meta.url), 'utf8')) as ItfTrace;
  const svg = renderSequenceSvg(lasso);
  assert.match(svg, /<g class="kmc-loop" data-loop="1"><title>From step 1 on, the trace repeats forever<\/title>/);
  assert.match(svg, />↻ repeats forever from step 1<\/text>/);
  assert.deepEqual([...svg.matchAll(/<g class="kmc-step( kmc-in-loop)?" data-step="(\d)"/g)].map((x) => `${x[2]}${x[1] ? '*' : ''}`), ['0', '1*', '2*', '3*', '4*', '5*']);
  assert.doesNotMatch(renderSequenceSvg(await twoPhaseTrace()), /kmc-loop/);
});
