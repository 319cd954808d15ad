import { test } from 'node:test';
import assert from 'node:assert/strict';
import { List } from 'immutable';
import type { ActionParams, ParamValues } from '../spec.ts';
import { checkModel } from '../../checker/engine/check.ts';
import type { ActionCoverage } from '../../checker/engine/result.ts';
import spec, { configOf, initialState } from './replication.ts';
import { fetch, fetchSource, settle } from './broker.ts';
import { changePartition, registerBroker, uncleanCandidates } from './controller.ts';
import { bit, maskOf } from './ids.ts';
import { acceptsAppend, quorumSize } from './producer.ts';
import { boundsOf, type Config, type Log, NO_LEADER, type Partition, type ReplicationState } from './state.ts';

// ---- helpers -------------------------------------------------------------------------------------

// Hand-built states hold logs with values up to 3: the models they are checked with allow three values.
const cfg = (params: ParamValues = {}): Config => configOf({ values: 3, ...params });
const layout = cfg().layout;
const log = (...entries: [epoch: number, value: number][]): Log => layout.Log.from(entries.map(([epoch, value]) => ({ epoch, value })));

function stepText(action: string, params: ActionParams): string {
  const args = Object.entries(params).map(([k, v]) => `${k}=${List.isList(v) ? `[${(v as List<number>).join(',')}]` : String(v)}`);
  return args.length === 0 ? action : `${action}(${args.join(', ')})`;
}

async function check(name: string, overrides: ParamValues = {}) {
  const preset = spec.presets.find((p) => p.name === name)!;
  const params = { ...preset.params, ...overrides } as ParamValues;
  const result = await checkModel(spec.build(params), { deadlock: preset.options?.deadlock ?? true }, { spec: 'replication', preset: name, params });
  const trace = 'trace' in result && result.trace ? result.trace.steps.slice(1).map((s) => stepText(s.action, s.params)) : [];
  return { result, trace };
}

interface Pin {
  readonly status: 'holds' | 'violation';
  readonly property?: string;
  readonly distinct: number;
  readonly depth: number;
  readonly trace?: readonly string[];
}

/**
 * No action the search of preset `name` covered is reported never enabled: each is disabled by
 * parameters, declared dead with its reason, or reached; and none declared dead is enabled. Asserted on
 * the search each preset's pin makes (disabledBy.test.ts has the reasons themselves).
 */
function assertEveryActionAccountedFor(name: string, coverage: readonly ActionCoverage[]): void {
  const never = coverage.filter((c) => c.enabled === 0 && c.disabledBy === undefined && c.deadByConstruction === undefined).map((c) => c.action);
  assert.deepEqual(never, [], `${name}: actions never enabled, neither disabled by parameters nor declared dead`);
  const declaredButEnabled = coverage.filter((c) => c.deadByConstruction !== undefined && c.enabled > 0).map((c) => c.action);
  assert.deepEqual(declaredButEnabled, [], `${name}: actions declared dead but enabled`);
}

async function assertPin(name: string, overrides: ParamValues, pin: Pin): Promise<void> {
  const { result, trace } = await check(name, overrides);
  assert.equal(result.status, pin.status, `${name}: ${JSON.stringify(result.status === 'error' ? result.message : result)}`);
  if (pin.property !== undefined) assert.equal('property' in result ? result.property : undefined, pin.property);
  assert.equal(result.stats.distinct, pin.distinct, `${name}: distinct states`);
  assert.equal(result.stats.depth, pin.depth, `${name}: depth`);
  assert.deepEqual(trace, pin.trace ?? []);
  if (Object.keys(overrides).length === 0) assertEveryActionAccountedFor(name, result.stats.coverage);
}

// ---- presets -------------------------------------------------------------------------------------

