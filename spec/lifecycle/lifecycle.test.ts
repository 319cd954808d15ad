import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ParamValues } from '../spec.ts';
import { checkModel } from '../../checker/engine/check.ts';
import spec, { configOf, initialState } from './lifecycle.ts';
import { applyRecord, brokerRecord, fenceChanges, fencedBrokerRecord, initialImage, unfenceBroker, unfenceChanges } from './metadata.ts';
import { brokerEpochMonotonic, epochUniquePerIncarnation, fencedNotLeaderNotInIsr, singleLiveIncarnation } from './properties.ts';
import type { LifecycleState } from './state.ts';

// ---- helpers -------------------------------------------------------------------------------------

function paramsOf(preset: string, extra: ParamValues = {}): ParamValues {
  const p = spec.presets.find((x) => x.name === preset)!;
  return { ...Object.fromEntries(spec.params.map((d) => [d.name, d.default])), ...p.params, ...extra } as ParamValues;
}

async function check(preset: string, maxDepth?: number) {
  const params = paramsOf(preset);
  const result = await checkModel(spec.build(params), { deadlock: false, ...(maxDepth === undefined ? {} : { maxDepth }) }, { spec: 'lifecycle', preset, params });
  const steps = 'trace' in result && result.trace ? result.trace.steps.slice(1) : [];
  return { result, steps, actions: steps.map((s) => s.action) };
}

interface Pin {
  readonly property?: string;
  readonly distinct: number;
  readonly depth: number;
  readonly actions?: readonly string[];
  readonly witnesses?: readonly string[];
}

const PINS: Readonly<Record<string, Pin>> = {
  'ce4-newest-wins': { property: 'CurrentRegistrationWins', distinct: 17, depth: 4, actions: ['StartBroker', 'SendHeartbeat', 'HandleHeartbeat'] },
  'ce4-current-wins': { distinct: 2818, depth: 30, witnesses: ['BrokerRegistered', 'BrokerFencedByLeaseExpiry', 'BrokerUnfenced'] },
  'ce5-pending-duplicate': { property: 'BrokerEpochMonotonic', distinct: 23, depth: 7, actions: ['StartBroker', 'StartBroker', 'SendHeartbeat', 'SendHeartbeat', 'HandleHeartbeat', 'HandleHeartbeat'] },
  'ce5-pending-checked': { distinct: 5714, depth: 23, witnesses: ['BrokerRegistered', 'BrokerUnfenced'] },
  'ce6-reordered-heartbeats': { property: 'StaleHeartbeatInert', distinct: 33, depth: 6, actions: ['SendHeartbeat', 'FetchMetadata', 'SendHeartbeat', 'HandleHeartbeat', 'HandleHeartbeat'] },
  'ce6-stale-ignored': { distinct: 253, depth: 18, witnesses: ['BrokerFencedByLeaseExpiry', 'BrokerUnfenced'] },
  'ce7-failover-forgets-leases': { property: 'FailoverGrace', distinct: 28, depth: 4, actions: ['ControllerFailover', 'Tick', 'LeaseExpire'] },
  'ce7-failover-extends': { distinct: 383, depth: 15, witnesses: ['BrokerFencedByLeaseExpiry', 'BrokerUnfenced', 'ControllerFailedOver'] },
  'ce8-gc-zombie': { property: 'UnfenceRequiresCatchUp', distinct: 36, depth: 6, actions: ['SendHeartbeat', 'Tick', 'Tick', 'LeaseExpire', 'HandleHeartbeat'] },
  'ce8-catch-up': { distinct: 113, depth: 14, witnesses: ['BrokerFencedByLeaseExpiry', 'BrokerUnfenced'] },
  'kip903-stale-isr': { property: 'NoStaleIsrExpansion', distinct: 447, depth: 12, actions: ['StartBroker', 'SendHeartbeat', 'Tick', 'Tick', 'HandleHeartbeat', 'CommitMetadata', 'HandleHeartbeatResponse', 'FetchMetadata', 'SendHeartbeat', 'HandleHeartbeat', 'AlterPartition'] },
  'kip903-broker-epochs': { distinct: 9237, depth: 37, witnesses: ['BrokerRegistered', 'BrokerFencedByLeaseExpiry', 'BrokerUnfenced'] },
  'controlled-shutdown-leader': { distinct: 3357, depth: 20, witnesses: ['BrokerFencedByLeaseExpiry', 'BrokerUnfenced', 'CleanShutdown', 'LeadershipMoved'] },
  'controlled-shutdown-failover': { property: 'CleanShutdownHandsOver', distinct: 2599, depth: 10, actions: ['RequestShutdown', 'SendHeartbeat', 'HandleHeartbeat', 'SendHeartbeat', 'CommitMetadata', 'ControllerFailover', 'HandleHeartbeat', 'CommitMetadata', 'HandleHeartbeatResponse'] },
  'controlled-shutdown-failover-restored': { distinct: 11443, depth: 21, witnesses: ['BrokerFencedByLeaseExpiry', 'BrokerUnfenced', 'CleanShutdown', 'LeadershipMoved', 'ControllerFailedOver'] },
  'cluster-start': { distinct: 9060, depth: 34, witnesses: ['BrokerRegistered', 'BrokerUnfenced'] },
  'leader-fails': { distinct: 66385, depth: 25, witnesses: ['BrokerFencedByLeaseExpiry', 'BrokerUnfenced', 'LeadershipMoved'] },
  'kip631-final': { distinct: 56481, depth: 27, witnesses: ['BrokerRegistered', 'BrokerFencedByLeaseExpiry', 'BrokerUnfenced', 'CleanShutdown', 'ControllerFailedOver'] },
};

