import { test } from 'node:test';
import { Map as ImmutableMap } from 'immutable';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import assert from 'node:assert/strict';
import twoPhase, { resourceManagers, type TwoPhaseState } from '../../../spec/twophase/twoPhase.ts';
import propertyThrows from '../../../test/fixtures/propertyThrows.ts';
import actionThrows from '../../../test/fixtures/actionThrows.ts';
import counters from '../../../test/fixtures/boundedCounters.ts';
import type { Model, ParamValues } from '../../../spec/spec.ts';
import kraft from '../../../spec/kraft/kraft.ts';
import { layout as L, type Packed } from '../../../spec/layout/index.ts';
import { always } from '../../../invariants/property.ts';
import { checkModel } from '../check.ts';
import type { CheckOptions } from '../options.ts';
import type { CheckResult } from '../result.ts';
import { runCheck } from '../../run/runCheck.ts';
import { BLOCK_WORDS } from '../state/wordFile.ts';

const label = { spec: 'test', params: {} };
const OWNERS = [1, 2, 3];

/** Everything a search reports that must not depend on how it is split: verdict, counts, coverage, witnesses, trace. */
function shape(r: CheckResult<unknown>) {
  return {
    status: r.status,
    property: 'property' in r ? r.property : undefined,
    message: 'message' in r ? r.message : undefined,
    counts: [r.stats.distinct, r.stats.generated, r.stats.depth, r.stats.queued],
    coverage: r.stats.coverage,
    witnesses: 'witnesses' in r ? r.witnesses : undefined,
    trace: 'trace' in r ? r.trace?.steps.map((s) => [s.action, JSON.stringify(s.params ?? {})]) : undefined,
    reason: 'reason' in r ? r.reason : undefined,
  };
}

async function sameForEveryOwnerCount(what: string, model: () => Model<unknown>, options: CheckOptions = {}, ownerCounts: readonly number[] = OWNERS): Promise<CheckResult<unknown>> {
  const one = await checkModel(model(), options, label);
  for (const owners of ownerCounts) {
    const split = await checkModel(model(), { ...options, owners }, label);
    assert.equal(split.stats.workers, owners);
    assert.deepEqual(shape(split), shape(one), `${what}, ${owners} owners`);
  }
  return one;
}

test('TwoPhase partitioned among 1, 2 and 3 owners: the counts, coverage, witnesses and counterexample of one thread', async () => {
  const holds = await sameForEveryOwnerCount('rm=5', () => twoPhase.build({ rm: 5, bug: 'none' }) as Model<unknown>);
  assert.deepEqual([holds.status, holds.stats.distinct], ['holds', 8832]);
  const bad = await sameForEveryOwnerCount('rm=5 tmCommitEarly', () => twoPhase.build({ rm: 5, bug: 'tmCommitEarly' }) as Model<unknown>);
  assert.equal(bad.status, 'violation');
  const shallow = await sameForEveryOwnerCount('rm=5 to depth 7', () => twoPhase.build({ rm: 5, bug: 'none' }) as Model<unknown>, { maxDepth: 7 });
  assert.deepEqual([shallow.status, 'reason' in shallow && shallow.reason], ['incomplete', 'maxDepth']);
});

test('a counterexample through states whose records an owner has written to disk: the trace of one thread', async () => {
  // TwoPhase rm=6 breaks "not every resource manager committed" only at its deepest levels; by then each of
  // 2 owners holds far more records (5 words each) than the block it keeps in memory, so the path back to
  // the initial state is read from each owner's records file.
  const rms = resourceManagers(6);
  const model = () => {
    const m = twoPhase.build({ rm: 6, bug: 'none' }) as Model<TwoPhaseState>;
    const notAllCommitted = always<TwoPhaseState>('NotAllCommitted', 'some resource manager has not committed', (s) => rms.some((rm) => s.rmState.get(rm) !== 'committed'));
    return { ...m, properties: [...m.properties, notAllCommitted] } as unknown as Model<unknown>;
  };
  const r = await sameForEveryOwnerCount('rm=6, NotAllCommitted', model, {}, [2]);
  assert.equal(r.status, 'violation');
  assert.ok(r.stats.distinct > 2 * 4 * (BLOCK_WORDS / 5), `the search reached ${r.stats.distinct} states before the violation`);
  assert.equal('trace' in r ? r.trace?.steps.at(-1)?.action : undefined, 'RMRcvCommitMsg');
});