const PINS: Readonly<Record<string, Pin>> = {
  'lrs-pre-elr': {
    status: 'violation',
    property: 'IsrHoldsCommitted',
    distinct: 143,
    depth: 5,
    trace: [
      'ProduceRecord(broker=0)',
      'ShrinkIsr(leader=0, follower=1)',
      'UncleanShutdown(broker=0, keep=0)',
      'StartBroker(broker=0)',
    ],
  },
  'elr': { status: 'holds', distinct: 44_722, depth: 19 },
  'elr-incarnation-unclean': {
    status: 'violation',
    property: 'NoAckedRecordLostEvenUnclean',
    distinct: 23_456,
    depth: 11,
    trace: [
      'ProduceRecord(broker=0)',
      'FetchRecords(broker=1)',
      'FetchRecords(broker=1)',
      'ShrinkIsr(leader=0, follower=2)',
      'ControlledShutdown(broker=0)',
      'CleanShutdown(broker=0)',
      'UncleanShutdown(broker=1, keep=0)',
      'StartBroker(broker=0)',
      'StartBroker(broker=1)',
      'FetchRecords(broker=0)',
    ],
  },
  'elr-2-partitions': { status: 'holds', distinct: 2_039_833, depth: 26 },
  'elr-incarnation-unclean-2-partitions': {
    status: 'violation',
    property: 'NoAckedRecordLostEvenUnclean',
    distinct: 82_879,
    depth: 10,
    trace: [
      'ProduceRecord(partition=0, broker=0)',
      'FetchRecords(partition=0, broker=1)',
      'FetchRecords(partition=0, broker=1)',
      'ControlledShutdown(broker=0)',
      'CleanShutdown(broker=0)',
      'UncleanShutdown(broker=1, keep=[0,0])',
      'StartBroker(broker=0)',
      'StartBroker(broker=1)',
      'FetchRecords(partition=0, broker=0)',
    ],
  },
  'acks-quorum-ghost': {
    status: 'violation',
    property: 'NoAckedRecordLost',
    distinct: 571,
    depth: 8,
    trace: [
      'PartitionNetwork(brokers=[0,1])',
      'ProduceRecord(broker=0)',
      'FetchRecords(broker=1)',
      'FetchRecords(broker=1)',
      'HealNetwork',
      'FetchRecords(broker=0)',
      'FetchRecords(broker=1)',
    ],
  },
  'acks-all-ghost': { status: 'holds', distinct: 640, depth: 12 },
  'acks-quorum-ar-order': {
    status: 'violation',
    property: 'NoAckedRecordLost',
    distinct: 695,
    depth: 8,
    trace: [
      'ProduceRecord(broker=0)',
      'FetchRecords(broker=2)',
      'FetchRecords(broker=2)',
      'PartitionNetwork(brokers=[0])',
      'HealNetwork',
      'FetchRecords(broker=0)',
      'FetchRecords(broker=2)',
    ],
  },
  'acks-quorum-leo': { status: 'holds', distinct: 920, depth: 11 },
  'acks-quorum-ghost-leo': {
    status: 'violation',
    property: 'NoAckedRecordLost',
    distinct: 620,
    depth: 8,
    trace: [
      'PartitionNetwork(brokers=[0,1])',
      'ProduceRecord(broker=0)',
      'FetchRecords(broker=1)',
      'FetchRecords(broker=1)',
      'HealNetwork',
      'FetchRecords(broker=0)',
      'FetchRecords(broker=1)',
    ],
  },
  'acks-quorum-preferred': {
    status: 'violation',
    property: 'NoAckedRecordLost',
    distinct: 525,
    depth: 12,
    trace: [
      'ControlledShutdown(broker=0)',
      'CleanShutdown(broker=0)',
      'StartBroker(broker=0)',
      'FetchRecords(broker=0)',
      'ProduceRecord(broker=1)',
      'FetchRecords(broker=2)',
      'ExpandIsr(leader=1, follower=0)',
      'FetchRecords(broker=2)',
      'ElectPreferredLeader',
      'FetchRecords(broker=1)',
      'FetchRecords(broker=2)',
    ],
  },
  'acks-quorum-preferred-safe': { status: 'holds', distinct: 524, depth: 13 },
  'acks-all-lenient-hwm': { status: 'holds', distinct: 2474, depth: 15 },
  'unclean-aggressive': {
    status: 'violation',
    property: 'NoAckedRecordLostEvenUnclean',
    distinct: 2553,
    depth: 10,
    trace: [
      'ProduceRecord(broker=0)',
      'FetchRecords(broker=1)',
      'FetchRecords(broker=1)',
      'ShrinkIsr(leader=0, follower=2)',
      'PartitionNetwork(brokers=[0,1])',
      'ElectUncleanLeader(broker=2)',
      'HealNetwork',
      'FetchRecords(broker=0)',
      'FetchRecords(broker=1)',
    ],
  },
  'balanced-empty': {
    status: 'violation',
    property: 'NoAckedRecordLostEvenUnclean',
    distinct: 6607,
    depth: 10,
    trace: [
      'ProduceRecord(broker=0)',
      'FetchRecords(broker=1)',
      'FetchRecords(broker=1)',
      'ShrinkIsr(leader=0, follower=2)',
      'UncleanShutdown(broker=0, keep=1)',
      'UncleanShutdown(broker=1, keep=0)',
      'StartBroker(broker=0)',
      'StartBroker(broker=1)',
      'FetchRecords(broker=0)',
    ],
  },
  'balanced-recovery-manager': { status: 'holds', distinct: 14_881, depth: 18 },
  'empty-disk-13872': {
    status: 'violation',
    property: 'TruncationKeepsCommitted',
    distinct: 725,
    depth: 8,
    trace: [
      'ProduceRecord(broker=0)',
      'FetchRecords(broker=1)',
      'ShrinkIsr(leader=0, follower=1)',
      'ShrinkIsr(leader=0, follower=2)',
      'ReplaceDisk(broker=0)',
      'StartBroker(broker=0)',
      'FetchRecords(broker=1)',
    ],
  },
  'empty-disk-kip966': {
    status: 'violation',
    property: 'TruncationKeepsCommitted',
    distinct: 728,
    depth: 8,
    trace: [
      'ProduceRecord(broker=0)',
      'FetchRecords(broker=1)',
      'ShrinkIsr(leader=0, follower=1)',
      'ShrinkIsr(leader=0, follower=2)',
      'ReplaceDisk(broker=0)',
      'StartBroker(broker=0)',
      'FetchRecords(broker=1)',
    ],
  },
  'diverging-logs': { status: 'holds', distinct: 6761, depth: 17 },
  'diverging-pre-elr': { status: 'holds', distinct: 9726, depth: 15 },
  'diverging-deep': { status: 'holds', distinct: 585_668, depth: 26 },
};

