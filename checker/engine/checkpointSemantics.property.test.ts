/**
 * A search stopped anywhere and resumed from its last checkpoint ends where an uninterrupted one does, on
 * random models over a layout (test/fixtures/randomLayoutSpec.ts) held to a plain search: the same distinct
 * and generated counts and depth, and where an invariant breaks, a counterexample as long as the shortest
 * path, rebuilt from the restored log. The run is stopped at a random --max-states with a checkpoint at
 * every level, by one thread, by 2 worker threads or by 2 owners, and resumed by one thread or 2 workers
 * (a checkpoint not partitioned) or by 1 or 3 owners (one that is), with states narrow and wide (their
 * levels stored as differences).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import randomLayout, { type State, brokenBy } from '../../test/fixtures/randomLayoutSpec.ts';
import { checkModel } from './check.ts';
import type { CheckOptions } from './options.ts';
import { plainSearch } from '../../test/fixtures/plainSearch.ts';

const modulePath = fileURLToPath(new URL('../../test/fixtures/randomLayoutSpec.ts', import.meta.url));
const immutableForm = (s: State) => s.toImmutable();

/** Who writes the checkpoint, and who may resume it. */
const WRITERS: readonly { readonly name: string; readonly options: Partial<CheckOptions>; readonly resumers: readonly { readonly name: string; readonly options: Partial<CheckOptions> }[] }[] = [
  { name: 'one thread', options: {}, resumers: [{ name: 'one thread', options: {} }, { name: '2 workers', options: { workers: 2, ownerThreadsFromDepth: 1 } }] },
  { name: '2 workers', options: { workers: 2, ownerThreadsFromDepth: 1 }, resumers: [{ name: 'one thread', options: {} }, { name: '3 workers', options: { workers: 3, ownerThreadsFromDepth: 1 } }] },
  { name: '2 owners', options: { owners: 2, ownerThreadsFromDepth: 1 }, resumers: [{ name: '1 owner', options: { owners: 1 } }, { name: '3 owners', options: { owners: 3, ownerThreadsFromDepth: 1 } }] },
];

const cases = fc.record({
  seed: fc.integer({ min: 0, max: 2 ** 31 }),
  steps: fc.integer({ min: 5, max: 9 }),
  wide: fc.boolean(),
  invariant: fc.boolean(),
  /** Where the first run stops, in hundredths of the states there are. */
  stopAt: fc.integer({ min: 20, max: 95 }),
  writer: fc.nat(),
  resumer: fc.nat(),
});

test('random specs with a layout, stopped at any --max-states and resumed from the last checkpoint by any engine: the counts and counterexample of a plain search', async () => {
  let resumed = 0;
  let resumedViolations = 0;
  await fc.assert(
    fc.asyncProperty(cases, async (c) => {
      const params = { seed: c.seed, steps: c.steps, wide: c.wide, invariant: c.invariant };
      const expected = plainSearch(randomLayout.build(params), { key: immutableForm, ...(c.invariant ? { bad: brokenBy } : {}) });
      const writer = WRITERS[c.writer % WRITERS.length]!;
      const resumer = writer.resumers[c.resumer % writer.resumers.length]!;
      const what = `${writer.name}, then ${resumer.name}: ${JSON.stringify(c)}`;
      const label = { spec: 'random-layout', params };
      const source = { modulePath, params };
      const dir = mkdtempSync(join(tmpdir(), 'kmc-checkpoint-property-'));
      try {
        const maxStates = Math.max(1, Math.floor((expected.distinct * c.stopAt) / 100));
        const stopped = await checkModel(randomLayout.build(params), { ...writer.options, deadlock: false, checkpointDirectory: dir, checkpointEverySeconds: 0, maxStates }, label, source);
        // A violation found before the budget ends the first run: nothing to resume. A budget spent inside the
        // first level leaves no level boundary to resume from: the run starts again.
        const resume = existsSync(join(dir, 'meta.json')) ? { resumeDirectory: dir, checkpointEverySeconds: 1e9 } : {};
        if (stopped.status === 'incomplete' && 'resumeDirectory' in resume) resumed++;
        const r = stopped.status === 'incomplete' ? await checkModel(randomLayout.build(params), { ...resumer.options, deadlock: false, ...resume }, label, source) : stopped;
        assert.equal(r.status, expected.badAt === undefined ? 'holds' : 'violation', what);
        assert.deepEqual([r.stats.distinct, r.stats.generated], [expected.distinct, expected.generated], what);
        if (expected.badAt === undefined) assert.equal(r.stats.depth, expected.depth, what);
        else {
          assert.equal('trace' in r ? r.trace?.steps.length : undefined, expected.badAt + 1, what);
          if (stopped !== r && 'resumeDirectory' in resume) resumedViolations++;
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }),
    { seed: 11, numRuns: process.env.KMC_SLOW ? 30 : 6 },
  );
  assert.ok(resumed >= (process.env.KMC_SLOW ? 15 : 3), `only ${resumed} runs resumed from a checkpoint`);
  if (process.env.KMC_SLOW) assert.ok(resumedViolations > 0, 'no resumed run found a violation');
});
