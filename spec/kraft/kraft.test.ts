import { test } from 'node:test';
import assert from 'node:assert/strict';
import spec from './kraft.ts';
import { checkModel } from '../../checker/engine/check.ts';
import type { ParamValues } from '../spec.ts';
import type { KraftState } from './state.ts';
import { preVoteReplyNamesRequester } from './properties.ts';
import type { CheckResult } from '../../checker/engine/result.ts';
import { type Property, always, sometimes } from '../../invariants/property.ts';

function paramsOf(preset: string, extra: ParamValues = {}): ParamValues {
  const p = spec.presets.find((x) => x.name === preset)!;
  return { ...Object.fromEntries(spec.params.map((d) => [d.name, d.default])), ...p.params, ...extra } as ParamValues;
}

async function check(preset: string, extra: ParamValues = {}, extraProperties: Property<KraftState>[] = []) {
  const p = spec.presets.find((x) => x.name === preset)!;
  const params = paramsOf(preset, extra);
  const model = spec.build(params);
  const options = { deadlock: p.options?.deadlock ?? true, symmetry: p.options?.symmetry ?? false };
  return checkModel({ ...model, properties: [...model.properties, ...extraProperties] }, options, { spec: 'kraft', preset, params });
}

/** The Resigned fix closes KAFKA-16281's trigger itself: checked as an extra invariant of its presets. */
const triggerClosed = always<KraftState>('NoPreVoteReplyNamesRequester', 'no pre-vote reply names its requester', (s) => !preVoteReplyNamesRequester(s));

/**
 * The exhaustive searches of tens of thousands of states run in the slow tier (`npm run test:slow`, CI);
 * `npm test` checks each of those presets to a depth instead (TO_DEPTH below).
 */
const SLOW = !process.env.KMC_SLOW && 'set KMC_SLOW=1 (npm run test:slow): an exhaustive search of over 10,000 states';

const traceOf = (r: CheckResult<KraftState>) => (r.status === 'violation' || r.status === 'error' ? r.trace : undefined);
const actions = (r: CheckResult<KraftState>) => traceOf(r)?.steps.map((s) => s.action);

test('every preset states its verdict and turns deadlock detection off (budgets run out: the model quiesces)', () => {
  assert.deepEqual(
    spec.presets.map((p) => [p.name, p.expect.verdict === 'holds' ? 'holds' : p.expect.property]),
    [
      ['kraft-16281', 'NoIllegalState'],
      ['kraft-fixed-leaderid', 'holds'],
      ['kraft-fixed-prospective', 'holds'],
      ['kraft-fixed-resigned-unattached', 'holds'],
      ['kraft-shipped', 'holds'],
      ['kraft-fixed-leaderid-message-loss', 'holds'],
      ['kraft-fixed-leaderid-link-cut', 'holds'],
      ['kraft-shipped-disk-loss', 'holds'],
      ['kraft-double-vote', 'ElectionSafety'],
      ['kraft-stuck-prospective', 'NotStuckInProspective'],
      ['kraft-nudge-live', 'holds'],
      ['kraft-final-live', 'holds'],
      ['kraft-shipped-live', 'holds'],
      ['kraft-deep-diverge', 'holds'],
      ['kraft-deep-restart', 'holds'],
      ['kraft-deep-4voters', 'holds'],
      ['kraft-bench', 'holds'],
    ],
  );
  for (const p of spec.presets) assert.equal(p.options?.deadlock, false, p.name);
});