// replication-live is pinned with its lassos in liveness.test.ts.
test('every preset but the benchmark and the liveness one is pinned, and its pin agrees with its expectation', () => {
  const names = spec.presets.map((p) => p.name).filter((n) => n !== 'replication-bench' && n !== 'replication-live');
  assert.deepEqual(names, Object.keys(PINS));
  for (const p of spec.presets) {
    const pin = PINS[p.name];
    if (!pin) continue;
    assert.equal(pin.status, p.expect.verdict === 'holds' ? 'holds' : 'violation', p.name);
    if (p.expect.verdict === 'violates') assert.equal(pin.property, p.expect.property, p.name);
  }
});

/**
 * Presets whose full search takes seconds: the slow tier (KMC_SLOW=1) pins the whole search, the fast tier
 * every state to a depth (exact counts that do not depend on the order actions are tried in).
 */
const TO_A_DEPTH_IN_THE_FAST_TIER: Readonly<Record<string, { readonly maxDepth: number; readonly distinct: number; readonly depth: number }>> = {
  'elr-2-partitions': { maxDepth: 9, distinct: 128_338, depth: 10 },
  'diverging-deep': { maxDepth: 12, distinct: 227_028, depth: 13 },
};

for (const [name, pin] of Object.entries(PINS)) {
  const bounded = TO_A_DEPTH_IN_THE_FAST_TIER[name];
  if (bounded === undefined) {
    test(`preset ${name}`, () => assertPin(name, {}, pin));
    continue;
  }
  test(`preset ${name} (slow; set KMC_SLOW=1)`, { skip: !process.env.KMC_SLOW }, () => assertPin(name, {}, pin));
  test(`preset ${name} to depth ${bounded.maxDepth}: no violation, exact counts`, async () => {
    const preset = spec.presets.find((p) => p.name === name)!;
    const params = preset.params as ParamValues;
    const r = await checkModel(spec.build(params), { deadlock: preset.options?.deadlock ?? true, maxDepth: bounded.maxDepth }, { spec: 'replication', preset: name, params });
    assert.equal(r.status, 'incomplete', JSON.stringify(r.status === 'error' ? r.message : r.status));
    assert.equal('reason' in r ? r.reason : undefined, 'maxDepth');
    assert.deepEqual([r.stats.distinct, r.stats.depth], [bounded.distinct, bounded.depth]);
    assertEveryActionAccountedFor(name, r.stats.coverage);
  });
}

// Each preset pinned above has every action accounted for on the search of its pin; these two, searched
// here by no pin in the fast tier, in their first 60,000 states.
test('replication-live and replication-bench: no action reported never enabled in their first 60,000 states: each is disabled by parameters, declared dead with its reason, or reached', async () => {
  for (const name of ['replication-live', 'replication-bench']) {
    const p = spec.presets.find((x) => x.name === name)!;
    const params = { ...Object.fromEntries(spec.params.map((d) => [d.name, d.default])), ...p.params } as ParamValues;
    const r = await checkModel(spec.build(params), { deadlock: false, maxStates: 60_000 }, { spec: 'replication', preset: name, params });
    if (r.status === 'error') assert.fail(`${name}: ${r.message}`);
    assertEveryActionAccountedFor(name, r.stats.coverage);
  }
});

