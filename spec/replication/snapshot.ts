/**
 * A plain reading of one state for the guards. The checker asks every action's guard about the same
 * state in a row, and reading Immutable records costs far more than reading arrays, so the state is read
 * once into arrays and the last reading is kept. States are immutable, so a reading never goes stale.
 */
import { maskOf } from './ids.ts';
import type { Log, ReplicationState } from './state.ts';

export interface Snapshot {
  readonly running: readonly boolean[];
  readonly logs: readonly Log[];
  readonly hw: readonly number[];
  /** Each broker's view of the partition: leader, leader epoch and ISR (mask). */
  readonly viewLeader: readonly number[];
  readonly viewEpoch: readonly number[];
  readonly viewIsr: readonly number[];
  /** The controller's partition record, sets as masks. */
  readonly leader: number;
  readonly leaderEpoch: number;
  readonly isr: number;
  readonly fenced: number;
  readonly cut: number;
}

let lastState: ReplicationState | null = null;
let lastSnapshot: Snapshot | null = null;

export function snapshotOf(s: ReplicationState): Snapshot {
  if (s === lastState) return lastSnapshot!;
  const running: boolean[] = [];
  const logs: Log[] = [];
  const hw: number[] = [];
  const viewLeader: number[] = [];
  const viewEpoch: number[] = [];
  const viewIsr: number[] = [];
  const p = s.partition;
  for (let i = 0; i < s.brokers.size; i++) {
    const b = s.brokers.get(i)!;
    running.push(b.running);
    logs.push(b.log);
    hw.push(b.hw);
    const v = b.view ?? p;
    viewLeader.push(v.leader);
    viewEpoch.push(v.leaderEpoch);
    viewIsr.push(maskOf(v.isr));
  }
  const snapshot: Snapshot = {
    running,
    logs,
    hw,
    viewLeader,
    viewEpoch,
    viewIsr,
    leader: p.leader,
    leaderEpoch: p.leaderEpoch,
    isr: maskOf(p.isr),
    fenced: maskOf(s.fenced),
    cut: maskOf(s.cut),
  };
  lastState = s;
  lastSnapshot = snapshot;
  return snapshot;
}
