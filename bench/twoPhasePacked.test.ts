import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkModel } from '../checker/engine/check.ts';
import twoPhase from '../spec/twophase/twoPhase.ts';
import twoPhasePacked from './twoPhasePacked.ts';

// The bench compares this model with the bundled spec: it is a fair comparison only while both reach the same states.
test('TwoPhase packed by hand into numbers reaches what the bundled layout reaches', async () => {
  for (const rm of [2, 3, 4]) {
    const label = { spec: 'twophase', params: { rm } };
    const byHand = await checkModel(twoPhasePacked.build({ rm }), {}, label);
    const layout = await checkModel(twoPhase.build({ rm, bug: 'none' }), {}, label);
    assert.equal(byHand.status, 'holds');
    assert.equal(layout.status, 'holds');
    assert.deepEqual(
      [byHand.stats.distinct, byHand.stats.generated, byHand.stats.depth],
      [layout.stats.distinct, layout.stats.generated, layout.stats.depth],
    );
  }
});
