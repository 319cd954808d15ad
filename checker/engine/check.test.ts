import { test } from 'node:test';
import assert from 'node:assert/strict';
import twoPhase from '../../spec/twophase/twoPhase.ts';
import dieHard from '../../spec/diehard/dieHard.ts';
import { checkModel } from './check.ts';
import { Counter, countTo, laterActionThrowsAt, throwsAt, vacuous } from '../../test/fixtures/tinySpecs.ts';
import type { CheckOptions } from './options.ts';
import type { Model } from '../../spec/spec.ts';

const label = { spec: 'test', params: {} };
const twoPhaseModel = (rm: number, bug = 'none') => twoPhase.build({ rm, bug });
const actionsOf = (r: { trace?: { steps: readonly { action: string }[] } }) => r.trace?.steps.map((s) => s.action);

/**
 * TwoPhase with `params` in its layout form and its Immutable.js form, each with the module workers load,
 * and the threads `workers` give it: worker threads share out packed states only, so the Immutable.js form
 * is searched in one thread.
 */
async function twoPhaseForms(params: { rm: number; bug: string }) {
  const { fileURLToPath } = await import('node:url');
  const { default: twoPhaseImmutable } = await import('../../spec/twophase/twoPhaseImmutable.ts');
  return (
    [
      [() => twoPhase.build(params) as Model<unknown>, 'twoPhase.ts'],
      [() => twoPhaseImmutable.build(params) as Model<unknown>, 'twoPhaseImmutable.ts'],
    ] as const
  ).map(([build, file]) => ({
    build,
    file,
    source: { modulePath: fileURLToPath(new URL(`../../spec/twophase/${file}`, import.meta.url)), params },
    threads: (workers: number) => (file === 'twoPhase.ts' ? workers : 1),
  }));
}

test('TwoPhase with 3 resource managers: 288 distinct states, as TLC reports', async () => {
  const r = await checkModel(twoPhaseModel(3), {}, label);
  assert.equal(r.status, 'holds');
  assert.equal(r.stats.distinct, 288);
  assert.equal(r.stats.generated, 1146);
  assert.equal(r.stats.depth, 11);
  assert.deepEqual(r.status === 'holds' && r.witnesses, ['Committed', 'Aborted']);
});

test('TwoPhase with 5 resource managers: 8,832 distinct states, as TLC reports', async () => {
  const r = await checkModel(twoPhaseModel(5), {}, label);
  assert.equal(r.status, 'holds');
  assert.equal(r.stats.distinct, 8832);
  assert.equal(r.stats.depth, 17);
});

test('symmetry over resource managers shrinks the state space and keeps every verdict', async () => {
  const plain = await checkModel(twoPhaseModel(5), {}, label);
  const reduced = await checkModel(twoPhaseModel(5), { symmetry: true }, label);
  assert.equal(reduced.status, plain.status);
  assert.equal(reduced.stats.distinct, 314);
  const bugPlain = await checkModel(twoPhaseModel(4, 'tmCommitEarly'), {}, label);
  const bugReduced = await checkModel(twoPhaseModel(4, 'tmCommitEarly'), { symmetry: true }, label);
  assert.equal(bugPlain.status, 'violation');
  assert.equal(bugReduced.status, 'violation');
  assert.equal(bugReduced.status === 'violation' && bugReduced.property, 'TCConsistent');
  assert.equal(bugReduced.trace?.steps.length, bugPlain.trace?.steps.length);
});

test('symmetry is refused with a property not declared symmetric', async () => {
  const m = twoPhaseModel(3);
  const unsound = { ...m, properties: m.properties.map((p) => (p.name === 'TPTypeOK' ? { ...p, symmetric: false } : p)) };
  await assert.rejects(checkModel(unsound, { symmetry: true }, label), /unsound.*TPTypeOK/);
});

test('a planted TwoPhase bug gives the shortest counterexample', async () => {
  const r = await checkModel(twoPhaseModel(3, 'tmCommitEarly'), {}, label);
  assert.equal(r.status, 'violation');
  assert.equal(r.status === 'violation' && r.property, 'TCConsistent');
  assert.deepEqual(actionsOf(r), ['Init', 'RMPrepare', 'TMRcvPrepared', 'TMCommit', 'RMChooseToAbort', 'RMRcvCommitMsg']);
  assert.deepEqual(r.trace?.steps[1]?.params, { rm: 'r1' });
});