test('preset replication-bench (slow; set KMC_SLOW=1)', { skip: !process.env.KMC_SLOW }, () =>
  assertPin('replication-bench', {}, { status: 'holds', distinct: 538_217, depth: 25 }),
);

test('lrs-pre-elr also loses an acknowledged record: with NoAckedRecordLost the only safety property, it fails after 7 steps', async () => {
  const preset = spec.presets.find((p) => p.name === 'lrs-pre-elr')!;
  const params = preset.params as ParamValues;
  const model = spec.build(params);
  const onlyAcks = { ...model, properties: model.properties.filter((p) => p.kind !== 'always' || p.name === 'NoAckedRecordLost') };
  const r = await checkModel(onlyAcks, { deadlock: false }, { spec: 'replication', preset: preset.name, params });
  assert.equal(r.status, 'violation');
  assert.equal('property' in r ? r.property : undefined, 'NoAckedRecordLost');
  assert.equal('trace' in r ? r.trace!.steps.length - 1 : undefined, 7);
});

// ---- what closes each history --------------------------------------------------------------------

test('KIP-966 closes the last replica standing: the lrs-pre-elr faults with the ELR and strict HW hold', () =>
  assertPin('lrs-pre-elr', { elr: true, strictHwm: true }, { status: 'holds', distinct: 2977, depth: 16 }));

test('without unclean-shutdown detection, a replica that lost data rejoins the ELR', () =>
  assertPin('elr', { cleanShutdownCheck: 'none' }, {
    status: 'violation',
    property: 'ElrMembersHoldCommitted',
    distinct: 3123,
    depth: 7,
    trace: ['ProduceRecord(broker=0)', 'FetchRecords(broker=1)', 'FetchRecords(broker=1)', 'ShrinkIsr(leader=0, follower=2)', 'UncleanShutdown(broker=0, keep=0)', 'StartBroker(broker=0)'],
  }));

test('without the strict high watermark, the ELR member that is elected lacks committed data', () =>
  assertPin('elr', { strictHwm: false }, {
    status: 'violation',
    // The elected ELR member is the new ISR without the record the leader committed alone.
    property: 'IsrHoldsCommitted',
    distinct: 525,
    depth: 5,
    trace: ['ProduceRecord(broker=0)', 'ShrinkIsr(leader=0, follower=1)', 'ShrinkIsr(leader=0, follower=2)', 'ControlledShutdown(broker=0)'],
  }));

test('unclean-shutdown detection is what closes KAFKA-13872: with the ELR but no detection the empty broker is elected', () =>
  assertPin('empty-disk-13872', { elr: true, strictHwm: true, cleanShutdownCheck: 'none' }, {
    status: 'violation',
    property: 'TruncationKeepsCommitted',
    distinct: 725,
    depth: 8,
    trace: PINS['empty-disk-13872']!.trace,
  }));

test('KAFKA-13872 with KIP-966 and strategy None also holds (the partition waits offline)', () =>
  assertPin('empty-disk-kip966', { strategy: 'None' }, { status: 'holds', distinct: 1257, depth: 15 }));

test('Aggressive with the Unclean Recovery Manager still loses: only the stale replica is available', () =>
  assertPin('unclean-aggressive', { recoveryManager: true }, {
    status: 'violation',
    property: 'NoAckedRecordLostEvenUnclean',
    distinct: 2553,
    depth: 10,
    trace: PINS['unclean-aggressive']!.trace!.map((s) => s.replace('ElectUncleanLeader', 'UncleanRecovery')),
  }));

test('preferred-leader election is safe under acks=all: the preferred replica in the ISR holds every acknowledged record', () =>
  assertPin('acks-quorum-preferred', { acks: 'all' }, { status: 'holds', distinct: 421, depth: 14 }));

test('Balanced waits where Aggressive elects: the unclean-aggressive faults hold under Balanced', () =>
  assertPin('unclean-aggressive', { strategy: 'Balanced' }, { status: 'holds', distinct: 2506, depth: 14 }));

// ---- controller rules on hand-built partitions ---------------------------------------------------

const part = (leader: number, isr: number[], elr: number[] = [], lke: number[] = []): Partition =>
  layout.Partition.from({ leader, leaderEpoch: 1, partitionEpoch: 1, isr, elr, lastKnownElr: lke });
const mask = (...ids: number[]) => ids.reduce((m, b) => m | bit(b), 0);

test('before KIP-966 the last ISR member stays in the ISR when fenced, leaderless (last replica standing)', () => {
  const c = changePartition(cfg({ elr: false }), part(0, [0]), mask(0), 0);
  assert.equal(c.partition.leader, NO_LEADER);
  assert.deepEqual(c.partition.isr.toArray(), [0]);
  assert.equal(c.partition.leaderEpoch, 2);
  assert.equal(c.partition.recovering, false);
});