test('--max-states N: exactly N states, and the counts, coverage and verdict of one thread, wherever N falls', async () => {
  const twoPhaseAt = (bug: 'none' | 'tmCommitEarly') => () => twoPhase.build({ rm: 5, bug }) as Model<unknown>;
  const reasons: string[] = [];
  for (const maxStates of [1, 2, 3, 4, 57, 1000, 8831, 8832, 8833]) {
    const r = await sameForEveryOwnerCount(`rm=5, --max-states ${maxStates}`, twoPhaseAt('none'), { maxStates }, [3]);
    reasons.push('reason' in r ? `${r.stats.distinct} ${r.reason}` : `${r.stats.distinct} ${r.status}`);
  }
  assert.deepEqual(reasons, ['1 maxStates', '2 maxStates', '3 maxStates', '4 maxStates', '57 maxStates', '1000 maxStates', '8831 maxStates', '8832 maxStates', '8832 holds']);
  // Around the violation: the budget ends before it, at it, or past it.
  const bad = await checkModel(twoPhase.build({ rm: 5, bug: 'tmCommitEarly' }) as Model<unknown>, {}, label);
  const at = bad.stats.distinct;
  const verdicts: string[] = [];
  for (const maxStates of [at - 2, at - 1, at, at + 1]) {
    const r = await sameForEveryOwnerCount(`tmCommitEarly, --max-states ${maxStates}`, twoPhaseAt('tmCommitEarly'), { maxStates }, [2, 3]);
    verdicts.push(r.status);
  }
  assert.deepEqual(verdicts, ['incomplete', 'incomplete', 'violation', 'violation']);
  // A throwing action, states outside CONSTRAINT, and a deadlock, each with the budget ending near them.
  for (const maxStates of [5, 12, 13, 30]) {
    await sameForEveryOwnerCount(`action throws, --max-states ${maxStates}`, () => actionThrows.build({ rm: 5 }) as Model<unknown>, { maxStates }, [3]);
    const params = { n: 5, k: 10, tight: true, outsideInit: false, throwAt: -1, steps: false, lastAtMost: -1, form: 'layout' };
    await sameForEveryOwnerCount(`constraint, --max-states ${maxStates}`, () => counters.build(params) as Model<unknown>, { maxStates }, [3]);
  }
});

test('with --symmetry: the representatives, counts and counterexample of one thread', async () => {
  const reduced = await sameForEveryOwnerCount('rm=5 --symmetry', () => twoPhase.build({ rm: 5, bug: 'none' }) as Model<unknown>, { symmetry: true }, [3]);
  const bad = await sameForEveryOwnerCount('rm=4 tmCommitEarly --symmetry', () => twoPhase.build({ rm: 4, bug: 'tmCommitEarly' }) as Model<unknown>, { symmetry: true }, [2, 3]);
  assert.equal(reduced.status, 'holds');
  assert.ok(reduced.stats.distinct < 8832, `${reduced.stats.distinct} states under symmetry`);
  assert.equal(bad.status, 'violation');
});

test('a property or an action that throws ends the partitioned search where it ends in one thread', async () => {
  const p = await sameForEveryOwnerCount('property throws', () => propertyThrows.build({ rm: 5 }) as Model<unknown>);
  const a = await sameForEveryOwnerCount('action throws', () => actionThrows.build({ rm: 5 }) as Model<unknown>);
  assert.deepEqual([p.status, a.status], ['error', 'error']);
});

