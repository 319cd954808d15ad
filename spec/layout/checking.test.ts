import { test } from 'node:test';
import assert from 'node:assert/strict';
import { layout as L } from './index.ts';
import { checkModel } from '../../checker/engine/check.ts';
import { always } from '../../invariants/property.ts';
import { toItf } from '../../traces/itf/write.ts';
import type { Model } from '../spec.ts';

const Counter = L.record('Counter', { n: L.int(0, 2), log: L.list(L.int(0, 9), 2) });
type Counter = ReturnType<typeof Counter.from>;

test('a write outside the layout is a spec error naming the field, with the trace that led there', async () => {
  const model: Model<Counter> = {
    layout: Counter,
    init: () => [Counter.from({ n: 0, log: [] })],
    actions: [{ name: 'Inc', next: (s) => s.update('n', (n) => n + 1) }],
    properties: [always<Counter>('True', 'holds', () => true)],
  };
  const r = await checkModel(model, {}, { spec: 'counter', params: {} });
  assert.equal(r.status, 'error');
  assert.ok(r.status === 'error', `expected an error, got ${r.status}`);
  assert.match(r.message, /Inc: effect threw: n: 3 is out of bounds \(an integer in 0\.\.2\)/);
  assert.deepEqual(r.trace!.steps.map((s) => s.action), ['Init', 'Inc', 'Inc']);
  const itf = toItf(r.trace!);
  assert.deepEqual(itf.vars.filter((v) => !v.startsWith('mbt::')), ['n', 'log']);
  assert.deepEqual(itf.states.map((s) => s.n), [0, 1, 2].map((n) => ({ '#bigint': String(n) })));
  assert.deepEqual(itf.states[0]!.log, []);
});
