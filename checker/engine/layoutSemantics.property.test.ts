/**
 * A spec with a layout is checked as bytes: its states must be exactly the values their Immutable.js forms
 * tell apart, whatever order its sets, bags and maps were written in. Random models over a layout
 * (test/fixtures/randomLayoutSpec.ts) are searched by the checker and by a plain search that keeps each
 * state's Immutable.js form (`toImmutable()`). Distinct states, generated states, depth and each action's
 * coverage must agree: in one thread, under SYMMETRY (the checker permutes bytes through the layout, the
 * plain search renames the Immutable.js form), and with worker threads and owner threads, with states narrow and wide (stored as
 * differences in levels and batches), and with levels cut into chunks of a few states, in memory and
 * spilled to disk. Where an invariant breaks, every one of them stops where the plain search stops, with
 * the same counterexample.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import randomLayout, { type State, NarrowState, WideState, brokenBy } from '../../test/fixtures/randomLayoutSpec.ts';
import { checkModel } from './check.ts';
import { countsOf, plainSearch, stoppedPast, swapIds } from '../../test/fixtures/plainSearch.ts';

const modulePath = fileURLToPath(new URL('../../test/fixtures/randomLayoutSpec.ts', import.meta.url));
const label = { spec: 'random-layout', params: {} };
const immutableForm = (s: State) => s.toImmutable();
// The renamed form is written back through the layout: a bag's elements are kept in byte order, so a List
// renamed in place would not be the form the renamed state has.
const renamedFor = (wide: boolean) => (k: unknown) => (wide ? WideState : NarrowState).from(swapIds(k, 'b1', 'b2') as never).toImmutable();
const models = fc.record({ seed: fc.integer({ min: 0, max: 2 ** 31 }), steps: fc.integer({ min: 1, max: 9 }), wide: fc.boolean() });

test('random specs with a layout: the checker counts the states their Immutable.js forms tell apart, and under SYMMETRY their orbits', async () => {
  await fc.assert(
    fc.asyncProperty(models, async (params) => {
      const expected = plainSearch(randomLayout.build(params), { key: immutableForm, coverage: true });
      const one = await checkModel(randomLayout.build(params), stoppedPast(expected), label);
      assert.deepEqual(countsOf(one, true), expected, JSON.stringify(params));
      const symmetryExpected = plainSearch(randomLayout.build(params), { key: immutableForm, renamed: renamedFor(params.wide), coverage: true });
      const symmetric = await checkModel(randomLayout.build(params), { ...stoppedPast(symmetryExpected), symmetry: true }, label);
      assert.deepEqual(countsOf(symmetric, true), symmetryExpected, `SYMMETRY: ${JSON.stringify(params)}`);
    }),
    { seed: 9, numRuns: process.env.KMC_SLOW ? 200 : 30 },
  );
});

test('random specs with a layout, their levels in chunks of a few states, in memory and spilled to disk: the counts and counterexample of a plain search', async () => {
  let spilled = 0;
  await fc.assert(
    fc.asyncProperty(models, fc.integer({ min: 1, max: 5 }), fc.boolean(), async (base, perChunk, invariant) => {
      const params = { ...base, steps: Math.max(base.steps, 5), invariant };
      const expected = plainSearch(randomLayout.build(params), { key: immutableForm, ...(invariant ? { bad: brokenBy } : {}) });
      const width = (params.wide ? WideState : NarrowState).width;
      const dir = mkdtempSync(join(tmpdir(), 'kmc-spill-property-'));
      try {
        // A chunk of `perChunk` states (wide ones take less, as differences), and room for two of them in memory.
        const chunks = { frontierChunkBytes: perChunk * width, frontierMemoryBytes: 2 * perChunk * width, spillDirectory: dir };
        const r = await checkModel(randomLayout.build(params), { ...stoppedPast(expected), ...chunks }, label);
        const what = `${perChunk} a chunk: ${JSON.stringify(params)}`;
        assert.equal(r.status, expected.badAt === undefined ? 'holds' : 'violation', what);
        assert.deepEqual([r.stats.distinct, r.stats.generated], [expected.distinct, expected.generated], what);
        if (expected.badAt === undefined) assert.equal(r.stats.depth, expected.depth, what);
        else assert.equal('trace' in r ? r.trace?.steps.length : undefined, expected.badAt + 1, what);
        if (r.stats.spilledBytes > 0) spilled++;
        assert.deepEqual(readdirSync(dir), [], 'spill files are removed');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }),
    { seed: 9, numRuns: process.env.KMC_SLOW ? 200 : 25 },
  );
  // A level is looked at for spilling every 512 states expanded: only the larger specs, in the slow tier, get there.
  if (process.env.KMC_SLOW) assert.ok(spilled > 5, `only ${spilled} runs spilled`);
});

test('random specs with a layout: worker threads and owner threads count what one thread counts, with and without SYMMETRY', async () => {
  let run = 0;
  await fc.assert(
    fc.asyncProperty(models, async (params) => {
      const source = { modulePath, params };
      // Under SYMMETRY too: each thread keeps the least image of a state, so a state's owner is its orbit's.
      // (npm test: one of the two, in turn; the slow tier both.)
      for (const symmetry of process.env.KMC_SLOW ? [false, true] : [run++ % 2 === 1]) {
        const what = `${JSON.stringify(params)}${symmetry ? ' under SYMMETRY' : ''}`;
        const one = countsOf(await checkModel(randomLayout.build(params), { deadlock: false, symmetry }, label), true);
        const workers = await checkModel(randomLayout.build(params), { ...stoppedPast(one), symmetry, workers: 2, ownerThreadsFromDepth: 1 }, label, source);
        assert.deepEqual(countsOf(workers, true), one, `2 workers: ${what}`);
        const owners = await checkModel(randomLayout.build(params), { ...stoppedPast(one), symmetry, owners: 3, ownerThreadsFromDepth: 1 }, label, source);
        assert.deepEqual(countsOf(owners, true), one, `3 owners: ${what}`);
      }
    }),
    { seed: 9, numRuns: process.env.KMC_SLOW ? 12 : 3 },
  );
});

test('random specs with a layout and an invariant: one thread, worker threads and owner threads stop where a plain search stops, with one counterexample', async () => {
  let broken = 0;
  await fc.assert(
    fc.asyncProperty(models, fc.integer({ min: 5, max: 9 }), async (base, stepCount) => {
      // Five steps or more: about a third of these specs break the invariant.
      const params = { ...base, steps: stepCount, invariant: true };
      const expected = plainSearch(randomLayout.build(params), { key: immutableForm, bad: brokenBy });
      const source = { modulePath, params };
      const runs = [
        await checkModel(randomLayout.build(params), stoppedPast(expected), label),
        await checkModel(randomLayout.build(params), { ...stoppedPast(expected), workers: 2, ownerThreadsFromDepth: 1 }, label, source),
        await checkModel(randomLayout.build(params), { ...stoppedPast(expected), owners: 3, ownerThreadsFromDepth: 1 }, label, source),
      ];
      const steps = (r: (typeof runs)[number]) => ('trace' in r ? r.trace?.steps.map((s) => [s.action, s.params]) : undefined);
      if (expected.badAt !== undefined) broken++;
      for (const [i, r] of runs.entries()) {
        const what = `${['one thread', '2 workers', '3 owners'][i]}: ${JSON.stringify(params)}`;
        assert.equal(r.status, expected.badAt === undefined ? 'holds' : 'violation', what);
        assert.deepEqual([r.stats.distinct, r.stats.generated], [expected.distinct, expected.generated], what);
        if (expected.badAt !== undefined) assert.equal(steps(r)?.length, expected.badAt + 1, what);
        assert.deepEqual(steps(r), steps(runs[0]!), what);
      }
    }),
    { seed: 9, numRuns: process.env.KMC_SLOW ? 16 : 6 },
  );
  assert.ok(broken > 0, `only ${broken} of the random specs broke the invariant`);
});
