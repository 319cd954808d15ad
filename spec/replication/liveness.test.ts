/**
 * Issue 13, replication: under fair replication and no permanent fault, every pending acks=all produce
 * request is answered (WritesAnswered). The preset replication-live holds; removing one fairness that
 * models Kafka's periodic work breaks it with a lasso, pinned here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { List } from 'immutable';
import { checkModel } from '../../checker/engine/check.ts';
import type { ActionParams, Model, ParamValues } from '../spec.ts';
import spec, { configOf, initialState, modelOf } from './replication.ts';
import { writePending } from './properties.ts';
import type { ReplicationState } from './state.ts';

const PRESET = 'replication-live';
const params = spec.presets.find((p) => p.name === PRESET)!.params as ParamValues;

function stepText(action: string, p: ActionParams): string {
  const args = Object.entries(p).map(([k, v]) => `${k}=${List.isList(v) ? `[${(v as List<number>).join(',')}]` : String(v)}`);
  return args.length === 0 ? action : `${action}(${args.join(', ')})`;
}

/** The preset's model with the named action's fairness removed. */
function withoutFairness(action: string): Model<ReplicationState> {
  const m = modelOf(configOf(params));
  assert.ok(m.actions.some((a) => a.name === action && a.fairness === 'weak'), `${action} is weakly fair`);
  return { ...m, actions: m.actions.map((a) => (a.name === action ? { ...a, fairness: undefined, fairnessKey: undefined } : a)) };
}

async function lasso(model: Model<ReplicationState>) {
  const r = await checkModel(model, { deadlock: false }, { spec: 'replication', preset: PRESET, params });
  assert.equal(r.status, 'violation');
  assert.equal('kind' in r ? r.kind : undefined, 'liveness');
  assert.equal('property' in r ? r.property : undefined, 'WritesAnswered');
  const trace = 'trace' in r ? r.trace! : undefined;
  const states = trace!.steps.map((s) => s.state as ReplicationState);
  return { steps: trace!.steps.slice(1).map((s) => stepText(s.action, s.params)), loop: trace!.loop?.index, last: states[states.length - 1]! };
}

test('WritesAnswered is checked only with liveness on, and only for acks=all/quorum; liveness drops the VIEW', () => {
  const names = (p: ParamValues) => modelOf(configOf(p)).properties.map((x) => x.name);
  assert.ok(names({ ...params }).includes('WritesAnswered'), 'WritesAnswered is checked with liveness on');
  assert.ok(!names({ ...params, liveness: false }).includes('WritesAnswered'), 'WritesAnswered is left out with liveness off');
  assert.ok(!names({ ...params, acks: '1' }).includes('WritesAnswered'), 'WritesAnswered is left out for acks=1');
  assert.equal(modelOf(configOf(params)).view, undefined);
  assert.notEqual(modelOf(configOf({ ...params, liveness: false })).view, undefined);
});

test('a write is pending while its leader leads its epoch unacknowledged', () => {
  const cfg = configOf(params);
  const s = initialState(cfg);
  assert.equal(writePending(s), false);
  const produced = s.setIn(['brokers', 0, 'log'], cfg.layout.Log.from([{ epoch: 1, value: 1 }]));
  assert.equal(writePending(produced), true);
  assert.equal(writePending(produced.setIn(['ghost', 'acked'], produced.ghost.acked.add(1))), false, 'acknowledged');
  assert.equal(writePending(produced.setIn(['partition', 'leader'], 1).setIn(['partition', 'leaderEpoch'], 2)), false, 'its leader lost the epoch');
  assert.equal(writePending(produced.setIn(['brokers', 0, 'running'], false)), false, 'its leader stopped');
});

test(`${PRESET}: WritesAnswered holds (76,782 states, depth 19)`, async () => {
  const r = await checkModel(spec.build({ ...Object.fromEntries(spec.params.map((d) => [d.name, d.default])), ...params }), { deadlock: false }, { spec: 'replication', preset: PRESET, params });
  assert.equal(r.status, 'holds');
  assert.deepEqual([r.stats.distinct, r.stats.depth], [76782, 19]);
});

test('without fair ISR expansion (Partition.maybeExpandIsr) the ISR stays below min.insync.replicas and a write is never acknowledged', async () => {
  const { steps, loop, last } = await lasso(withoutFairness('ExpandIsr'));
  assert.deepEqual(steps, [
    'ProduceRecord(broker=0)',
    'FetchRecords(broker=1)',
    'PartitionNetwork(brokers=[1])',
    'FetchRecords(broker=2)',
    'ShrinkIsr(leader=0, follower=2)',
    'FetchRecords(broker=2)',
    'UncleanShutdown(broker=1, keep=0)',
    'StartBroker(broker=1)',
    'FetchRecords(broker=1)',
    'FetchRecords(broker=1)',
  ]);
  // The last state repeats for ever: every follower holds the record and the leader knows it, the ISR is
  // the leader alone, and the KIP-966 strict high watermark never passes the record.
  assert.equal(loop, 10);
  assert.deepEqual([...last.partition.isr], [0]);
  assert.ok(last.brokers.every((b) => b.log.size === 1), 'every broker holds the record');
  assert.equal(last.brokers.get(0)!.hw, 0);
  assert.ok(last.ghost.acked.isEmpty(), 'the write is never acknowledged');
});

test('without a fair heal the ghost leader never learns it was deposed: its write waits for ever', async () => {
  const { steps, loop, last } = await lasso(withoutFairness('HealNetwork'));
  assert.deepEqual(steps, [
    'ProduceRecord(broker=0)',
    'PartitionNetwork(brokers=[0])',
    'UncleanShutdown(broker=1, keep=0)',
    'StartBroker(broker=1)',
    'FetchRecords(broker=1)',
    'ExpandIsr(leader=2, follower=1)',
    'ShrinkIsr(leader=2, follower=1)',
    'ExpandIsr(leader=2, follower=1)',
  ]);
  assert.equal(loop, 8);
  // Broker 0, cut off, still leads epoch 1 on its stale view and holds the unacknowledged record.
  assert.deepEqual([...last.cut], [0]);
  assert.equal(last.brokers.get(0)!.view?.leader, 0);
  assert.equal(last.partition.leader, 2);
  assert.ok(writePending(last), 'the write is still pending');
});

test('without fair replica fetching (ReplicaFetcherThread) a follower never catches up and a write is never acknowledged', async () => {
  const { steps, loop, last } = await lasso(withoutFairness('FetchRecords'));
  assert.deepEqual(steps, [
    'ProduceRecord(broker=0)',
    'FetchRecords(broker=1)',
    'PartitionNetwork(brokers=[1])',
    'FetchRecords(broker=2)',
    'ShrinkIsr(leader=0, follower=2)',
    'FetchRecords(broker=2)',
    'UncleanShutdown(broker=1, keep=0)',
    'StartBroker(broker=1)',
    'FetchRecords(broker=1)',
    'ExpandIsr(leader=0, follower=1)',
    'ExpandIsr(leader=0, follower=2)',
  ]);
  // The whole ISR is back and holds the record, but broker 1 never makes the fetch that would tell the leader
  // so (the leader knows only the offset of its fetch before the record): the high watermark stays at 0.
  assert.equal(loop, 11);
  assert.deepEqual([...last.partition.isr], [0, 1, 2]);
  assert.equal(last.brokers.get(1)!.log.size, 1);
  assert.equal(last.brokers.get(0)!.fetchOffsets.get(1), 0);
  assert.equal(last.brokers.get(0)!.hw, 0);
  assert.ok(writePending(last), 'the write is still pending');
});