test('kraft-16281: the JIRA history, shortest: r1 resigns, goes Prospective in epoch 1, r2 names r1 as leader, r1 follows itself', async () => {
  const r = await check('kraft-16281');
  assert.equal(r.status, 'violation');
  assert.equal(r.status === 'violation' && r.property, 'NoIllegalState');
  assert.equal(r.stats.distinct, 252);
  assert.equal(r.stats.depth, 5);
  // With liveness properties the search records the graph and takes successors one at a time: it stops
  // at the same successor, with the same counts.
  const live = await check('kraft-16281', { liveness: 'both' });
  assert.deepEqual([live.stats.distinct, live.stats.generated, live.stats.depth, live.stats.coverage], [r.stats.distinct, r.stats.generated, r.stats.depth, r.stats.coverage]);
  const steps = traceOf(r)!.steps;
  assert.deepEqual(actions(r), ['Init', 'CheckQuorumResign', 'ElectionTimeout', 'HandleVoteRequest', 'HandleVoteResponse']);
  assert.deepEqual(steps.slice(1).map((s) => s.params.s), ['r1', 'r1', 'r2', 'r1']);

  const at = (i: number) => steps[i]!.state;
  assert.equal(at(1).replicas.get('r1')!.role, 'Resigned');
  const prospective = at(2).replicas.get('r1')!;
  assert.deepEqual([prospective.role, prospective.epoch, prospective.leader], ['Prospective', 1, null]);
  const reply = steps[4]!.params.m as { type: string; from: string; epoch: number; leaderId: string; granted: boolean; preVote: boolean };
  assert.deepEqual([reply.type, reply.from, reply.epoch, reply.leaderId, reply.granted, reply.preVote], ['VoteResponse', 'r2', 1, 'r1', false, true]);
  const end = at(4).replicas.get('r1')!;
  assert.equal(end.role, 'IllegalState');
  assert.equal(end.illegal, 'transitionToFollower(epoch=1, leader=r1): the leader is the local replica');

  // The narration a sequence diagram draws.
  assert.deepEqual(steps[1]!.events, { actor: 'r1', sends: [], marks: ['resign', 'Resigned e1'] });
  assert.deepEqual(steps[2]!.events?.sends, [
    { from: 'r1', to: 'r2', label: 'PreVote e1 last=(1,2)' },
    { from: 'r1', to: 'r3', label: 'PreVote e1 last=(1,2)' },
  ]);
  assert.deepEqual(steps[3]!.events?.sends, [{ from: 'r2', to: 'r1', label: 'PreVoteResp e1 denied leader=r1' }]);
  assert.deepEqual(steps[4]!.events?.receives, [{ from: 'r2', to: 'r1', label: 'PreVoteResp e1 denied leader=r1' }]);
  assert.deepEqual(steps[4]!.events?.marks, ['IllegalState: transitionToFollower(epoch=1, leader=r1): the leader is the local replica']);
});

test('kraft-16281 is also reached through a restart with the disk intact', async () => {
  const r = await check('kraft-16281', { maxResigns: 0 });
  assert.equal(r.status === 'violation' && r.property, 'NoIllegalState');
  assert.deepEqual(actions(r), ['Init', 'RestartWithState', 'ElectionTimeout', 'HandleVoteRequest', 'HandleVoteResponse']);
});

test('kraft-fixed-leaderid: exhaustive, no safety violation', async () => {
  const r = await check('kraft-fixed-leaderid');
  assert.equal(r.status, 'holds');
  assert.equal(r.stats.distinct, 8474);
  assert.equal(r.stats.depth, 23);
  assert.deepEqual(r.witnesses, ['LeaderElected', 'PreVoteRejectedWithKnownLeader', 'LeaderResigned', 'PreVoteToOwnFollower', 'PreVoteReplyNamesRequester']);
});

test('kraft-fixed-prospective: exhaustive, no safety violation', { skip: SLOW }, async () => {
  const r = await check('kraft-fixed-prospective');
  assert.equal(r.status, 'holds');
  assert.equal(r.stats.distinct, 27199);
  assert.equal(r.stats.depth, 24);
  assert.deepEqual(r.witnesses, ['LeaderElected', 'PreVoteRejectedWithKnownLeader', 'LeaderResigned', 'PreVoteToOwnFollower', 'PreVoteReplyNamesRequester']);
});

test('kraft-fixed-resigned-unattached: exhaustive, no safety violation, and the trigger never occurs', { skip: SLOW }, async () => {
  const r = await check('kraft-fixed-resigned-unattached', {}, [triggerClosed]);
  assert.equal(r.status, 'holds');
  assert.equal(r.stats.distinct, 32232);
  assert.equal(r.stats.depth, 26);
  assert.deepEqual(r.witnesses, ['LeaderElected', 'PreVoteRejectedWithKnownLeader', 'LeaderResigned', 'PreVoteToOwnFollower']);
});