test('the search ends at the successor that breaks an invariant, as TLC\'s does, whatever the form or the number of workers (1, and 2 or 3 a form; KMC_SLOW=1: 1, 2 and 3)', async () => {
  // TLC on TwoPhase.tla with TMCommit enabled by any Prepared and Next's disjuncts in this spec's action
  // order: 3,373 states generated, 934 distinct states found, depth 6. The successors the violating
  // state's parent gives after it are neither generated nor found (kmc counted 3 more states before).
  for (const [f, { build, file, source, threads }] of (await twoPhaseForms({ rm: 5, bug: 'tmCommitEarly' })).entries()) {
    const one = await checkModel(build(), {}, label);
    // Worker threads load the model, half a second each: the fast tier starts 2 for one form, 3 for the other.
    for (const workers of process.env.KMC_SLOW ? [1, 2, 3] : [1, 2 + f]) {
      const r = await checkModel(build(), { workers, ownerThreadsFromDepth: 3 }, label, source);
      const what = `${file}, ${workers} worker(s)`;
      assert.equal(r.status === 'violation' && r.property, 'TCConsistent', what);
      assert.deepEqual([r.stats.generated, r.stats.distinct, r.stats.depth, r.stats.workers], [3373, 934, 6, threads(workers)], what);
      assert.deepEqual(r.stats.coverage, one.stats.coverage, what);
      assert.deepEqual(actionsOf(r as never), actionsOf(one as never), what);
    }
  }
});

test('one action per binding gives TLC\'s order for \\E rm : A(rm) \\/ B(rm), and its counts at the violation', async () => {
  // TwoPhase.tla as the TLA+ Examples write Next: TMCommit \/ TMAbort \/ \E rm \in RM : TMRcvPrepared(rm)
  // \/ RMPrepare(rm) \/ ... TLC tries each RM's five actions before the next RM's. With TMCommit enabled by
  // any Prepared, TLC: 457 generated, 158 distinct, depth 6 for rm=3; 3,325 / 894 / 6 for rm=5.
  const perRm = ['TMRcvPrepared', 'RMPrepare', 'RMChooseToAbort', 'RMRcvCommitMsg', 'RMRcvAbortMsg'];
  for (const [rm, counts] of [[3, [457, 158, 6]], [5, [3325, 894, 6]]] as const) {
    const model = twoPhaseModel(rm, 'tmCommitEarly');
    const named = (name: string) => model.actions.find((a) => a.name === name)!;
    const rms = Array.from({ length: rm }, (_, i) => `r${i + 1}`);
    const actions = [named('TMCommit'), named('TMAbort'), ...rms.flatMap((r) => perRm.map((name) => ({ ...named(name), params: () => [{ rm: r }] })))];
    const r = await checkModel({ ...model, actions }, {}, label);
    assert.equal(r.status === 'violation' && r.property, 'TCConsistent');
    assert.deepEqual([r.stats.generated, r.stats.distinct, r.stats.depth], counts, `rm=${rm}`);
  }
});

test('Die Hard: the 6-step solution is found as a shortest trace', async () => {
  const r = await checkModel(dieHard.build({ small: 3, big: 5, goal: 4 }), {}, label);
  assert.equal(r.status, 'violation');
  assert.deepEqual(actionsOf(r), ['Init', 'FillBigJug', 'BigToSmall', 'EmptySmallJug', 'BigToSmall', 'FillBigJug', 'BigToSmall']);
  const last = r.trace!.steps.at(-1)!.state as { big: number };
  assert.equal(last.big, 4);
  // TLC on the same model: 73 states generated, 14 distinct, and depth 7, which counts the level of the
  // state that breaks the invariant (found while the sixth level was expanded).
  assert.deepEqual([r.stats.generated, r.stats.distinct, r.stats.depth], [73, 14, 7]);
  const impossible = await checkModel(dieHard.build({ small: 2, big: 4, goal: 3 }), {}, label);
  assert.equal(impossible.status, 'holds');
  assert.equal(impossible.stats.distinct, 6);
});

test('deadlock is found by default and can be switched off', async () => {
  const r = await checkModel(countTo(4), {}, label);
  assert.equal(r.status, 'violation');
  assert.equal(r.status === 'violation' && r.kind, 'deadlock');
  assert.equal(r.trace?.steps.length, 5);
  const off = await checkModel(countTo(4), { deadlock: false }, label);
  assert.equal(off.status, 'holds');
  assert.equal(off.stats.distinct, 5);
});