test('KIP-966: leaving the ISR below min.insync.replicas joins the ELR; reaching it clears ELR and LastKnownELR', () => {
  const shrunk = changePartition(cfg(), part(0, [0, 1]), 0, mask(0)).partition;
  assert.deepEqual(shrunk.isr.toArray(), [0]);
  assert.deepEqual(shrunk.elr.toArray(), [1]);
  assert.equal(shrunk.leaderEpoch, 1, 'an ISR change keeps the leader epoch');
  assert.equal(shrunk.partitionEpoch, 2);
  const expanded = changePartition(cfg(), part(0, [0], [1], [2]), 0, mask(0, 2)).partition;
  assert.deepEqual([expanded.elr.size, expanded.lastKnownElr.size], [0, 0]);
  assert.deepEqual(changePartition(cfg(), part(0, [0, 1, 2]), 0, mask(0, 1)).partition.elr.toArray(), []);
});

test('KIP-966: the last ISR member fenced empties the ISR; an unfenced ELR member is elected and becomes the ISR', () => {
  const fenced = changePartition(cfg(), part(0, [0], [1]), mask(0, 1), 0).partition;
  assert.equal(fenced.leader, NO_LEADER);
  assert.deepEqual([fenced.isr.size, fenced.elr.toArray()], [0, [0, 1]]);
  const elected = changePartition(cfg(), fenced, mask(0), 0).partition;
  assert.equal(elected.leader, 1);
  assert.deepEqual([elected.isr.toArray(), elected.elr.toArray()], [[1], [0]]);
});

test('KIP-966 with the recovery manager: a broker found to have shut down uncleanly moves from the ELR to the LastKnownELR', () => {
  const c = changePartition(cfg({ recoveryManager: true }), part(NO_LEADER, [], [0, 1]), mask(0, 1), 0, 1).partition;
  assert.deepEqual([c.elr.toArray(), c.lastKnownElr.toArray()], [[0], [1]]);
  const shipped = changePartition(cfg(), part(NO_LEADER, [], [0, 1], [0]), mask(0, 1), 0, 1).partition;
  assert.deepEqual([shipped.elr.toArray(), shipped.lastKnownElr.toArray()], [[0], [0]], 'Kafka keeps the last known leader there instead');
});

function state(logs: Log[], p: Partition, fenced: number[] = []): ReplicationState {
  return layout.State.from({
    brokers: logs.map((l, b) => [b, { running: true, log: l, hw: 0, view: null, cleanShutdownFile: false }] as const),
    partition: p,
    fenced,
  });
}

test('registration after an unclean shutdown: KIP-966 removes the broker from the ELR; Kafka 3.5 re-elects it', () => {
  const s = state([log(), log([1, 1]), log()], part(NO_LEADER, [], [0, 1]), [0, 1]);
  const withElr = registerBroker(s, cfg(), 0, false);
  assert.deepEqual([withElr.partition.leader, withElr.partition.elr.toArray()], [NO_LEADER, [1]]);
  assert.equal(maskOf(withElr.fenced), mask(1));
  const clean = registerBroker(s, cfg(), 0, true);
  assert.equal(clean.partition.leader, 0, 'a clean restart keeps ELR eligibility');
  const old = registerBroker(state([log(), log([1, 1]), log()], part(NO_LEADER, [0]), [0]), cfg({ elr: false }), 0, false);
  assert.equal(old.partition.leader, 0);
});

test('unclean paths by strategy (KIP-966 thread): None never, Balanced waits for the last known leader, Aggressive takes anyone', () => {
  const p = part(NO_LEADER, [], [1], [1]);
  const s = state([log(), log([1, 1]), log()], p, [1]);
  assert.deepEqual(uncleanCandidates(s, cfg({ strategy: 'None' }), 'ElectUncleanLeader'), []);
  assert.deepEqual(uncleanCandidates(s, cfg({ strategy: 'Balanced' }), 'ElectUncleanLeader'), [], 'the ELR is not empty');
  assert.deepEqual(uncleanCandidates(s, cfg({ strategy: 'Aggressive' }), 'ElectUncleanLeader'), [0, 2]);
  assert.deepEqual(uncleanCandidates(s, cfg({ strategy: 'Aggressive' }), 'UncleanRecovery'), [], 'the manager is off');
  const empty = state([log([1, 1]), log([1, 1], [2, 2]), log()], part(NO_LEADER, [], [], [1]), [1]);
  assert.deepEqual(uncleanCandidates(empty, cfg({ strategy: 'Balanced' }), 'ElectUncleanLeader'), [], 'waits for broker 1');
  assert.deepEqual(uncleanCandidates(empty, cfg({ strategy: 'Balanced', balancedFallback: 'lastKnownLeaderOrAny' }), 'ElectUncleanLeader'), [0, 2]);
  const lastKnownElr = state([log([1, 1]), log([1, 1], [2, 2]), log()], part(NO_LEADER, [], [], [0, 1]), [1]);
  assert.deepEqual(uncleanCandidates(lastKnownElr, cfg({ strategy: 'Balanced', recoveryManager: true }), 'UncleanRecovery'), [], 'waits for LastKnownELR');
  const back = lastKnownElr.set('fenced', []);
  assert.deepEqual(uncleanCandidates(back, cfg({ strategy: 'Balanced', recoveryManager: true }), 'UncleanRecovery'), [1], 'longest log');
  assert.deepEqual(uncleanCandidates(empty.set('fenced', []), cfg({ strategy: 'Balanced' }), 'ElectUncleanLeader'), [], 'the normal election takes it');
});

