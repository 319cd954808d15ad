/**
 * A plain reading of one state, as one topic partition sees it, for the guards. The checker asks every
 * action's guard about the same state in a row, so the state is read once into arrays and the last
 * state's readings are kept. States are immutable, so a reading never goes stale; a copy being written
 * (`withMutations`) is never read here.
 */
import { maskOf } from './ids.ts';
import type { Log, ReplicationState } from './state.ts';
import type { TopicPartition } from './topicPartition.ts';

export interface Snapshot {
  readonly running: readonly boolean[];
  readonly logs: readonly Log[];
  /** Each broker's log end offset. */
  readonly leo: readonly number[];
  readonly hw: readonly number[];
  /** Each broker's view of the topic partition: leader, leader epoch and ISR (mask). */
  readonly viewLeader: readonly number[];
  readonly viewEpoch: readonly number[];
  readonly viewIsr: readonly number[];
  /** The controller's registration of the topic partition, sets as masks. */
  readonly leader: number;
  readonly leaderEpoch: number;
  readonly isr: number;
  readonly recovering: boolean;
  readonly fenced: number;
  readonly shuttingDown: number;
  readonly cut: number;
  /** How many values producers have sent to the topic partition, and how much of each fault budget is spent. */
  readonly produced: number;
  readonly uncleanShutdowns: number;
  readonly cleanShutdowns: number;
  readonly emptyDisks: number;
  readonly partitions: number;
  readonly isrShrinks: number;
}

let lastState: ReplicationState | null = null;
// By topic partition id.
let lastSnapshots: (Snapshot | undefined)[] = [];

export function snapshotOf(s: ReplicationState, tp: TopicPartition): Snapshot {
  if (s === lastState) {
    const kept = lastSnapshots[tp.id];
    if (kept !== undefined) return kept;
  } else {
    lastState = s;
    lastSnapshots = [];
  }
  return (lastSnapshots[tp.id] = read(s, tp));
}

function read(s: ReplicationState, tp: TopicPartition): Snapshot {
  const running: boolean[] = [];
  const logs: Log[] = [];
  const leo: number[] = [];
  const hw: number[] = [];
  const viewLeader: number[] = [];
  const viewEpoch: number[] = [];
  const viewIsr: number[] = [];
  const p = tp.partition(s);
  const leader = p.leader;
  const leaderEpoch = p.leaderEpoch;
  const isr = maskOf(p.isr);
  const brokers = s.brokers;
  for (let i = 0; i < brokers.size; i++) {
    running.push(brokers.get(i)!.running);
    const r = tp.replica(s, i);
    const log = r.log;
    logs.push(log);
    leo.push(log.size);
    hw.push(r.hw);
    const v = r.view;
    viewLeader.push(v === null ? leader : v.leader);
    viewEpoch.push(v === null ? leaderEpoch : v.leaderEpoch);
    viewIsr.push(v === null ? isr : maskOf(v.isr));
  }
  const faults = s.faults;
  const snapshot: Snapshot = {
    running,
    logs,
    leo,
    hw,
    viewLeader,
    viewEpoch,
    viewIsr,
    leader,
    leaderEpoch,
    isr,
    recovering: p.recovering,
    fenced: maskOf(s.fenced),
    shuttingDown: maskOf(s.shuttingDown),
    cut: maskOf(s.cut),
    produced: tp.ghost(s).produced,
    uncleanShutdowns: faults.uncleanShutdowns,
    cleanShutdowns: faults.cleanShutdowns,
    emptyDisks: faults.emptyDisks,
    partitions: faults.partitions,
    isrShrinks: faults.isrShrinks,
  };
  return snapshot;
}