test('CONSTRAINT and ACTION_CONSTRAINT: states outside are checked, not counted, and one that breaks an invariant ends the search as in one thread', async () => {
  const base = { n: 5, k: 10, tight: false, outsideInit: false, throwAt: -1, steps: false, lastAtMost: -1, form: 'layout' };
  const cases = [{}, { outsideInit: true }, { tight: true }, { tight: true, outsideInit: true }, { throwAt: 6 }, { steps: true }, { steps: true, lastAtMost: 2 }];
  const statuses = [];
  for (const more of cases) {
    const params = { ...base, ...more };
    statuses.push((await sameForEveryOwnerCount(JSON.stringify(more), () => counters.build(params) as Model<unknown>)).status);
  }
  assert.deepEqual(statuses, ['holds', 'holds', 'violation', 'violation', 'error', 'holds', 'violation']);
});

test('a deadlock is found at the state one thread finds it at', async () => {
  const Counter = L.record('Counter', { a: L.int(0, 9), b: L.int(0, 9) });
  type Counter = Packed<typeof Counter>;
  const model = (): Model<unknown> =>
    ({
      layout: Counter,
      init: () => [Counter.from({ a: 0, b: 0 })],
      actions: [
        { name: 'A', enabled: (s: Counter) => s.a < 5, next: (s: Counter) => s.set('a', s.a + 1) },
        { name: 'B', enabled: (s: Counter) => s.b < 4 && s.a !== 3, next: (s: Counter) => s.set('b', s.b + 1) },
      ],
      properties: [always<Counter>('Small', 'a stays below 9', (s) => s.a < 9)],
    }) as unknown as Model<unknown>;
  const r = await sameForEveryOwnerCount('counter', model);
  assert.deepEqual([r.status, "kind" in r && r.kind, "trace" in r && r.trace?.steps.length], ["violation", "deadlock", 10], JSON.stringify(shape(r)));
});

const module = (path: string) => fileURLToPath(new URL(path, import.meta.url));

test('owners in worker threads (a model loaded from its module), each owning its part from the level it waited at: the counts, coverage and counterexample of one thread (each model with one split; KMC_SLOW=1: with every split)', async () => {
  const cases = [
    [twoPhase, '../../../spec/twophase/twoPhase.ts', { rm: 5, bug: 'none' }],
    [twoPhase, '../../../spec/twophase/twoPhase.ts', { rm: 5, bug: 'tmCommitEarly' }],
    [actionThrows, '../../../test/fixtures/actionThrows.ts', { rm: 5 }],
  ] as const;
  const splits = [[2, 0], [2, 4], [3, 0]] as const;
  for (const [i, [spec, path, params]] of cases.entries()) {
    const one = await checkModel(spec.build(params) as Model<unknown>, {}, label);
    // (Each thread loads the model from its module: a second's start, so a few counts, not every one; the
    // fast tier tries each split on one model.)
    for (const [owners, from] of process.env.KMC_SLOW ? splits : [splits[i]!]) {
      const threads = await checkModel(spec.build(params) as Model<unknown>, { owners, ownerThreadsFromDepth: from }, label, { modulePath: module(path), params });
      assert.deepEqual(shape(threads), shape(one), `${path} ${JSON.stringify(params)}, ${owners} owners from depth ${from}`);
      // Part i goes to carrier i mod (threads, at most one a core), carrier 0 the driver's thread; a search
      // that ends before the depth the threads are waited at leaves every part with the driver's thread.
      const carriers = Math.min(owners, availableParallelism());
      const joined = threads.stats.depth > from ? from : null;
      const expected = Array.from({ length: owners }, (_, i) => (i % carriers === 0 ? null : joined));
      assert.deepEqual(threads.stats.ownership?.threadsJoined, expected, `${path} ${JSON.stringify(params)}, ${owners} owners from depth ${from}`);
    }
  }
});

test('owner threads that never load the model leave their parts to the driver: the search goes on to the counts and counterexample of one thread', async () => {
  // Before the driver's thread owned the parts of threads still loading, this search waited for them forever.
  const neverLoads = module('../../../test/fixtures/neverLoads.ts');
  for (const bug of ['none', 'tmCommitEarly']) {
    const params = { rm: 5, bug };
    const one = await checkModel(twoPhase.build(params) as Model<unknown>, {}, label);
    for (const owners of [2, 3]) {
      const split = await checkModel(twoPhase.build(params) as Model<unknown>, { owners }, label, { modulePath: neverLoads, params });
      assert.deepEqual(shape(split), shape(one), `${bug}, ${owners} owners`);
      assert.deepEqual(split.stats.ownership?.threadsJoined, new Array(owners).fill(null), `${bug}, ${owners} owners`);
    }
  }
});

