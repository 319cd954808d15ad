/**
 * Topic partitions sharing brokers: broker events change every partition in one step, while ISR, ELR,
 * logs and acknowledgements stay per partition; with one partition the state keeps its old layout.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { configOf, initialState, modelOf } from './replication.ts';
import { fenceBroker, registerBroker } from './controller.ts';
import { replicationProperties } from './properties.ts';
import type { Config, ReplicationState } from './state.ts';
import { setGhost, setReplica, type TopicPartition } from './topicPartition.ts';

const two = configOf({ topicPartitions: 2, initIsr: 2, maxUncleanShutdowns: 1, maxCleanShutdowns: 1 });
const [p0, p1] = two.tps as [TopicPartition, TopicPartition];
const fieldsOf = (v: { toJS(): unknown }) => Object.keys(v.toJS() as object);
const summary = (s: ReplicationState, tp: TopicPartition) => {
  const p = tp.partition(s);
  return { leader: p.leader, isr: p.isr.toArray(), elr: p.elr.toArray(), lastKnownElr: p.lastKnownElr.toArray() };
};

test('with one topic partition the state keeps its fields; with two, what is per partition moves under partitions, replicas and ghosts', () => {
  assert.deepEqual(fieldsOf(initialState(configOf({}))), ['brokers', 'partition', 'fenced', 'shuttingDown', 'cut', 'faults', 'ghost']);
  assert.deepEqual(fieldsOf(initialState(configOf({})).brokers.get(0)!), ['running', 'log', 'hw', 'fetchOffsets', 'staleFetch', 'view', 'cleanShutdownFile']);
  const s = initialState(two);
  assert.deepEqual(fieldsOf(s), ['brokers', 'partitions', 'fenced', 'shuttingDown', 'cut', 'faults', 'ghosts']);
  assert.deepEqual(fieldsOf(s.brokers.get(0)!), ['running', 'replicas', 'cleanShutdownFile']);
});

test('each topic partition rotates the assignment, so preferred leaders spread (StripedReplicaPlacer); its ISR is the first initIsr of its order', () => {
  assert.deepEqual(two.assignment, [[0, 1, 2], [1, 2, 0]]);
  const s = initialState(two);
  assert.deepEqual(summary(s, p0), { leader: 0, isr: [0, 1], elr: [], lastKnownElr: [] });
  assert.deepEqual(summary(s, p1), { leader: 1, isr: [1, 2], elr: [], lastKnownElr: [] });
});

test('fencing a broker is one change of every partition it hosts: it leads one and follows in the other', () => {
  const s = fenceBroker(initialState(two), two, 1);
  assert.deepEqual(summary(s, p0), { leader: 0, isr: [0], elr: [1], lastKnownElr: [] });
  assert.deepEqual(summary(s, p1), { leader: 2, isr: [2], elr: [1], lastKnownElr: [] });
  assert.deepEqual([p0.partition(s).leaderEpoch, p1.partition(s).leaderEpoch], [1, 2], 'only the partition it led changes leader');
});

test('the clean-shutdown file is per broker, ELR membership per partition: an unclean restart leaves the ELR of every partition', () => {
  const cfg = (check: Config['cleanShutdownCheck']) => configOf({ topicPartitions: 2, initIsr: 2, cleanShutdownCheck: check });
  const fenced = fenceBroker(initialState(two), two, 1).setIn(['brokers', 1, 'running'], false);
  const unclean = registerBroker(fenced, cfg('previousBrokerEpoch'), 1, false);
  assert.deepEqual([summary(unclean, p0).elr, summary(unclean, p1).elr], [[], []]);
  const clean = registerBroker(fenced, cfg('previousBrokerEpoch'), 1, true);
  assert.deepEqual([summary(clean, p0).isr, summary(clean, p1).elr], [[0], [1]], 'a proven clean restart keeps its ELR places');
  const everyIncarnation = registerBroker(fenced, cfg('everyIncarnationUnclean'), 1, true);
  assert.deepEqual([summary(everyIncarnation, p0).elr, summary(everyIncarnation, p1).elr], [[], []], 'before KAFKA-18635 it loses them all');
});

test('properties hold per topic partition: a record lost in one partition breaks NoAckedRecordLost whatever the other holds', () => {
  const holds = (s: ReplicationState) => replicationProperties(two).find((p) => p.name === 'NoAckedRecordLost')!.test(s);
  const entry = two.layout.Log.from([{ epoch: 1, value: 1 }]);
  const s = initialState(two);
  const ackedIn = (tp: TopicPartition) => setGhost(s, tp, 'acked', tp.ghost(s).acked.add(1));
  assert.equal(holds(setReplica(ackedIn(p1), p1, 2, 'log', entry)), true);
  assert.equal(holds(setReplica(ackedIn(p1), p0, 2, 'log', entry)), false, 'partition 0 holds the value, partition 1 acknowledged it');
  assert.equal(holds(setGhost(setReplica(ackedIn(p1), p0, 2, 'log', entry), p1, 'uncleanElection', true)), true, 'excused by an unclean election in partition 1');
  assert.equal(holds(setGhost(setReplica(ackedIn(p1), p0, 2, 'log', entry), p0, 'uncleanElection', true)), false, 'not by one in partition 0');
});

test('actions on one partition name it; broker events do not', () => {
  const m = modelOf(two);
  const s = initialState(two);
  const action = (name: string) => {
    const a = m.actions.find((x) => x.name === name)!;
    return { ...a, domain: (t: ReplicationState) => [...a.params!(t)] };
  };
  const produce = action('ProduceRecord');
  assert.deepEqual(produce.domain(s), [{ partition: 0, broker: 0 }, { partition: 0, broker: 1 }, { partition: 0, broker: 2 }, { partition: 1, broker: 0 }, { partition: 1, broker: 1 }, { partition: 1, broker: 2 }]);
  const enabled = produce.domain(s).filter((p) => produce.enabled!(s, p));
  assert.deepEqual(enabled, [{ partition: 0, broker: 0 }, { partition: 1, broker: 1 }], 'each partition produces to its own leader');
  const afterProduce = produce.next(s, { partition: 1, broker: 1 });
  assert.deepEqual([p0.ghost(afterProduce).produced, p1.ghost(afterProduce).produced], [0, 1]);
  assert.deepEqual(p1.replica(afterProduce, 1).log.toJS(), [{ epoch: 1, value: 1 }]);
  const crash = action('UncleanShutdown');
  const withLogs = setReplica(setReplica(s, p0, 1, 'log', two.layout.Log.from([{ epoch: 1, value: 1 }])), p1, 1, 'log', two.layout.Log.from([{ epoch: 1, value: 1 }]));
  const keeps = crash.domain(withLogs).filter((p) => p.broker === 1).map((p) => p.keep.toArray());
  assert.deepEqual(keeps, [[0, 0], [0, 1], [1, 0], [1, 1]], 'each log keeps any flushed prefix of its own');
  const crashed = crash.next(withLogs, crash.domain(withLogs).find((p) => p.broker === 1 && p.keep.toArray().join() === '1,0'));
  assert.deepEqual([p0.replica(crashed, 1).log.size, p1.replica(crashed, 1).log.size], [1, 0]);
  assert.deepEqual([summary(crashed, p0).isr, summary(crashed, p1).leader], [[0], 2], 'one crash: partition 0 shrinks, partition 1 elects broker 2');
  assert.equal(crashed.faults.dataLossShutdowns, 1);
});
