import { test } from 'node:test';
import assert from 'node:assert/strict';
import slowTree from '../../test/fixtures/slowSpec.ts';
import { simulate } from './simulate.ts';

const label = (params: Record<string, number | boolean>) => ({ spec: 'slow-tree', params });

test('simulate: --time-limit is heard at every step of a walk, not only between walks', async () => {
  // A walk of 20 steps, each 100 ms (two children of 50 ms): a limit heard only between walks stops at 2 s.
  const params = { levels: 20, spinMs: 50, width: 1, fanout: 2, quickLevels: 0, packed: false };
  const r = await simulate(slowTree.build(params), { seed: 1, runs: 100, maxDepth: 100, deadlock: false, timeLimitSeconds: 0.5 }, label(params));
  assert.equal(r.status === 'incomplete' && r.reason, 'timeLimit');
  assert.deepEqual([r.stats.runs, r.stats.steps < 20], [1, true]);
  assert.ok(r.stats.seconds < 1.5, `stopped ${r.stats.seconds.toFixed(2)} s after the start, for a limit of 0.5 s and walks of 2 s`);
});

test('simulate: a limit that comes while a counterexample is shrunk keeps the shortest walk found, and says shrinking stopped', async () => {
  // The walk to a leaf (a deadlock) takes 1 s; each try of the shrinker runs up to 10 steps of 50 ms again,
  // and every try fails (no shorter walk reaches a leaf), so shrinking would go on for seconds past the limit.
  const params = { levels: 10, spinMs: 50, width: 1, fanout: 2, quickLevels: 0, packed: false };
  const r = await simulate(slowTree.build(params), { seed: 1, runs: 100, maxDepth: 100, timeLimitSeconds: 1.5 }, label(params));
  assert.equal(r.status, 'violation');
  if (r.status !== 'violation') return;
  assert.deepEqual([r.kind, r.shrunkFrom, r.shrinkStoppedBy, r.trace.steps.length], ['deadlock', 10, 'timeLimit', 11]);
  assert.equal((r.trace.steps.at(-1)!.state as unknown as { level: number }).level, 10);
  assert.ok(r.stats.seconds < 5, `ended ${r.stats.seconds.toFixed(2)} s after the start, for a limit of 1.5 s`);
});
