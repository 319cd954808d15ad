import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkModel } from './check.ts';
import { always } from '../../invariants/property.ts';
import type { Model } from '../../spec/spec.ts';

const label = { spec: 'test', params: {} };

/**
 * From 0: Stay (0, the same state), Step by 1, 2 and 3, then Jump by 10. The property throws on 2,
 * the second successor of Step.
 */
function throwsOnSecondStep(): Model<number> {
  return {
    init: () => [0],
    actions: [
      { name: 'Stay', next: (s) => s },
      { name: 'Step', params: () => [{ d: 1 }, { d: 2 }, { d: 3 }], next: (s, { d }) => s + (d as number) },
      { name: 'Jump', next: (s) => s + 10 },
    ],
    properties: [
      always<number>('Small', 'the property throws on 2', (s) => {
        if (s === 2) throw new Error('no property for 2');
        return s < 100;
      }),
    ],
  };
}

test('a property throwing at a successor leaves the counts of a search that stopped right there', async () => {
  // Successors are looked up after their state is expanded whole, but the error must read as if the
  // search had stopped at the successor: Stay, Step 1 and Step 2 generated (and the initial state);
  // Stay's coverage counted, Step's not (its parameters were not all tried), Jump never run.
  const r = await checkModel(throwsOnSecondStep(), {}, label);
  assert.equal(r.status, 'error');
  assert.match(r.status === 'error' ? r.message : '', /property Small threw: no property for 2/);
  assert.equal(r.stats.generated, 4);
  assert.equal(r.stats.distinct, 3);
  assert.deepEqual(
    r.stats.coverage.map(({ action, enabled, fired, newStates }) => ({ action, enabled, fired, newStates })),
    [
      { action: 'Stay', enabled: 1, fired: 1, newStates: 0 },
      { action: 'Step', enabled: 0, fired: 0, newStates: 2 },
      { action: 'Jump', enabled: 0, fired: 0, newStates: 0 },
    ],
  );
  assert.deepEqual(r.trace?.steps.map((s) => s.action), ['Init', 'Step']);
});