const slow = process.env.KMC_SLOW ? false : 'every Kafka preset against one thread, each with three owner threads to start: set KMC_SLOW=1 (npm run test:slow)';

test('many more owners than cores: the counts of one thread, in a few hundred MB', async () => {
  // 100 owners on this machine's threads: each owner keeps a batch for each other, and each pair once had
  // a MessagePort of its own (mailroom.ts); the batches took 256 KB each from the start, 1.8 GB in all.
  const bin = fileURLToPath(new URL('../../../dist/checker/cli/bin.mjs', import.meta.url));
  const run = (...args: string[]) => JSON.parse(execFileSync(process.execPath, [bin, 'check', 'twophase', '--param', 'rm=4', '--json', ...args], { encoding: 'utf8' })) as { distinct: number; generated: number; peakMemoryBytes: number };
  // The counts of one thread, from a search in this process: the process is what the 100 owners need.
  const one = (await checkModel(twoPhase.build({ rm: 4, bug: 'none' }), {}, label)).stats;
  const many = run('--owners', '100');
  assert.deepEqual([many.distinct, many.generated], [one.distinct, one.generated]);
  assert.ok(many.peakMemoryBytes < 800e6, `peak RSS ${(many.peakMemoryBytes / 1e6).toFixed(0)} MB with 100 owners`);
});

test('bundled Kafka presets partitioned among 3 owners (threads): the verdict, counts and trace of one thread', { skip: slow }, async () => {
  for (const [spec, preset] of [
    ['kraft', 'kraft-16281'],
    ['kraft', 'kraft-fixed-leaderid'],
    ['replication', 'lrs-pre-elr'],
    ['replication', 'diverging-logs'],
  ] as const) {
    const one = await runCheck({ spec, preset, options: { workers: 1 } });
    for (const owners of [3]) {
      const split = await runCheck({ spec, preset, options: { owners } });
      assert.deepEqual(shape(split.result), shape(one.result), `${preset}, ${owners} owners`);
    }
  }
});

test('temporal properties: once the owners find every state safe, the liveness pass finds the lasso one thread finds', async () => {
  const kraftPreset = kraft.presets.find((p) => p.name === 'kraft-stuck-prospective')!;
  const params = { ...Object.fromEntries(kraft.params.map((d) => [d.name, d.default])), ...kraftPreset.params } as ParamValues;
  const r = await sameForEveryOwnerCount('kraft-stuck-prospective', () => kraft.build(params) as Model<unknown>, { deadlock: false }, [2]);
  assert.deepEqual([r.status, 'kind' in r && r.kind, 'property' in r && r.property, r.stats.distinct], ['violation', 'liveness', 'NotStuckInProspective', 7484]);
});

test('what a partitioned search cannot do is refused before it starts, naming the option', async () => {
  await assert.rejects(checkModel(twoPhase.build({ rm: 3, bug: 'none' }), { owners: 2, memoryBudgetBytes: 1e9 }, label), /partitioned among owners \(--owners 2\) does not take --memory-budget/);
  await assert.rejects(checkModel(twoPhase.build({ rm: 3, bug: 'none' }), { owners: 2, strategy: 'dfs' }, label), /does not take --strategy dfs/);
  // A layout declared, but init() giving Immutable.js values: the owners would have no bytes to send.
  const immutableInit = { ...(twoPhase.build({ rm: 3, bug: 'none' }) as Model<unknown>), init: () => [ImmutableMap({ rm: 1 })] };
  await assert.rejects(checkModel(immutableInit, { owners: 2 }, label), /^Error: the spec cannot be checked: it declares a layout, but its initial state is a Map, not a state of that layout: init\(\) must return values made by the layout/);
});