test('a sometimes property never reached makes the check fail as vacuous', async () => {
  const r = await checkModel(vacuous(7), {}, label);
  assert.equal(r.status, 'violation');
  assert.equal(r.status === 'violation' && r.kind, 'sometimes');
  assert.deepEqual(r.status === 'violation' && r.unreached, ['ReachesMinusOne']);
  assert.equal(r.stats.distinct, 7);
});

test('a spec that throws gives an error result with the trace that led there', async () => {
  const r = await checkModel(throwsAt(3), {}, label);
  assert.equal(r.status, 'error');
  assert.match(r.status === 'error' ? r.message : '', /Inc: effect threw: cannot step past 3/);
  assert.equal(r.trace?.steps.length, 4);
});

test('an action throwing after another produced a successor is reported at the state being expanded', async () => {
  const r = await checkModel(laterActionThrowsAt(2), {}, label);
  assert.equal(r.status, 'error');
  assert.match(r.status === 'error' ? r.message : '', /Explode: effect threw: explodes at 2/);
  assert.deepEqual(actionsOf(r), ['Init', 'Inc', 'Inc']);
});

test('limits end the search as incomplete with the stats so far', async () => {
  const byStates = await checkModel(twoPhaseModel(5), { maxStates: 1000 }, label);
  assert.equal(byStates.status, 'incomplete');
  assert.equal(byStates.status === 'incomplete' && byStates.reason, 'maxStates');
  assert.equal(byStates.stats.distinct, 1000);
  const byDepth = await checkModel(twoPhaseModel(5), { maxDepth: 3 }, label);
  assert.equal(byDepth.status === 'incomplete' && byDepth.reason, 'maxDepth');
  const byTime = await checkModel(twoPhaseModel(6), { timeLimitSeconds: 0.2 }, label);
  assert.equal(byTime.status === 'incomplete' && byTime.reason, 'timeLimit');
  let calls = 0;
  const stopped = await checkModel(twoPhaseModel(6), { shouldStop: () => ++calls > 2 }, label);
  assert.equal(stopped.status === 'incomplete' && stopped.reason, 'interrupted');
  const byMemory = await checkModel(twoPhaseModel(6), { memoryBudgetBytes: 1 }, label);
  assert.equal(byMemory.status === 'incomplete' && byMemory.reason, 'memoryBudget');
});

test('depth-first search reaches the same states; its counterexamples need not be shortest', async () => {
  const bfs = await checkModel(twoPhaseModel(4), {}, label);
  const dfs = await checkModel(twoPhaseModel(4), { strategy: 'dfs' }, label);
  assert.equal(dfs.status, 'holds');
  assert.equal(dfs.stats.distinct, bfs.stats.distinct);
  const bug = await checkModel(twoPhaseModel(3, 'tmCommitEarly'), { strategy: 'dfs' }, label);
  assert.equal(bug.status === 'violation' && bug.property, 'TCConsistent');
  const bounded = await checkModel(twoPhaseModel(4), { strategy: 'dfs', maxDepth: 4 } satisfies CheckOptions, label);
  assert.equal(bounded.status === 'incomplete' && bounded.reason, 'maxDepth');
  const bfsBounded = await checkModel(twoPhaseModel(4), { maxDepth: 4 }, label);
  assert.equal(bounded.stats.distinct, bfsBounded.stats.distinct);
  // A bound the model fits in: complete, as breadth-first says, though the depth-first search first reaches
  // a state at the bound (0 → 3 by the long way) before a shorter path reaches it and expands it.
  const edges: Record<number, number[]> = { 0: [1, 3], 1: [2], 2: [3], 3: [0] };
  const graph: Model<number> = { init: () => [0], actions: [{ name: 'Go', params: (n: number) => edges[n]!.map((to) => ({ to })), next: (_n: number, { to }: { to: number }) => to }], properties: [] };
  for (const strategy of ['bfs', 'dfs'] as const) {
    const fits = await checkModel(graph, { strategy, maxDepth: 3 }, label);
    assert.deepEqual([fits.status, fits.stats.distinct], ['holds', 4], strategy);
    const cut = await checkModel(graph, { strategy, maxDepth: 2 }, label);
    assert.deepEqual([cut.status === 'incomplete' && cut.reason, cut.stats.distinct], ['maxDepth', 4], strategy);
  }
  // --max-states N keeps N states, as breadth-first: with N = 1, the initial state alone (it once entered a successor past it).
  for (const maxStates of [1, 2, 50]) {
    const kept = await checkModel(twoPhaseModel(4), { strategy: 'dfs', maxStates }, label);
    assert.deepEqual([kept.status === 'incomplete' && kept.reason, kept.stats.distinct], ['maxStates', maxStates], `--max-states ${maxStates}`);
  }
});