// ---- presets -------------------------------------------------------------------------------------

test('every preset is pinned, states its verdict and pairs a race with its fix', () => {
  assert.deepEqual(
    spec.presets.map((p) => p.name),
    Object.keys(PINS),
  );
  for (const p of spec.presets) {
    assert.equal(p.expect.verdict === 'violates' ? p.expect.property : undefined, PINS[p.name]!.property, p.name);
    assert.equal(p.options?.deadlock, false, p.name);
  }
});

/**
 * Presets whose full search takes seconds: the slow tier (KMC_SLOW=1) pins the whole search, the fast tier
 * every state to a depth (exact counts).
 */
const TO_A_DEPTH_IN_THE_FAST_TIER: Readonly<Record<string, { readonly maxDepth: number; readonly distinct: number; readonly depth: number }>> = {
  'leader-fails': { maxDepth: 10, distinct: 10_568, depth: 11 },
  'kip631-final': { maxDepth: 10, distinct: 7233, depth: 11 },
};

for (const [name, bounded] of Object.entries(TO_A_DEPTH_IN_THE_FAST_TIER)) {
  test(`${name} to depth ${bounded.maxDepth}: no violation, exact counts`, async () => {
    const { result } = await check(name, bounded.maxDepth);
    assert.equal(result.status, 'incomplete', JSON.stringify(result.status === 'error' ? result.message : result.status));
    assert.deepEqual([result.stats.distinct, result.stats.depth], [bounded.distinct, bounded.depth]);
  });
}

for (const [name, pin] of Object.entries(PINS)) {
  const title = `${name}: ${pin.property === undefined ? 'holds, exhaustive' : `violates ${pin.property}`} (${pin.distinct} distinct, depth ${pin.depth})`;
  const slow = name in TO_A_DEPTH_IN_THE_FAST_TIER;
  test(slow ? `${title} (slow; set KMC_SLOW=1)` : title, { skip: slow && !process.env.KMC_SLOW }, async () => {
    const { result, actions } = await check(name);
    assert.equal(result.status, pin.property === undefined ? 'holds' : 'violation', JSON.stringify(result.status === 'error' ? result.message : result.status));
    if (pin.property !== undefined) assert.equal(result.status === 'violation' && result.property, pin.property);
    assert.equal(result.stats.distinct, pin.distinct, 'distinct states');
    assert.equal(result.stats.depth, pin.depth, 'depth');
    if (pin.actions !== undefined) assert.deepEqual(actions, pin.actions);
    if (pin.witnesses !== undefined) assert.deepEqual(result.witnesses, pin.witnesses);
  });
}

test('ce5: two incarnations are granted the id before either BrokerRecord commits, both with the committed offset as epoch', async () => {
  const { steps } = await check('ce5-pending-duplicate');
  const last = steps.at(-1)!.state as LifecycleState;
  const recs = last.log.toArray().map((r) => [r.type, r.broker, r.epoch, r.incarnation]);
  assert.deepEqual(recs, [
    ['BrokerRecord', 'b1', 0, 0],
    ['BrokerRecord', 'b1', 0, 1],
  ]);
  assert.equal(last.hwm, 0);
});

test('kip903: the leader adds b1 back with the fetch epoch of its previous incarnation, and the new one has no data', async () => {
  const { steps } = await check('kip903-stale-isr');
  const before = steps.at(-2)!.state as LifecycleState;
  const after = steps.at(-1)!.state as LifecycleState;
  assert.equal(before.caughtUp.get('p1').get('b1'), 0);
  assert.equal(before.ctrl.regs.get('b1').epoch, 4);
  assert.deepEqual(after.ctrl.parts.get('p1').isr.toArray().sort(), ['b1', 'b2']);
  assert.equal(after.procs.get('b1').get(1).data.has('p1'), false);
});

test('ce8: shipped Kafka unfences the zombie: its heartbeat has passed its RegisterBrokerRecord, not its fencing', async () => {
  const { steps } = await check('ce8-gc-zombie');
  const hb = steps.at(-1)!.params.m as { offset: number; epoch: number };
  const fenced = steps.at(-2)!.state as LifecycleState;
  const reg = fenced.ctrl.regs.get('b1');
  assert.deepEqual([hb.epoch, hb.offset, reg.registeredAt, reg.fencedAt], [0, 1, 0, 2]);
  assert.equal((steps.at(-1)!.state as LifecycleState).ctrl.regs.get('b1').status, 'ACTIVE');
});

