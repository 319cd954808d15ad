/**
 * A plain reading of one state for the guards. The checker asks every action's guard about the same
 * state in a row, so the state is read once into arrays and the last reading is kept. States are
 * immutable, so a reading never goes stale; a copy being written (`withMutations`) is never read here.
 */
import { maskOf } from './ids.ts';
import type { Log, ReplicationState } from './state.ts';

export interface Snapshot {
  readonly running: readonly boolean[];
  readonly logs: readonly Log[];
  /** Each broker's log end offset. */
  readonly leo: readonly number[];
  readonly hw: readonly number[];
  /** Each broker's view of the partition: leader, leader epoch and ISR (mask). */
  readonly viewLeader: readonly number[];
  readonly viewEpoch: readonly number[];
  readonly viewIsr: readonly number[];
  /** The controller's partition record, sets as masks. */
  readonly leader: number;
  readonly leaderEpoch: number;
  readonly isr: number;
  readonly recovering: boolean;
  readonly fenced: number;
  readonly shuttingDown: number;
  readonly cut: number;
  /** How many values producers have sent, and how much of each fault budget is spent. */
  readonly produced: number;
  readonly uncleanShutdowns: number;
  readonly cleanShutdowns: number;
  readonly emptyDisks: number;
  readonly partitions: number;
  readonly isrShrinks: number;
}

let lastState: ReplicationState | null = null;
let lastSnapshot: Snapshot | null = null;

export function snapshotOf(s: ReplicationState): Snapshot {
  if (s === lastState) return lastSnapshot!;
  const running: boolean[] = [];
  const logs: Log[] = [];
  const leo: number[] = [];
  const hw: number[] = [];
  const viewLeader: number[] = [];
  const viewEpoch: number[] = [];
  const viewIsr: number[] = [];
  const p = s.partition;
  const leader = p.leader;
  const leaderEpoch = p.leaderEpoch;
  const isr = maskOf(p.isr);
  const brokers = s.brokers;
  for (let i = 0; i < brokers.size; i++) {
    const b = brokers.get(i)!;
    running.push(b.running);
    const log = b.log;
    logs.push(log);
    leo.push(log.size);
    hw.push(b.hw);
    const v = b.view;
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
    produced: s.ghost.produced,
    uncleanShutdowns: faults.uncleanShutdowns,
    cleanShutdowns: faults.cleanShutdowns,
    emptyDisks: faults.emptyDisks,
    partitions: faults.partitions,
    isrShrinks: faults.isrShrinks,
  };
  lastState = s;
  lastSnapshot = snapshot;
  return snapshot;
}
