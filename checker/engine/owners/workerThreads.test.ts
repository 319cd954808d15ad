import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import twoPhase from '../../../spec/twophase/twoPhase.ts';
import propertyThrows from '../../../test/fixtures/propertyThrows.ts';
import actionThrows from '../../../test/fixtures/actionThrows.ts';
import { checkModel } from '../check.ts';

const label = { spec: 'test', params: {} };
const twoPhaseModule = fileURLToPath(new URL('../../../spec/twophase/twoPhase.ts', import.meta.url));
const neverLoads = fileURLToPath(new URL('../../../test/fixtures/neverLoads.ts', import.meta.url));
const propertyThrowsModule = fileURLToPath(new URL('../../../test/fixtures/propertyThrows.ts', import.meta.url));
const actionThrowsModule = fileURLToPath(new URL('../../../test/fixtures/actionThrows.ts', import.meta.url));

test('--workers 2 with a worker thread that never loads: the driver\'s thread keeps its part, and the search ends with the counts of one thread', async () => {
  for (const bug of ['none', 'tmCommitEarly']) {
    const params = { rm: 5, bug };
    const one = await checkModel(twoPhase.build(params), {}, label);
    const two = await checkModel(twoPhase.build(params), { workers: 2 }, label, { modulePath: neverLoads, params });
    assert.equal(two.stats.workers, 2);
    assert.deepEqual(two.stats.ownership?.threadsJoined, [null, null]);
    assert.equal(two.status, one.status);
    assert.deepEqual([two.stats.distinct, two.stats.generated, two.stats.depth], [one.stats.distinct, one.stats.generated, one.stats.depth]);
    assert.deepEqual(two.stats.coverage, one.stats.coverage);
    assert.deepEqual('trace' in two ? two.trace?.steps.map((s) => s.action) : [], 'trace' in one ? one.trace?.steps.map((s) => s.action) : []);
  }
});

test('--workers 2 by default: the thread takes its part once it has loaded the model, and the counts, coverage and witnesses are those of one thread', async () => {
  // TwoPhase rm=6: 50,816 states; the levels past the first few are searched by the driver's thread and the other.
  const params = { rm: 6, bug: 'none' };
  const one = await checkModel(twoPhase.build(params), {}, label);
  const two = await checkModel(twoPhase.build(params), { workers: 2 }, label, { modulePath: twoPhaseModule, params });
  assert.deepEqual([two.status, two.stats.distinct, two.stats.generated, two.stats.depth], ['holds', 50816, one.stats.generated, one.stats.depth]);
  assert.deepEqual(two.stats.coverage, one.stats.coverage);
  assert.deepEqual('witnesses' in two ? two.witnesses : null, 'witnesses' in one ? one.witnesses : null);
  // Whether the thread loaded the model in time to take its part depends on the machine's load: the counts do not.
  assert.equal(two.stats.ownership?.threadsJoined?.[0], null);
});

test('a property that throws ends the search with the one-thread counts and coverage, whatever the number of workers', async () => {
  const params = { rm: 5 };
  const one = await checkModel(propertyThrows.build(params), {}, label);
  assert.equal(one.status, 'error');
  for (const workers of [2, 3]) {
    const many = await checkModel(propertyThrows.build(params), { workers, ownerThreadsFromDepth: 1 }, label, { modulePath: propertyThrowsModule, params });
    assert.equal(many.stats.workers, workers);
    assert.equal(many.status, 'error');
    assert.equal('message' in many && many.message, 'message' in one && one.message);
    assert.deepEqual([many.stats.distinct, many.stats.generated, many.stats.depth], [one.stats.distinct, one.stats.generated, one.stats.depth]);
    assert.deepEqual(many.stats.coverage, one.stats.coverage);
  }
});

test('a search that stops inside a level has the coverage of one thread up to its stop: an action that throws, --max-states', async () => {
  // Each owner counts its parents' coverage up to the stop (Owner.cut), including parents it claimed from another.
  const params = { rm: 5 };
  const cases = [
    { spec: actionThrows, modulePath: actionThrowsModule, options: {}, status: 'error' },
    { spec: twoPhase, modulePath: twoPhaseModule, options: { maxStates: 3000 }, status: 'incomplete' },
  ] as const;
  for (const c of cases) {
    const one = await checkModel(c.spec.build(params), c.options, label);
    assert.equal(one.status, c.status);
    for (const workers of [2, 3]) {
      const many = await checkModel(c.spec.build(params), { ...c.options, workers, ownerThreadsFromDepth: 1 }, label, { modulePath: c.modulePath, params });
      assert.equal(many.status, c.status);
      assert.deepEqual([many.stats.distinct, many.stats.generated, many.stats.depth], [one.stats.distinct, one.stats.generated, one.stats.depth], `${c.status}, ${workers} workers`);
      assert.deepEqual(many.stats.coverage, one.stats.coverage, `${c.status}, ${workers} workers`);
    }
  }
});