test('controlled shutdown: b1 stays unfenced in CONTROLLED_SHUTDOWN while p2 moves to b2; after a failover it is told SHUTDOWN before b2 applied that', async () => {
  const { steps, actions } = await check('controlled-shutdown-failover');
  const entered = steps[2]!.state as LifecycleState;
  assert.equal(actions[2], 'HandleHeartbeat');
  assert.equal(entered.ctrl.regs.get('b1').status, 'SHUTTING_DOWN');
  assert.equal(entered.ctrl.parts.get('p2').leader, 'b2');
  assert.equal(entered.leases.get('b1').shutdownOffset, 6);
  const failedOver = steps[actions.indexOf('ControllerFailover')]!.state as LifecycleState;
  assert.equal(failedOver.leases.get('b1').shutdownOffset, null);
  const last = steps.at(-1)!.state as LifecycleState;
  assert.equal(last.procs.get('b1').get(0).state, 'SHUTDOWN');
  assert.ok(last.procs.get('b2').get(0).applied <= 6, 'b2 has not applied the record that made it leader of p2');
});

// ---- the metadata rules --------------------------------------------------------------------------

const twoBrokers = configOf(paramsOf('kip903-broker-epochs'));

test('the running image: b1 at epoch 0 and b2 at epoch 2, both unfenced; p1 led by b2 with both in the ISR', () => {
  const image = initialImage(twoBrokers);
  assert.deepEqual(image.regs.get('b1').toJS(), { status: 'ACTIVE', epoch: 0, incarnation: 0, registeredAt: 0, fencedAt: 0 });
  assert.deepEqual(image.regs.get('b2').toJS(), { status: 'ACTIVE', epoch: 2, incarnation: 0, registeredAt: 2, fencedAt: 2 });
  assert.equal(image.parts.get('p1').leader, 'b2');
  assert.deepEqual(image.parts.get('p1').isr.toArray(), ['b1', 'b2']);
});

test('fencing the leader moves leadership to the other ISR member and shrinks the ISR; fencing the last member keeps it', () => {
  const image = initialImage(twoBrokers);
  const fenced = image.setIn(['regs', 'b2', 'status'], 'FENCED');
  const [change] = fenceChanges(twoBrokers, fenced, 'b2');
  assert.deepEqual([change!.leader, change!.isr, change!.leaderEpoch], ['b1', ['b1'], 1]);
  const alone = applyRecord(fenced, change!, 4).setIn(['regs', 'b1', 'status'], 'FENCED');
  const [last] = fenceChanges(twoBrokers, alone, 'b1');
  assert.deepEqual([last!.leader, last!.isr, last!.leaderEpoch], [null, ['b1'], 2]);
  assert.deepEqual(fenceChanges(twoBrokers, image, 'b1').map((r) => [r.leader, r.isr]), [['b2', ['b2']]]);
});

test('unfencing elects the broker for the leaderless partitions whose ISR holds it', () => {
  const image = initialImage(twoBrokers).setIn(['parts', 'p1'], { leader: null, isr: ['b1'], leaderEpoch: 3 });
  assert.deepEqual(unfenceChanges(twoBrokers, image, 'b1').map((r) => [r.partition, r.leader, r.leaderEpoch]), [['p1', 'b1', 4]]);
  assert.deepEqual(unfenceChanges(twoBrokers, image, 'b2'), []);
});

test('records: a BrokerRecord registers fenced, FencedBrokerRecord moves `fencedAt`, UnfenceBroker unfences', () => {
  let image = initialImage(twoBrokers);
  image = applyRecord(image, brokerRecord('b1', 4, 1), 4);
  assert.deepEqual(image.regs.get('b1').toJS(), { status: 'FENCED', epoch: 4, incarnation: 1, registeredAt: 4, fencedAt: 4 });
  image = applyRecord(image, unfenceBroker('b1', 4), 5);
  assert.equal(image.regs.get('b1').status, 'ACTIVE');
  image = applyRecord(image, fencedBrokerRecord('b1', 4), 6);
  assert.deepEqual(image.regs.get('b1').toJS(), { status: 'FENCED', epoch: 4, incarnation: 1, registeredAt: 4, fencedAt: 6 });
});

test('the state invariants hold initially and catch a duplicate epoch, a non-increasing epoch and a fenced leader', () => {
  const s0 = initialState(twoBrokers);
  for (const inv of [singleLiveIncarnation, brokerEpochMonotonic, epochUniquePerIncarnation, fencedNotLeaderNotInIsr]) assert.ok(inv(twoBrokers, s0), inv.name);
  const twin = s0.setIn(['procs', 'b1', 1], { state: 'FENCED', epoch: 0, applied: 0, data: [] });
  assert.equal(singleLiveIncarnation(twoBrokers, twin), false);
  const again = s0.set('log', [brokerRecord('b1', 0, 1)]);
  assert.equal(brokerEpochMonotonic(twoBrokers, again), false);
  assert.equal(epochUniquePerIncarnation(twoBrokers, again), false);
  const fencedLeader = s0.set('log', [fencedBrokerRecord('b2', 2)]).set('hwm', 5);
  assert.equal(fencedNotLeaderNotInIsr(twoBrokers, fencedLeader), false);
});