test('kraft-shipped: Kafka after KIP-996 and KAFKA-17642, exhaustive, no safety violation, and the trigger never occurs', { skip: SLOW }, async () => {
  const r = await check('kraft-shipped', {}, [triggerClosed]);
  assert.equal(r.status, 'holds');
  assert.equal(r.stats.distinct, 33729);
  assert.equal(r.stats.depth, 28);
  assert.deepEqual(r.witnesses, ['LeaderElected', 'PreVoteRejectedWithKnownLeader', 'LeaderResigned', 'PreVoteToOwnFollower', 'PreVoteReplyNamesKnownLeader']);
});

test('fault presets: each fix holds with a lost message, a cut link, or a voter that lost its disk, and still elects a leader', { skip: SLOW }, async () => {
  const expected: [string, number, number, string, string][] = [
    ['kraft-fixed-leaderid-message-loss', 26786, 23, 'DropMessage', 'LeaderElectedAfterLoss'],
    ['kraft-fixed-leaderid-link-cut', 20606, 23, 'ChangeConnectivity', 'LeaderElectedWhileLinkCut'],
    ['kraft-shipped-disk-loss', 42152, 28, 'CrashLoseState', 'LeaderElectedAfterDiskLoss'],
  ];
  for (const [preset, distinct, depth, fault, witness] of expected) {
    const r = await check(preset);
    assert.equal(r.status, 'holds', preset);
    assert.deepEqual([r.stats.distinct, r.stats.depth], [distinct, depth], preset);
    assert.ok(r.stats.coverage.find((c) => c.action === fault)!.newStates > 0, `${preset}: ${fault} fires`);
    assert.ok(r.witnesses.includes(witness), `${preset} reaches ${witness}`);
  }
});

test('a fix still holds when a voter may crash and lose its disk', { skip: SLOW }, async () => {
  const r = await check('kraft-fixed-leaderid', { maxCrashes: 1 });
  assert.equal(r.status, 'holds');
  assert.equal(r.stats.distinct, 10762);
  assert.equal(r.stats.depth, 23);
});

/** Searched once here, and compared with a second search by the determinism test. */
let doubleVote: ReturnType<typeof check> | undefined;

test('kraft-double-vote: the planted bug elects two leaders of epoch 2', async () => {
  const r = await (doubleVote ??= check('kraft-double-vote'));
  assert.equal(r.status === 'violation' && r.property, 'ElectionSafety');
  assert.equal(r.stats.distinct, 1172);
  assert.equal(r.stats.depth, 11);
  assert.deepEqual(actions(r), [
    'Init',
    'FetchTimeout',
    'FetchTimeout',
    'HandleVoteRequest',
    'HandleVoteRequest',
    'HandleVoteResponse',
    'HandleVoteRequest',
    'HandleVoteResponse',
    'HandleVoteResponse',
    'HandleVoteRequest',
    'HandleVoteResponse',
  ]);
  const last = traceOf(r)!.steps.at(-1)!.state;
  assert.deepEqual(
    [...last.replicas.entries()].map(([id, x]) => [id, x.role, x.epoch]),
    [
      ['r1', 'Voted', 2],
      ['r2', 'Leader', 2],
      ['r3', 'Leader', 2],
    ],
  );
});

test('without the planted bug the same bounds are safe', async () => {
  const r = await check('kraft-double-vote', { bug: 'none' });
  assert.equal(r.status, 'holds');
});

test('kraft-bench: exhaustive, no safety violation, reaching a diverging-epoch truncation', { skip: !process.env.KMC_SLOW && 'set KMC_SLOW=1 (about 20 s)' }, async () => {
  const params = paramsOf('kraft-bench');
  const model = spec.build(params);
  const diverging = sometimes<KraftState>('DivergingFetch', 'a leader tells a follower to truncate', (s) =>
    s.net.some((m) => m.type === 'FetchResponse' && m.divergingEpoch !== null),
  );
  const r = await checkModel({ ...model, properties: [...model.properties, diverging] }, { deadlock: false }, { spec: 'kraft', preset: 'kraft-bench', params });
  assert.equal(r.status, 'holds');
  assert.equal(r.stats.distinct, 116765);
  assert.equal(r.stats.depth, 29);
  assert.ok(r.witnesses.includes('DivergingFetch'), `a diverging fetch is reached; witnesses: ${r.witnesses.join(', ')}`);
});