test('Aggressive never elects a last known leader in controlled shutdown (isAcceptableLeader, KIP-841)', () => {
  // The leader cut off with broker 1 began a controlled shutdown: it left the ISR and became the last known leader.
  const s = state([log([1, 1]), log([1, 1]), log([1, 1])], part(NO_LEADER, [], [1, 2], [2]), [0, 1]).set('shuttingDown', [2]);
  assert.deepEqual(uncleanCandidates(s, cfg({ strategy: 'Aggressive' }), 'ElectUncleanLeader'), []);
  assert.deepEqual(uncleanCandidates(s.set('shuttingDown', []), cfg({ strategy: 'Aggressive' }), 'ElectUncleanLeader'), [], 'an unfenced ELR member: no unclean election');
  assert.deepEqual(uncleanCandidates(s.set('shuttingDown', []).set('fenced', [0, 1, 2]), cfg({ strategy: 'Aggressive' }), 'ElectUncleanLeader'), [], 'nobody is available');
});

test('Kafka as shipped: the last known leader is stored when the ISR empties and elected inside the normal election, RECOVERING', () => {
  // maybeUpdateLastKnownLeader: the last ISR member (the leader) fenced empties the ISR.
  const leaderless = changePartition(cfg({ minIsr: 1 }), part(0, [0]), mask(0), 0).partition;
  assert.deepEqual([leaderless.leader, leaderless.isr.size, leaderless.lastKnownElr.toArray()], [NO_LEADER, 0, [0]]);
  // handleBrokerUncleanShutdown takes it out of the ELR; the unfence then elects it (canElectLastKnownLeader).
  const uncleanRestart = changePartition(cfg({ minIsr: 1 }), leaderless, mask(0), 0, 0).partition;
  assert.deepEqual([uncleanRestart.leader, uncleanRestart.elr.size, uncleanRestart.lastKnownElr.toArray()], [NO_LEADER, 0, [0]]);
  const elected = changePartition(cfg({ minIsr: 1 }), uncleanRestart, 0, 0);
  assert.deepEqual([elected.partition.leader, elected.partition.isr.toArray(), elected.partition.lastKnownElr.size], [0, [0], 0]);
  assert.equal(elected.partition.recovering, true);
  assert.equal(elected.lastKnownLeaderElected, true);
  assert.equal(changePartition(cfg({ minIsr: 1, strategy: 'None' }), uncleanRestart, 0, 0).partition.leader, NO_LEADER, 'strategy None never elects uncleanly');
  assert.equal(changePartition(cfg({ minIsr: 1 }), uncleanRestart, mask(0), 0).partition.leader, NO_LEADER, 'a fenced last known leader is not elected (KAFKA-19522)');
});

// ---- broker rules on hand-built states -----------------------------------------------------------

test('a follower truncates a divergent suffix (KIP-279) and appends one record per fetch', () => {
  const s = state([log([1, 1], [3, 3]), log([1, 1], [2, 2]), log()], part(0, [0, 1, 2]).set('leaderEpoch', 3));
  assert.equal(fetchSource(s, 1), 0);
  assert.deepEqual(fetch(s, 1, 0).brokers.get(1)!.log.toJS(), [{ epoch: 1, value: 1 }, { epoch: 3, value: 3 }]);
  assert.deepEqual(fetch(s, 2, 0).brokers.get(2)!.log.toJS(), [{ epoch: 1, value: 1 }]);
  // The leader records the valid fetch: the common prefix, the follower's log end before the record it takes.
  assert.equal(fetch(s, 1, 0).brokers.get(0)!.fetchOffsets.get(1), 1);
  assert.equal(fetch(s, 2, 0).brokers.get(0)!.fetchOffsets.get(2), 0);
  // A follower with the leader's log still fetches once, so that the leader learns its log end.
  const caughtUp = state([log([1, 1]), log([1, 1]), log([1, 1])], part(0, [0, 1, 2]));
  assert.equal(fetchSource(caughtUp, 1), 0);
  const known = fetch(caughtUp, 1, 0);
  assert.equal(known.brokers.get(0)!.fetchOffsets.get(1), 1);
  assert.equal(fetchSource(known, 1), NO_LEADER, 'a fetch that changes nothing is not a step');
});

