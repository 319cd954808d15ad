import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import slowTree from '../../test/fixtures/slowSpec.ts';
import twoPhaseImmutable from '../../spec/twophase/twoPhaseImmutable.ts';
import { checkModel } from './check.ts';

const modulePath = fileURLToPath(new URL('../../test/fixtures/slowSpec.ts', import.meta.url));

test('one thread, breadth- and depth-first: --time-limit stops a spec of slow steps within a few states of it, not 512', async () => {
  // Each state expanded takes 10 ms (two steps of 5 ms): a search that looked at its limits every 512
  // states alone ran 5 s past a limit of half a second, and told the watchdog nothing meanwhile.
  for (const packed of [true, false]) {
    for (const strategy of ['bfs', 'dfs'] as const) {
      const params = { levels: 12, width: 1, fanout: 2, quickLevels: 0, spinMs: 5, packed };
      const r = await checkModel(slowTree.build(params), { timeLimitSeconds: 0.5, workers: 1, strategy, deadlock: false }, { spec: 'slow-tree', params });
      assert.equal(r.status === 'incomplete' && r.reason, 'timeLimit', `${strategy}, packed ${packed}`);
      assert.ok(r.stats.seconds < 1.5, `${strategy}, packed ${packed}: stopped ${r.stats.seconds.toFixed(2)} s after the start, for a limit of 0.5 s`);
      assert.ok(r.stats.distinct > 5 && r.stats.distinct < 200, `${strategy}, packed ${packed}: ${r.stats.distinct} states in about half a second of 10 ms expansions`);
    }
  }
});

test('2 workers: --time-limit stops the search inside a level, not after it', async () => {
  // 4,096 roots, two quick levels below them, then 16,384 states whose steps take 10 ms: expanding that
  // level takes 80 s on two workers. A search that looked at the clock only between levels would run
  // that far past the limit whatever the machine's load; one that checks inside them stops soon after it.
  const params = { levels: 3, width: 4096, fanout: 2, quickLevels: 2, spinMs: 10, packed: true };
  const limit = 2;
  const r = await checkModel(slowTree.build(params), { timeLimitSeconds: limit, workers: 2, ownerThreadsFromDepth: 1, deadlock: false }, { spec: 'slow-tree', params }, { modulePath, params });
  assert.equal(r.status === 'incomplete' && r.reason, 'timeLimit');
  assert.equal(r.stats.workers, 2);
  assert.ok(r.stats.seconds < 6, `stopped ${r.stats.seconds.toFixed(2)} s after the start, for a limit of ${limit} s`);
});

test('2 workers: --time-limit stops the search while the workers check a level\'s new states', async () => {
  // 4,000 roots, each with a chain of two children, the second's invariant taking 10 ms: the first levels
  // are quick, checking the last takes 20 s on two workers (an owner checks its new states once they are
  // all in: it once did so in one piece, and stopped 20 s past the limit).
  const params = { levels: 2, width: 4000, fanout: 1, quickLevels: 0, spinMs: 0, checkMs: 10, packed: true };
  const limit = 3;
  const r = await checkModel(slowTree.build(params), { timeLimitSeconds: limit, workers: 2, ownerThreadsFromDepth: 1, deadlock: false }, { spec: 'slow-tree', params }, { modulePath, params });
  assert.equal(r.status === 'incomplete' && r.reason, 'timeLimit');
  assert.equal(r.stats.workers, 2);
  assert.ok(r.stats.seconds < limit + 3, `stopped ${r.stats.seconds.toFixed(2)} s after the start, for a limit of ${limit} s`);
  assert.ok(r.stats.distinct >= 8000 && r.stats.distinct < 12000, `${r.stats.distinct} states: the last level is the one under way`);
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

test('Immutable.js states, --workers 2: one thread, to the counts of one thread, and a warning says why', async () => {
  // Worker threads share out packed states only (check.ts, unusedWorkers): the module they would load the
  // model from never loads, so a search that started threads for these states would not end.
  const neverLoads = fileURLToPath(new URL('../../test/fixtures/neverLoads.ts', import.meta.url));
  const params = { rm: 5, bug: 'none' };
  const warnings: string[] = [];
  const r = await checkModel(twoPhaseImmutable.build(params), { timeLimitSeconds: 20, workers: 2, onWarning: (line) => warnings.push(line) }, { spec: 'twophase', params }, { modulePath: neverLoads, params });
  const one = await checkModel(twoPhaseImmutable.build(params), {}, { spec: 'twophase', params });
  assert.deepEqual([r.status, r.stats.workers, r.stats.distinct, r.stats.generated, r.stats.depth], ['holds', 1, 8832, one.stats.generated, one.stats.depth]);
  assert.deepEqual(r.stats.coverage, one.stats.coverage);
  assert.deepEqual(warnings, [
    '--workers 2 is not used: twophase is searched in one thread, because its states are not the bytes of a declared layout (worker threads share out packed states only; docs/layouts.md says how to declare one).',
  ]);
});