test('coverage counts each action, and the collision estimate follows n(g-n)/2^64', async () => {
  const r = await checkModel(twoPhaseModel(3), {}, label);
  const byName = Object.fromEntries(r.stats.coverage.map((c) => [c.action, c]));
  assert.deepEqual(byName.TMCommit, { action: 'TMCommit', enabled: 1, fired: 1, newStates: 1 });
  assert.equal(r.stats.coverage.reduce((n, c) => n + c.fired, 0) + 1, r.stats.generated);
  assert.equal(r.stats.coverage.reduce((n, c) => n + c.newStates, 0) + 1, r.stats.distinct);
  assert.equal(r.stats.collisionProbability, (288 * (1146 - 288)) / 2 ** 64);
});

test('an action disabled by parameters is never run, and coverage gives the reason', async () => {
  const model = {
    init: () => [Counter()],
    actions: [
      { name: 'Inc', enabled: (s: Counter) => s.n < 3, next: (s: Counter) => s.set('n', s.n + 1) },
      { name: 'Reset', disabledBy: 'reset = false', enabled: (): boolean => { throw new Error('a disabled guard ran'); }, next: (s: Counter) => s.set('n', 0) },
    ],
    properties: [],
  };
  const r = await checkModel(model, { deadlock: false }, label);
  assert.equal(r.status, 'holds');
  assert.equal(r.stats.distinct, 4);
  assert.deepEqual(r.stats.coverage[1], { action: 'Reset', enabled: 0, fired: 0, newStates: 0, disabledBy: 'reset = false' });
  assert.equal('disabledBy' in r.stats.coverage[0]!, false);
});

test('worker threads taking their parts over mid-search give the sequential counts and trace', async () => {
  const { fileURLToPath } = await import('node:url');
  const modulePath = fileURLToPath(new URL('../../spec/twophase/twoPhase.ts', import.meta.url));
  for (const bug of ['none', 'tmCommitEarly']) {
    const params = { rm: 4, bug };
    const one = await checkModel(twoPhase.build(params), {}, label);
    const two = await checkModel(twoPhase.build(params), { workers: 2, ownerThreadsFromDepth: 3 }, label, { modulePath, params });
    assert.equal(two.stats.workers, 2);
    assert.equal(two.status, one.status);
    assert.deepEqual([two.stats.distinct, two.stats.generated, two.stats.depth], [one.stats.distinct, one.stats.generated, one.stats.depth]);
    assert.deepEqual(two.stats.coverage, one.stats.coverage);
    assert.deepEqual(actionsOf(two as never), actionsOf(one as never));
  }
});

test('--max-states N keeps exactly N distinct states, with one worker or two, packed or Immutable.js', async () => {
  for (const { build, file, source, threads } of await twoPhaseForms({ rm: 6, bug: 'none' })) {
    // The search used to stop at 1,002: after all the successors of the state that reached 1,000.
    for (const workers of [1, 2]) {
      const r = await checkModel(build(), { maxStates: 1000, workers, ownerThreadsFromDepth: 5 }, label, source);
      const what = `${file}, ${workers} worker(s)`;
      assert.equal(r.status === 'incomplete' && r.reason, 'maxStates', what);
      assert.deepEqual([r.stats.distinct, r.stats.generated, r.stats.workers], [1000, 3187, threads(workers)], what);
    }
  }
  // A budget the whole space fits in is no limit: TwoPhase rm=3 has 288 states.
  const fits = await checkModel(twoPhaseModel(3), { maxStates: 289 }, label);
  assert.deepEqual([fits.status, fits.stats.distinct], ['holds', 288]);
});

test('by default a check uses every core, as the default (a search that would lose by workers stays in one thread)', async () => {
  const { defaultWorkers } = await import('./defaultWorkers.ts');
  assert.deepEqual(
    [1, 2, 4, 16].map((cores) => defaultWorkers(cores)),
    [{ workers: 1 }, { workers: 2, workersByDefault: true }, { workers: 4, workersByDefault: true }, { workers: 16, workersByDefault: true }],
  );
});