/** The deeper presets of the default suite, exhaustive: distinct states and depth as `ci/kmc.baseline.json` records them. */
const DEEP: readonly { preset: string; distinct: number; depth: number }[] = [
  { preset: 'kraft-deep-diverge', distinct: 136590, depth: 32 },
  { preset: 'kraft-deep-restart', distinct: 593434, depth: 36 },
  { preset: 'kraft-deep-4voters', distinct: 750816, depth: 38 },
];

for (const { preset, distinct, depth } of DEEP) {
  test(`${preset}: exhaustive, no safety violation in ${distinct} states`, { skip: !process.env.KMC_SLOW && 'set KMC_SLOW=1 (20-30 s each)' }, async () => {
    const r = await check(preset);
    assert.equal(r.status, 'holds');
    assert.deepEqual([r.stats.distinct, r.stats.depth], [distinct, depth]);
    assert.ok(r.witnesses.includes('LeaderElected'), `${preset} elects a new leader`);
  });
}

test('from a fresh quorum (all Unattached in epoch 0) the same bug follows the first election', { skip: SLOW }, async () => {
  const r = await check('kraft-16281', { init: 'fresh', maxElectionTimeouts: 2 });
  assert.equal(r.status === 'violation' && r.property, 'NoIllegalState');
  assert.equal(r.stats.distinct, 19252);
  assert.deepEqual(actions(r), [
    'Init',
    'ElectionTimeout',
    'HandleVoteRequest',
    'HandleVoteResponse',
    'HandleVoteRequest',
    'HandleVoteResponse',
    'CheckQuorumResign',
    'ElectionTimeout',
    'HandleBeginQuorumEpoch',
    'HandleVoteRequest',
    'HandleVoteResponse',
  ]);
  // r2 has not fetched from r1 yet, so it grants the pre-vote, but the reply still names r1 as leader.
  assert.deepEqual(traceOf(r)!.steps[10]!.events?.receives, [{ from: 'r2', to: 'r1', label: 'PreVoteResp e1 granted leader=r1' }]);
});

test('the same check twice gives the same counts and trace (deterministic successors)', async () => {
  const a = await (doubleVote ??= check('kraft-double-vote'));
  const b = await check('kraft-double-vote');
  assert.equal(a.stats.distinct, b.stats.distinct);
  assert.equal(a.stats.generated, b.stats.generated);
  assert.deepEqual(
    traceOf(a)!.steps.map((s) => [s.action, s.params.s]),
    traceOf(b)!.steps.map((s) => [s.action, s.params.s]),
  );
});

test('symmetry over the followers of the established leader keeps the verdicts', async () => {
  const params = paramsOf('kraft-fixed-leaderid');
  const model = spec.build(params);
  assert.deepEqual(model.symmetry, [['r2', 'r3']]);
  const r = await checkModel(model, { deadlock: false, symmetry: true }, { spec: 'kraft', params });
  assert.equal(r.status, 'holds');
  assert.ok(r.stats.distinct < 8474, `fewer states than the 8474 without symmetry, got ${r.stats.distinct}`);
  const bugParams = paramsOf('kraft-16281');
  const bug = await checkModel(spec.build(bugParams), { deadlock: false, symmetry: true }, { spec: 'kraft', params: bugParams });
  assert.equal(bug.status === 'violation' && bug.property, 'NoIllegalState');
  assert.equal(traceOf(bug)?.steps.length, 5);
});

/**
 * The fast tier's check of each preset searched exhaustively only in the slow tier: every state up to a
 * depth, with the preset's invariants and witnesses. Every state within the depth is searched, so the
 * counts do not depend on the order the actions are tried in. A fault preset's fault fires and a leader
 * is elected after it within the depth. The presets whose exhaustive test checks that KAFKA-16281's trigger
 * never occurs check it here too.
 */