test('a truncation that erases the last copy of a committed record is recorded, whatever election came first', () => {
  const s = state([log(), log([1, 1]), log()], part(0, [0]).set('leaderEpoch', 3)).setIn(['ghost', 'committed'], log([1, 1]));
  assert.equal(fetch(s, 1, 0).ghost.committedTruncated, true);
  assert.equal(fetch(s.setIn(['ghost', 'uncleanElection'], true), 1, 0).ghost.committedTruncated, true);
  const twoCopies = state([log(), log([1, 1]), log([1, 1])], part(0, [0]).set('leaderEpoch', 3)).setIn(['ghost', 'committed'], log([1, 1]));
  assert.equal(fetch(twoCopies, 1, 0).ghost.committedTruncated, false);
});

test('a ghost leader with a stale ISR of three acks with two copies under quorum, never under all', () => {
  const stale = part(0, [0, 1, 2]);
  const s = state([log([1, 1]), log([1, 1]), log()], part(2, [2]).set('leaderEpoch', 3))
    .update('brokers', (bs) => bs.map((b, i) => (i < 2 ? b.set('view', stale) : b)))
    .set('cut', [0, 1])
    .setIn(['brokers', 0, 'fetchOffsets', 1], 1);
  const quorum = settle(s, cfg({ acks: 'quorum' }));
  assert.deepEqual(quorum.ghost.acked.toArray(), [1]);
  assert.equal(quorum.brokers.get(0)!.hw, 0, 'the high watermark stays the ISR minimum (the ghost never heard from broker 2)');
  assert.equal(settle(s, cfg({ acks: 'all' })).ghost.acked.size, 0);
  assert.equal(quorumSize(cfg()), 2);
  assert.equal(quorumSize(cfg({ rf: 5, minIsr: 2 })), 3);
});

test('a ghost leader learns nothing about ISR members across the cut: their fetches from the new leader do not advance its high watermark', () => {
  // Broker 0 is cut off alone with its stale ISR {0, 1, 2}; brokers 1 and 2 got record 1 from the new leader.
  const stale = part(0, [0, 1, 2]);
  const alone = state([log([1, 1]), log([1, 1]), log([1, 1])], part(2, [1, 2]).set('leaderEpoch', 3), [0])
    .update('brokers', (bs) => bs.map((b, i) => (i === 0 ? b.set('view', stale) : b)))
    .set('cut', [0]);
  const settled = settle(alone, cfg());
  assert.equal(settled.brokers.get(0)!.hw, 0, 'Partition.maybeIncrementLeaderHW waits on fetch offsets that cannot cross the cut');
  assert.equal(fetchSource(alone, 1), 2, 'broker 1 fetches from the new leader, not from the ghost');
  assert.equal(settled.ghost.acked.size, 0, 'the ghost does not acknowledge record 1 (epoch 1 is its own)');
  // A high watermark already reached stays; an ISR member on the ghost's side still counts.
  assert.equal(settle(alone.setIn(['brokers', 0, 'hw'], 1), cfg()).brokers.get(0)!.hw, 1);
  const withFollower = alone
    .update('brokers', (bs) => bs.map((b, i) => (i === 1 ? b.set('view', part(0, [0, 1])) : i === 0 ? b.set('view', part(0, [0, 1])) : b)))
    .set('cut', [0, 1]);
  assert.equal(settle(withFollower, cfg()).brokers.get(0)!.hw, 0, 'the ghost has not heard from broker 1 yet');
  assert.equal(settle(withFollower.setIn(['brokers', 0, 'fetchOffsets', 1], 1), cfg()).brokers.get(0)!.hw, 1);
});

test('replication-bench with four brokers: no violation through depth 8 (slow; set KMC_SLOW=1)', { skip: !process.env.KMC_SLOW }, async () => {
  const preset = spec.presets.find((p) => p.name === 'replication-bench')!;
  const params = { ...preset.params, rf: 4 } as ParamValues;
  const r = await checkModel(spec.build(params), { deadlock: false, maxDepth: 8 }, { spec: 'replication', preset: preset.name, params });
  assert.equal(r.status, 'incomplete', JSON.stringify(r.status === 'error' ? r.message : r.status));
  assert.equal('reason' in r ? r.reason : undefined, 'maxDepth');
  assert.deepEqual([r.stats.distinct, r.stats.depth], [485_337, 9]);
});

