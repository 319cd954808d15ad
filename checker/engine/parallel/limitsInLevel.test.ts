import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import slowTree from '../../../test/fixtures/slowSpec.ts';
import { checkModel } from '../check.ts';

const modulePath = fileURLToPath(new URL('../../../test/fixtures/slowSpec.ts', import.meta.url));

for (const packed of [false, true]) {
  test(`${packed ? 'packed' : 'Immutable.js'} states, 2 workers: --time-limit stops the search inside a level, not after it`, async () => {
    // Each step takes 10 ms and level k has 2^k states: levels 8, 9 and 10 take about 2.6, 5 and 10 s
    // of CPU, so a search that only looked at the clock between levels would run seconds past the limit.
    const params = { levels: 14, spinMs: 10, packed };
    const limit = 6;
    const r = await checkModel(slowTree.build(params), { timeLimitSeconds: limit, workers: 2, parallelFromStates: 60, deadlock: false }, { spec: 'slow-tree', params }, { modulePath, params });
    assert.equal(r.status === 'incomplete' && r.reason, 'timeLimit');
    assert.equal(r.stats.workers, 2);
    assert.ok(r.stats.seconds < limit + 1, `stopped ${r.stats.seconds.toFixed(2)} s after the start, for a limit of ${limit} s`);
    // The Immutable.js search stops with the counts of its last whole level: a full tree, 2^(k+1) - 1 states.
    if (!packed) assert.equal(Number.isInteger(Math.log2(r.stats.distinct + 1)), true, `${r.stats.distinct} states`);
  });
}