const TO_DEPTH: readonly { preset: string; depth: number; distinct: number; generated: number; witnesses: string[]; fault?: string; closesTrigger?: boolean }[] = [
  { preset: 'kraft-fixed-prospective', depth: 7, distinct: 2711, generated: 7929, witnesses: ['LeaderElected', 'PreVoteRejectedWithKnownLeader', 'LeaderResigned', 'PreVoteToOwnFollower', 'PreVoteReplyNamesRequester'] },
  { preset: 'kraft-fixed-resigned-unattached', depth: 10, distinct: 1746, generated: 5772, closesTrigger: true, witnesses: ['LeaderElected', 'PreVoteRejectedWithKnownLeader', 'LeaderResigned', 'PreVoteToOwnFollower'] },
  { preset: 'kraft-shipped', depth: 11, distinct: 1743, generated: 5430, closesTrigger: true, witnesses: ['LeaderElected', 'PreVoteRejectedWithKnownLeader', 'LeaderResigned', 'PreVoteToOwnFollower', 'PreVoteReplyNamesKnownLeader'] },
  {
    preset: 'kraft-fixed-leaderid-message-loss', depth: 8, distinct: 3933, generated: 13625, fault: 'DropMessage',
    witnesses: ['LeaderElected', 'PreVoteRejectedWithKnownLeader', 'LeaderResigned', 'PreVoteToOwnFollower', 'PreVoteReplyNamesRequester', 'LeaderElectedAfterLoss'],
  },
  {
    preset: 'kraft-fixed-leaderid-link-cut', depth: 8, distinct: 2837, generated: 9797, fault: 'ChangeConnectivity',
    witnesses: ['LeaderElected', 'PreVoteRejectedWithKnownLeader', 'LeaderResigned', 'PreVoteToOwnFollower', 'PreVoteReplyNamesRequester', 'LeaderElectedWhileLinkCut'],
  },
  {
    preset: 'kraft-shipped-disk-loss', depth: 10, distinct: 1927, generated: 8072, fault: 'CrashLoseState',
    witnesses: ['LeaderElected', 'PreVoteRejectedWithKnownLeader', 'LeaderResigned', 'PreVoteToOwnFollower', 'PreVoteReplyNamesKnownLeader', 'LeaderElectedAfterDiskLoss'],
  },
  { preset: 'kraft-bench', depth: 7, distinct: 1853, generated: 5232, witnesses: ['LeaderElected', 'PreVoteRejectedWithKnownLeader', 'ValueCommitted', 'LeaderResigned'] },
  { preset: 'kraft-deep-diverge', depth: 7, distinct: 1486, generated: 4152, witnesses: ['LeaderElected', 'PreVoteRejectedWithKnownLeader', 'ValueCommitted', 'PreVoteReplyNamesKnownLeader'] },
  {
    preset: 'kraft-deep-restart', depth: 7, distinct: 5483, generated: 14799, fault: 'RestartWithState',
    witnesses: ['LeaderElected', 'PreVoteRejectedWithKnownLeader', 'ValueCommitted', 'LeaderResigned', 'PreVoteReplyNamesKnownLeader'],
  },
  { preset: 'kraft-deep-4voters', depth: 7, distinct: 27851, generated: 85640, fault: 'RestartWithState', witnesses: ['PreVoteRejectedWithKnownLeader', 'LeaderResigned', 'PreVoteReplyNamesKnownLeader'] },
];

for (const { preset, depth, distinct, generated, witnesses, fault, closesTrigger } of TO_DEPTH) {
  test(`${preset} to depth ${depth}: no safety violation in ${distinct} states${fault ? `, ${fault} fires and a leader is still elected` : ''}`, async () => {
    const p = spec.presets.find((x) => x.name === preset)!;
    const params = paramsOf(preset);
    const model = spec.build(params);
    const r = await checkModel({ ...model, properties: [...model.properties, ...(closesTrigger ? [triggerClosed] : [])] }, { deadlock: false, maxDepth: depth }, { spec: 'kraft', preset, params });
    assert.equal(p.expect.verdict, 'holds');
    assert.ok(r.status === 'incomplete', r.status);
    assert.equal(r.reason, 'maxDepth');
    assert.deepEqual([r.stats.distinct, r.stats.generated], [distinct, generated]);
    assert.deepEqual(r.witnesses, witnesses);
    if (fault) assert.ok(r.stats.coverage.find((c) => c.action === fault)!.newStates > 0, `${preset}: ${fault} fires`);
  });
}