test('the strict high watermark (KIP-966) does not advance while the ISR is below min.insync.replicas', () => {
  const s = state([log([1, 1]), log([1, 1]), log()], part(0, [0]));
  assert.equal(settle(s, cfg({ acks: '1' })).brokers.get(0)!.hw, 0);
  assert.equal(settle(s, cfg({ acks: '1', strictHwm: false })).brokers.get(0)!.hw, 1);
  assert.deepEqual(settle(s, cfg({ acks: '1', strictHwm: false })).ghost.committed.toJS(), [{ epoch: 1, value: 1 }]);
});

test('acks=all is refused below min.insync.replicas (NotEnoughReplicas); acks=1 is not', () => {
  assert.equal(acceptsAppend(cfg(), 1), false);
  assert.equal(acceptsAppend(cfg(), 2), true);
  assert.equal(acceptsAppend(cfg({ acks: '1' }), 1), true);
});

test('the initial state: broker 0 leads epoch 1 over the first initIsr replicas; logs empty', () => {
  const s = initialState(cfg({ initIsr: 2 }));
  assert.deepEqual([s.partition.leader, s.partition.leaderEpoch, s.partition.isr.toArray()], [0, 1, [0, 1]]);
  assert.ok(s.brokers.every((b) => b.running && b.log.isEmpty()), 'every broker starts running, with an empty log');
});

// ---- the layout ----------------------------------------------------------------------------------

test('the layout is the type declaration: a value beyond the bounds the parameters imply is an error naming the field', () => {
  const c = cfg({ maxIsrShrinks: 2 });
  const s = initialState(c);
  assert.equal(s.setIn(['faults', 'isrShrinks'], 2).faults.isrShrinks, 2);
  assert.throws(() => s.setIn(['faults', 'isrShrinks'], 3), (e: Error) => e.name === 'LayoutError' && e.message.includes('faults.isrShrinks') && e.message.includes('0..2'));
  assert.throws(() => s.updateIn(['brokers', 0, 'log'], (l: Log) => l.push({ epoch: 1, value: 1 }, { epoch: 1, value: 2 }, { epoch: 1, value: 3 }, { epoch: 1, value: 4 })), /brokers\.0\.log/);
  assert.throws(() => s.setIn(['partition', 'leader'], 3), /partition\.leader/);
});

test('bounds follow the fault budgets: leader and partition epochs grow with the changes the faults allow', () => {
  const small = boundsOf({ rf: 3, values: 1, maxUncleanShutdowns: 1, maxCleanShutdowns: 0, maxEmptyDisks: 0, maxPartitions: 0, maxIsrShrinks: 2 });
  assert.deepEqual([small.maxLeaderEpoch, small.maxPartitionEpoch], [19, 88]);
  const bench = cfg(spec.presets.find((p) => p.name === 'replication-bench')!.params as ParamValues).layout.State;
  assert.ok(bench.width < 128, `a replication-bench state is ${bench.width} bytes`);
});

test('a leader re-elected in a new epoch keeps its followers\' fetch offsets, none of them counted as fetched in this epoch; one that stops leading forgets them', () => {
  const before = state([log([1, 1]), log([1, 1]), log()], part(0, [0, 1, 2]))
    .setIn(['brokers', 0, 'fetchOffsets', 1], 1)
    .setIn(['brokers', 0, 'fetchOffsets', 2], 0);
  const reelected = settle(before.setIn(['partition', 'leaderEpoch'], 2), cfg(), before);
  assert.deepEqual(reelected.brokers.get(0)!.fetchOffsets.toJS(), { 0: -1, 1: 1, 2: 0 });
  assert.deepEqual(reelected.brokers.get(0)!.staleFetch.toArray(), [1, 2]);
  assert.equal(maskOf(reelected.brokers.get(0)!.staleFetch), mask(1, 2), 'only the followers\' bits: the state stays canonical');
  // The same epoch: nothing is stale.
  assert.equal(settle(before, cfg(), before).brokers.get(0)!.staleFetch.size, 0);
  // Deposed: the fetch state is dropped (a new leadership starts unknown).
  const deposed = settle(before.setIn(['partition', 'leader'], 1).setIn(['partition', 'leaderEpoch'], 2), cfg(), before);
  assert.deepEqual(deposed.brokers.get(0)!.fetchOffsets.toJS(), { 0: -1, 1: -1, 2: -1 });
});
