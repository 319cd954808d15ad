import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import twoPhase from '../../../spec/twophase/twoPhase.ts';
import type { Model } from '../../../spec/spec.ts';
import { toItf } from '../../../traces/itf/write.ts';
import { simulate } from '../simulate.ts';
import { runsPerWorker, simulateSwarm, swarmSeeds } from './swarm.ts';

const modulePath = fileURLToPath(new URL('../../../spec/twophase/twoPhase.ts', import.meta.url));
const label = (params: { rm: number; bug: string }) => ({ spec: 'twophase', params });
/** The tests that wait out a time limit and a grace by design run in the slow tier. */
const waits = process.env.KMC_SLOW ? false : 'waits out a time limit and its grace: set KMC_SLOW=1 (npm run test:slow)';

test('the swarm shares out the runs and derives one seed per worker, the first being the seed given', () => {
  assert.deepEqual(runsPerWorker(1000, 2), [500, 500]);
  assert.deepEqual(runsPerWorker(10, 3), [4, 3, 3]);
  const seeds = swarmSeeds(42, 4);
  assert.equal(seeds[0], 42);
  assert.equal(new Set(seeds).size, 4);
  assert.deepEqual(swarmSeeds(42, 4), seeds, 'the same seed gives the same swarm');
  assert.notDeepEqual(swarmSeeds(43, 4).slice(1), seeds.slice(1));
});

test('each worker of a swarm walks exactly as one thread does from its printed seed', async () => {
  const params = { rm: 3, bug: 'none' };
  const swarm = await simulateSwarm(twoPhase.build(params) as Model<unknown>, { modulePath, params }, { seed: 0x5eed, runs: 60, maxDepth: 30, workers: 2 }, label(params));
  assert.equal(swarm.status, 'holds');
  assert.equal(swarm.winner, null);
  assert.deepEqual(
    swarm.walks.map((w) => [w.seed, w.runs]),
    [
      [0x5eed, 30],
      [swarmSeeds(0x5eed, 2)[1], 30],
    ],
  );
  for (const w of swarm.walks) {
    const alone = await simulate(twoPhase.build(params), { seed: w.seed, runs: w.runs, maxDepth: 30 }, label(params));
    assert.equal(alone.status, 'holds');
    assert.deepEqual([w.outcome.stats.runs, w.outcome.stats.steps, w.outcome.stats.distinct], [alone.stats.runs, alone.stats.steps, alone.stats.distinct]);
  }
  // Different seeds walk differently.
  assert.notEqual(swarm.walks[0]!.outcome.stats.steps + swarm.walks[0]!.outcome.stats.distinct * 1e6, swarm.walks[1]!.outcome.stats.steps + swarm.walks[1]!.outcome.stats.distinct * 1e6);
});

test('two workers find the planted two-phase bug, and the seed printed with it replays the same trace in one thread', async () => {
  const params = { rm: 3, bug: 'tmCommitEarly' };
  const swarm = await simulateSwarm(twoPhase.build(params) as Model<unknown>, { modulePath, params }, { seed: 7, runs: 200, maxDepth: 100, workers: 2 }, label(params));
  assert.equal(swarm.status, 'violation');
  const found = swarm.walks[swarm.winner!]!;
  assert.equal(found.outcome.status === 'violation' && found.outcome.property, 'TCConsistent');
  const alone = await simulate(twoPhase.build(params), { seed: found.seed, runs: found.runs, maxDepth: 100 }, label(params));
  assert.equal(alone.status, 'violation');
  assert.deepEqual(found.outcome.status === 'violation' && found.outcome.trace, alone.status === 'violation' && toItf(alone.trace));
  assert.equal(found.outcome.stats.runs, alone.stats.runs);
});

