import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import slowTree from '../../../test/fixtures/slowSpec.ts';
import twoPhaseImmutable from '../../../spec/twophase/twoPhaseImmutable.ts';
import { checkModel } from '../check.ts';

const modulePath = fileURLToPath(new URL('../../../test/fixtures/slowSpec.ts', import.meta.url));

for (const packed of [false, true]) {
  test(`${packed ? 'packed' : 'Immutable.js'} states, 2 workers: --time-limit stops the search inside a level, not after it`, async () => {
    // 4,096 roots, two quick levels below them, then 16,384 states whose steps take 10 ms: expanding that
    // level takes 80 s on two workers, and a chunk of it as the packed search first cuts it (1,024 states)
    // 10 s. A search that looked at the clock only between levels, or between whole chunks, would run
    // that far past the limit whatever the machine's load; one that checks inside them stops soon after it.
    const params = { levels: 3, width: 4096, fanout: 2, quickLevels: 2, spinMs: 10, packed };
    const limit = 2;
    const r = await checkModel(slowTree.build(params), { timeLimitSeconds: limit, workers: 2, parallelFromStates: 0, deadlock: false }, { spec: 'slow-tree', params }, { modulePath, params });
    assert.equal(r.status === 'incomplete' && r.reason, 'timeLimit');
    assert.equal(r.stats.workers, 2);
    assert.ok(r.stats.seconds < 6, `stopped ${r.stats.seconds.toFixed(2)} s after the start, for a limit of ${limit} s`);
    // The Immutable.js search stops with the counts of its last whole level: the roots and two levels below,
    // or one on a machine so loaded that the limit comes while the workers still make the second level's states.
    if (!packed) assert.ok([4096 * 7, 4096 * 3].includes(r.stats.distinct), `${r.stats.distinct} states: not a whole number of levels`);
  });
}

test('Immutable.js states, 2 workers: --time-limit stops the search while the workers make and check a level\'s new states, with the counts of the last whole level', async () => {
  // 4,000 roots, each with a chain of two children, the second's invariant taking 10 ms: the first levels
  // are quick, checking the last takes 20 s on two workers. The search once waited for the whole check, far
  // past its limit. The limit leaves the threads time to load the model (the search hands over once they have).
  const params = { levels: 2, width: 4000, fanout: 1, quickLevels: 0, spinMs: 0, checkMs: 10, packed: false };
  const limit = 5;
  const r = await checkModel(slowTree.build(params), { timeLimitSeconds: limit, workers: 2, parallelFromStates: 0, deadlock: false }, { spec: 'slow-tree', params }, { modulePath, params });
  assert.equal(r.status === 'incomplete' && r.reason, 'timeLimit');
  assert.equal(r.stats.workers, 2);
  assert.ok(r.stats.seconds < limit + 4, `stopped ${r.stats.seconds.toFixed(2)} s after the start, for a limit of ${limit} s`);
  assert.deepEqual([r.stats.distinct, r.stats.generated, r.stats.depth], [8000, 8000, 2]);
  assert.deepEqual(
    r.stats.coverage.map((c) => [c.action, c.enabled, c.fired, c.newStates]),
    [['Down', 4000, 4000, 4000]],
  );
});

test('2 owner threads: --time-limit stops the level under way, with the counts of the last whole level', async () => {
  const params = { levels: 2, width: 4000, fanout: 1, quickLevels: 1, spinMs: 10, packed: true };
  const limit = 2;
  const r = await checkModel(slowTree.build(params), { timeLimitSeconds: limit, owners: 2, deadlock: false }, { spec: 'slow-tree', params }, { modulePath, params });
  assert.equal(r.status === 'incomplete' && r.reason, 'timeLimit');
  assert.equal(r.stats.owners, 2);
  // An owner looks at the clock every few states, not every 256 (2.6 s of this model's steps): it once stopped 10 s in.
  assert.ok(r.stats.seconds < 8, `stopped ${r.stats.seconds.toFixed(2)} s after the start, for a limit of ${limit} s and a level of 20 s`);
  assert.deepEqual([r.stats.distinct, r.stats.depth], [8000, 2]);
});

test('Immutable.js states, 2 workers, a thread that never loads the model: the search stays in one thread, to the counts and counterexample of one thread', { timeout: 30_000 }, async () => {
  // The threads start with the search and it hands over once they are ready: the coordinator once waited
  // for them at the hand-over, so a thread that never loaded held the search forever, past --time-limit.
  const neverLoads = fileURLToPath(new URL('../../../test/fixtures/neverLoads.ts', import.meta.url));
  // It waits for the threads at the hand-over (past 100 states here; 5 s by default, half a second here), then goes on alone.
  const params = { rm: 5, bug: 'none' };
  const r = await checkModel(twoPhaseImmutable.build(params), { timeLimitSeconds: 20, workers: 2, parallelFromStates: 100, threadsLoadWaitMs: 500 }, { spec: 'twophase', params }, { modulePath: neverLoads, params });
  const one = await checkModel(twoPhaseImmutable.build(params), {}, { spec: 'twophase', params });
  assert.deepEqual([r.status, r.stats.workers, r.stats.distinct, r.stats.generated, r.stats.depth], ['holds', 1, 8832, one.stats.generated, one.stats.depth]);
  assert.deepEqual(r.stats.coverage, one.stats.coverage);
});
