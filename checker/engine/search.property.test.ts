import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import graphSpec, { randomGraph } from '../../test/fixtures/graphSpec.ts';
import { checkModel } from './check.ts';
import { replayTrace } from './replay.ts';
import { toItf } from '../../traces/itf/write.ts';

const modulePath = fileURLToPath(new URL('../../test/fixtures/graphSpec.ts', import.meta.url));
const label = { spec: 'graph', params: {} };
/** The worker properties start thread pools per run: the fast tier tries fewer graphs, the slow tier (KMC_SLOW=1) more. */
const workerRuns = (slow: number) => (process.env.KMC_SLOW ? slow : 3);

/** Shortest distances from the initial nodes, computed independently of the checker. */
function distances(p: { seed: number; nodes: number; degree: number; inits: number }): Map<number, number> {
  const edges = randomGraph(p.seed, p.nodes, p.degree);
  const dist = new Map<number, number>();
  let frontier = [...new Set(Array.from({ length: p.inits }, (_, i) => i % p.nodes))];
  frontier.forEach((n) => dist.set(n, 0));
  for (let d = 1; frontier.length > 0; d++) {
    const next: number[] = [];
    for (const n of frontier) for (const m of edges[n]!) if (!dist.has(m)) (dist.set(m, d), next.push(m));
    frontier = next;
  }
  return dist;
}

const graphs = fc.record({
  seed: fc.integer({ min: 0, max: 1e6 }),
  nodes: fc.integer({ min: 1, max: 60 }),
  degree: fc.integer({ min: 0, max: 4 }),
  inits: fc.integer({ min: 1, max: 3 }),
});

test('BFS and DFS reach exactly the reachable set', async () => {
  await fc.assert(
    fc.asyncProperty(graphs, async (g) => {
      const params = { ...g, bad: -1 };
      const expected = distances(g).size;
      const bfs = await checkModel(graphSpec.build(params), { deadlock: false }, label);
      const dfs = await checkModel(graphSpec.build(params), { deadlock: false, strategy: 'dfs' }, label);
      assert.equal(bfs.stats.distinct, expected);
      assert.equal(dfs.stats.distinct, expected);
    }),
    { numRuns: 60 },
  );
});

test('the BFS counterexample is a shortest path to the bad state, and it replays', async () => {
  await fc.assert(
    fc.asyncProperty(graphs, fc.nat(), async (g, pick) => {
      const dist = distances(g);
      const reachable = [...dist.keys()];
      const bad = reachable[pick % reachable.length]!;
      const params = { ...g, bad };
      const r = await checkModel(graphSpec.build(params), { deadlock: false }, { spec: 'graph', params });
      assert.equal(r.status, 'violation');
      assert.equal(r.trace!.steps.length - 1, dist.get(bad));
      const replay = replayTrace(graphSpec.build(params), toItf(r.trace!));
      assert.deepEqual(replay, { kind: 'reproduced', step: dist.get(bad), property: 'NotBad', recorded: 'NotBad' });
    }),
    { numRuns: 60 },
  );
});

test('worker threads give the same counts, coverage and trace as one thread (packed states: worker threads share out no others)', async () => {
  await fc.assert(
    fc.asyncProperty(graphs, fc.nat(), fc.boolean(), async (g, pick, withBad) => {
      const reachable = [...distances(g).keys()];
      const params = { ...g, nodes: g.nodes * 20, bad: withBad ? reachable[pick % reachable.length]! : -1, packed: true };
      const source = { modulePath, params };
      const one = await checkModel(graphSpec.build(params), { deadlock: true }, label);
      const two = await checkModel(graphSpec.build(params), { deadlock: true, workers: 2, ownerThreadsFromDepth: 1 }, label, source);
      const three = await checkModel(graphSpec.build(params), { deadlock: true, workers: 3, ownerThreadsFromDepth: 3 }, label, source);
      for (const r of [two, three]) {
        assert.equal(r.status, one.status);
        assert.equal(r.stats.distinct, one.stats.distinct);
        assert.equal(r.stats.generated, one.stats.generated);
        assert.equal(r.stats.depth, one.stats.depth);
        assert.deepEqual(r.stats.coverage, one.stats.coverage);
        const paramsOf = (x: typeof one) => ('trace' in x ? x.trace?.steps.map((s) => s.params) : undefined);
        assert.deepEqual(paramsOf(r), paramsOf(one));
      }
    }),
    { numRuns: workerRuns(6) },
  );
});

test('packed states: worker threads stop at the same violation, with the same counts, as one thread', async () => {
  await fc.assert(
    fc.asyncProperty(graphs, fc.nat(), async (g, pick) => {
      const reachable = [...distances(g).keys()];
      const params = { ...g, nodes: g.nodes * 20, bad: reachable[pick % reachable.length]!, packed: true };
      const source = { modulePath, params };
      const one = await checkModel(graphSpec.build(params), { deadlock: false }, label);
      for (const workers of [1, 2, 3]) {
        const r = await checkModel(graphSpec.build(params), { deadlock: false, workers, ownerThreadsFromDepth: 1 }, label, source);
        assert.equal(r.status, one.status);
        assert.equal(r.stats.distinct, one.stats.distinct);
        assert.equal(r.stats.generated, one.stats.generated);
        assert.deepEqual(r.stats.coverage, one.stats.coverage);
        assert.deepEqual('witnesses' in r ? r.witnesses : [], 'witnesses' in one ? one.witnesses : []);
      }
    }),
    { numRuns: workerRuns(8) },
  );
});