test('workers by default are used only where they lose nothing one thread has: not to record liveness; for states without a layout or under a memory budget (only one thread spills) never', async () => {
  const { fileURLToPath } = await import('node:url');
  const { default: twoPhaseImmutable } = await import('../../spec/twophase/twoPhaseImmutable.ts');
  const { default: kraft } = await import('../../spec/kraft/kraft.ts');
  const moduleOf = (file: string) => fileURLToPath(new URL(`../../spec/${file}`, import.meta.url));
  const params = { rm: 5, bug: 'none' };
  const packed = { modulePath: moduleOf('twophase/twoPhase.ts'), params };
  const byDefault: CheckOptions = { workers: 2, workersByDefault: true };
  const one = await checkModel(twoPhaseModel(5), {}, label);
  const runs = {
    layout: await checkModel(twoPhaseModel(5), byDefault, label, packed),
    'memory budget': await checkModel(twoPhaseModel(5), { ...byDefault, memoryBudgetBytes: 1 << 30 }, label, packed),
    'memory budget, 2 workers asked for': await checkModel(twoPhaseModel(5), { workers: 2, memoryBudgetBytes: 1 << 30 }, label, packed),
    'no layout': await checkModel(twoPhaseImmutable.build(params), byDefault, label, { modulePath: moduleOf('twophase/twoPhaseImmutable.ts'), params }),
  };
  assert.deepEqual(
    Object.entries(runs).map(([name, r]) => [name, r.stats.workers, r.stats.distinct, r.stats.generated]),
    [
      ['layout', 2, 8832, one.stats.generated],
      ['memory budget', 1, 8832, one.stats.generated],
      ['memory budget, 2 workers asked for', 1, 8832, one.stats.generated],
      ['no layout', 1, 8832, one.stats.generated],
    ],
  );
  // A temporal property: one thread records the graph the liveness check reads.
  const preset = kraft.presets.find((p) => p.name === 'kraft-stuck-prospective')!;
  const kraftParams = { ...Object.fromEntries(kraft.params.map((d) => [d.name, d.default])), ...preset.params } as Record<string, string | number | boolean>;
  const live = await checkModel(kraft.build(kraftParams), { ...byDefault, deadlock: false }, label, { modulePath: moduleOf('kraft/kraft.ts'), params: kraftParams });
  assert.deepEqual([live.status, live.stats.workers, live.stats.distinct], ['violation', 1, 7484]);
});

test('--workers 2 with 35 witnesses: the owner threads report each one reached, to the counts of one thread', async () => {
  const { fileURLToPath } = await import('node:url');
  const { default: manyWitnesses } = await import('../../test/fixtures/manyWitnesses.ts');
  // Worker threads once reported the witnesses a chunk reached in 32 bits, and a spec with more stayed in one thread.
  const params = { rm: 4, bug: 'none' };
  const source = { modulePath: fileURLToPath(new URL('../../test/fixtures/manyWitnesses.ts', import.meta.url)), params };
  const warnings: string[] = [];
  const two = await checkModel(manyWitnesses.build(params), { workers: 2, ownerThreadsFromDepth: 1, onWarning: (line) => warnings.push(line) }, label, source);
  const one = await checkModel(manyWitnesses.build(params), {}, label);
  assert.deepEqual([two.status, two.stats.workers, two.stats.distinct, two.stats.generated], [one.status, 2, 1568, one.stats.generated]);
  assert.equal(two.status, 'violation');
  assert.deepEqual('unreached' in two ? two.unreached : null, Array.from({ length: 32 }, (_, i) => `W${i + 1}`));
  assert.deepEqual('witnesses' in two ? two.witnesses : null, 'witnesses' in one ? one.witnesses : null);
  assert.equal(two.stats.ownership?.threadsJoined?.[1], 1);
  assert.deepEqual(warnings, []);
});

test('a state holding a Record is told apart by its field names, as Immutable.is does, not by its class', async () => {
  const { Record, Set } = await import('immutable');
  // A vote request and a reply with the same values under other names are two messages; the same request
  // declared with its fields in another order is the same message.
  const Request = Record({ epoch: 0, candidate: 'b1' });
  const Reply = Record({ epoch: 0, voter: 'b1' });
  const RequestAgain = Record({ candidate: 'b1', epoch: 0 });
  const Net = Record({ sent: Set<unknown>() });
  type Net = ReturnType<typeof Net>;
  const send = (name: string, message: unknown) => ({ name, next: (s: Net) => s.set('sent', s.sent.add(message)) });
  const model: Model<Net> = {
    init: () => [Net()],
    actions: [send('Request', Request({ epoch: 1 })), send('Reply', Reply({ epoch: 1 })), send('RequestAgain', RequestAgain({ epoch: 1 }))],
    properties: [],
  };
  const r = await checkModel(model, { deadlock: false }, label);
  // {}, {request}, {reply}, {request, reply}
  assert.equal(r.stats.distinct, 4);
  assert.equal(r.stats.generated, 13);
});
