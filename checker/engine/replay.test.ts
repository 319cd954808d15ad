import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { prepareCheck } from '../run/runCheck.ts';
import { checkModel } from './check.ts';
import { replayTrace } from './replay.ts';
import { toItf, type ItfTrace } from '../../traces/itf/write.ts';

const variants = fileURLToPath(new URL('../../test/fixtures/counterVariants.ts', import.meta.url));

/** The spec's model under `params`, and the ITF counterexample a check of it finds. */
async function counterexample(params: string[], options = {}): Promise<ItfTrace> {
  const { model, label } = await prepareCheck({ spec: variants, params });
  const r = await checkModel(model, options, label);
  assert.ok('trace' in r && r.trace, `a counterexample for ${params.join(' ')}`);
  return toItf(r.trace);
}
const modelOf = async (params: string[]) => (await prepareCheck({ spec: variants, params })).model;
const edited = (t: ItfTrace, edit: (t: { -readonly [K in keyof ItfTrace]: ItfTrace[K] }) => void): ItfTrace => {
  const copy = structuredClone(t) as { -readonly [K in keyof ItfTrace]: ItfTrace[K] };
  edit(copy);
  return copy;
};

test('replay: a trace that leaves the CONSTRAINT goes no further, as no behaviour of the model does', async () => {
  // Without the constraint x reaches 6 and breaks Small; under x ≤ 2 the state at step 3 is outside it.
  const trace = await counterexample(['top=9', 'fair=false'], { deadlock: false });
  assert.equal(trace.states.length, 7);
  assert.deepEqual(replayTrace(await modelOf(['top=9', 'fair=false']), trace), { kind: 'reproduced', step: 6, property: 'Small', recorded: 'Small' });
  const outside = replayTrace(await modelOf(['top=9', 'fair=false', 'bound=2']), trace);
  assert.equal(outside.kind, 'diverged');
  assert.equal(outside.kind === 'diverged' && outside.step, 4);
  assert.match(outside.kind === 'diverged' ? outside.reason : '', /the state reached at step 3 is outside the model's CONSTRAINT/);
  // An initial state outside it goes no further either.
  const fromTwo = await counterexample(['top=9', 'fair=false', 'start=2'], { deadlock: false });
  const outsideAtStart = replayTrace(await modelOf(['top=9', 'fair=false', 'start=2', 'bound=1']), fromTwo);
  assert.equal(outsideAtStart.kind === 'diverged' && outsideAtStart.step, 1);
  assert.match(outsideAtStart.kind === 'diverged' ? outsideAtStart.reason : '', /the state reached at step 0 is outside the model's CONSTRAINT/);
});

test('replay: steps recorded after the violation must replay too; variables the spec does not have are refused', async () => {
  const model = await modelOf(['top=9', 'fair=false']);
  const trace = await counterexample(['top=9', 'fair=false'], { deadlock: false });
  const last = trace.states.at(-1)!;
  const garbage = edited(trace, (t) => {
    t.states = [...t.states, { ...last, '#meta': { ...last['#meta'], index: t.states.length, action: 'NoSuchAction' } }];
  });
  const after = replayTrace(model, garbage);
  assert.equal(after.kind === 'diverged' && after.step, 7);
  assert.match(after.kind === 'diverged' ? after.reason : '', /the spec has no action NoSuchAction/);
  const extra = edited(trace, (t) => {
    t.states = t.states.map((s, i) => (i === 2 ? { ...s, bogus: 7 } : s));
  });
  assert.deepEqual(replayTrace(model, extra), { kind: 'diverged', step: 2, action: 'Inc', reason: 'the trace has variables the spec does not: bogus' });
});

test('replay: a trace cut short says which recorded violation it no longer reaches; a deadlock is reproduced only while the last state has no step', async () => {
  const model = await modelOf(['top=9', 'fair=false']);
  const trace = await counterexample(['top=9', 'fair=false'], { deadlock: false });
  const cut = edited(trace, (t) => {
    t.states = t.states.slice(0, -1);
  });
  assert.deepEqual(replayTrace(model, cut), { kind: 'fits', steps: 6, recorded: 'Small' });
  // A deadlock: with Sides never enabled, the counter stops at top.
  const { model: stops, label } = await prepareCheck({ spec: variants, params: ['top=2'] });
  const stopping = { ...stops, actions: stops.actions.filter((a) => a.name !== 'Sides') };
  const r = await checkModel(stopping, {}, label);
  if (r.status !== 'violation' || r.kind !== 'deadlock' || !r.trace) throw new Error(`a deadlock, not ${r.status}`);
  const deadlock = toItf(r.trace);
  assert.deepEqual(replayTrace(stopping, deadlock), { kind: 'reproduced', step: 2, property: 'Deadlock', recorded: 'Deadlock' });
  // Where the last state can still step (Sides is back), the recorded deadlock is not reached.
  assert.deepEqual(replayTrace(stops, deadlock), { kind: 'fits', steps: 3, recorded: 'Deadlock' });
});

test('replay: a trace without its "#meta" replays, with no recorded verdict', async () => {
  const trace = await counterexample(['top=9', 'fair=false'], { deadlock: false });
  const { '#meta': _meta, ...bare } = trace;
  assert.deepEqual(replayTrace(await modelOf(['top=9', 'fair=false']), bare as ItfTrace), { kind: 'reproduced', step: 6, property: 'Small', recorded: null });
});