test("a swarm's finding is the first in the order (run, walk), the same on every run of one seed, and every other walk's figures stop exactly where that finding bounds them", async () => {
  // Alone, the three walks of seed 1 first break TCConsistent in their runs 31, 9 and 23.
  const params = { rm: 4, bug: 'tmCommitEarly' };
  const options = { seed: 1, runs: 300, maxDepth: 6, workers: 3 };
  const alone = (i: number, runs: number) => simulate(twoPhase.build(params), { seed: swarmSeeds(1, 3)[i]!, runs, maxDepth: 6 }, label(params));
  const firstFound = await Promise.all([0, 1, 2].map(async (i) => (await alone(i, 100)).stats.runs - 1));
  assert.deepEqual(firstFound, [31, 9, 23]);
  const winner = await alone(1, 100);
  const shown = new Set<string>();
  for (let k = 0; k < 2; k++) {
    const swarm = await simulateSwarm(twoPhase.build(params) as Model<unknown>, { modulePath, params }, options, label(params));
    assert.equal(swarm.winner, 1);
    const found = swarm.walks[1]!.outcome;
    assert.deepEqual(found.status === 'violation' && found.trace, winner.status === 'violation' && toItf(winner.trace));
    assert.equal(found.stats.runs, 10);
    // Walk 0 may run up to run 9 (it comes before walk 1 in each run), walk 2 up to run 8: as if each ran that many alone.
    for (const [i, runs] of [[0, 10], [2, 9]] as const) {
      const w = swarm.walks[i]!.outcome;
      const bounded = await alone(i, runs);
      assert.equal(bounded.status, 'holds');
      assert.deepEqual([w.status, w.status === 'incomplete' && w.reason, w.stats.runs, w.stats.steps, w.stats.distinct], ['incomplete', 'interrupted', runs, bounded.stats.steps, bounded.stats.distinct]);
      assert.equal('runStarts' in w.stats, false);
    }
    shown.add(JSON.stringify(swarm.walks.map((w) => [w.outcome.status, w.outcome.stats.runs, w.outcome.stats.steps, w.outcome.stats.distinct])));
  }
  assert.equal(shown.size, 1);
});

test('walks that find a violation in the same run: the first walk wins, whichever thread is faster', async () => {
  // Alone, the walks of seed 3 (depth 8) first break TCConsistent in runs 0, 1 and 0.
  const params = { rm: 4, bug: 'tmCommitEarly' };
  {
    const swarm = await simulateSwarm(twoPhase.build(params) as Model<unknown>, { modulePath, params }, { seed: 3, runs: 300, maxDepth: 8, workers: 3 }, label(params));
    assert.equal(swarm.winner, 0);
    assert.deepEqual(
      swarm.walks.map((w) => [w.outcome.status, w.outcome.stats.runs]),
      [
        // Walk 1 comes after walk 0 in run 0, so it runs nothing that could come first.
        ['violation', 1],
        ['incomplete', 0],
        ['incomplete', 0],
      ],
    );
  }
});

test('a swarm whose threads never load the model ends at its --time-limit, each walk incomplete with nothing run', { skip: waits, timeout: 30_000 }, async () => {
  // Each walk keeps its own time limit, so a thread that never loaded once held the swarm forever.
  const neverLoads = fileURLToPath(new URL('../../../test/fixtures/neverLoads.ts', import.meta.url));
  const params = { rm: 3, bug: 'none' };
  const swarm = await simulateSwarm(twoPhase.build(params) as Model<unknown>, { modulePath: neverLoads, params }, { seed: 1, runs: 100, maxDepth: 30, workers: 2, timeLimitSeconds: 1 }, label(params));
  assert.equal(swarm.status, 'incomplete');
  assert.ok(swarm.seconds < 10, `ended ${swarm.seconds.toFixed(1)} s after the start, for a limit of 1 s`);
  assert.deepEqual(
    swarm.walks.map((w) => [w.outcome.status, w.outcome.status === 'incomplete' && w.outcome.reason, w.outcome.stats.runs]),
    [
      ['incomplete', 'timeLimit', 0],
      ['incomplete', 'timeLimit', 0],
    ],
  );
});

test('a walk that finds a violation before --time-limit keeps it, though its trace takes longer than the grace to build', { skip: waits, timeout: 60_000 }, async () => {
  // Walks of 12 steps of 2 x 100 ms (the first made twice, to find a spec that is not deterministic) reach a
  // leaf (a deadlock) at 2.6 s, 0.8 s before the limit (a loaded machine slows the walk); shrinking stops at the limit, and the trace takes seconds more to rebuild: a
  // swarm that gave up on every walk 2 s past the limit lost it.
  const slow = fileURLToPath(new URL('../../../test/fixtures/slowSpec.ts', import.meta.url));
  const params = { levels: 12, spinMs: 100, width: 1, fanout: 2, quickLevels: 0, packed: false };
  const model = (await import('../../../test/fixtures/slowSpec.ts')).default.build(params) as Model<unknown>;
  const swarm = await simulateSwarm(model, { modulePath: slow, params }, { seed: 5, runs: 4, maxDepth: 100, workers: 2, timeLimitSeconds: 3.4 }, { spec: 'slow-tree', params });
  assert.equal(swarm.status, 'violation');
  const shown = swarm.walks[swarm.winner!]!.outcome;
  assert.deepEqual(shown.status === 'violation' && [shown.kind, shown.trace.states.length, shown.shrinkStoppedBy], ['deadlock', 13, 'timeLimit']);
  assert.ok(swarm.seconds > 5.4, `the trace came ${swarm.seconds.toFixed(1)} s after the start: the test no longer passes the old grace`);
});
