/**
 * A plain reading of one state, as one topic partition sees it, for the guards. The checker asks every
 * action's guard about the same state in a row, so the state is read once, from its bytes in place
 * (places.ts), into arrays, and the last state's readings are kept. States are immutable, so a reading
 * never goes stale; a copy being written (`withMutations`) is never read here.
 */
import { readCode } from '../layout/bytes.ts';
import { type LogShape, placesOf } from './places.ts';
import { sizeAt } from './log.ts';
import type { ReplicationState } from './state.ts';
import type { TopicPartition } from './topicPartition.ts';

export interface Snapshot {
  readonly running: readonly boolean[];
  /** The running brokers, as a mask. */
  readonly runningMask: number;
  /** The state's bytes: each broker's log lies at `bytes[logAt[b]]` (absolute offsets), shaped as `log` says. */
  readonly bytes: Uint8Array;
  readonly logAt: readonly number[];
  readonly log: LogShape;
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
  const P = placesOf(s);
  const at = P.tps[tp.id]!;
  const b = s._b;
  const o = s._o;
  const p = at.partition;
  const leader = b[o + p.leader]! - 1;
  const leaderEpoch = readCode(b, o + p.leaderEpoch, P.leaderEpochWidth);
  const isr = b[o + p.isr]!;
  const running: boolean[] = [];
  const logAt: number[] = [];
  const leo: number[] = [];
  const hw: number[] = [];
  const viewLeader: number[] = [];
  const viewEpoch: number[] = [];
  const viewIsr: number[] = [];
  let runningMask = 0;
  for (let i = 0; i < P.brokers; i++) {
    const r = at.replicas[i]!;
    const up = b[o + P.running[i]!] !== 0;
    running.push(up);
    if (up) runningMask |= 1 << i;
    logAt.push(o + r.log);
    leo.push(sizeAt(b, o + r.log, P.log));
    hw.push(b[o + r.hw]!);
    const stale = b[o + r.view] !== 0;
    const v = r.viewPartition;
    viewLeader.push(stale ? b[o + v.leader]! - 1 : leader);
    viewEpoch.push(stale ? readCode(b, o + v.leaderEpoch, P.leaderEpochWidth) : leaderEpoch);
    viewIsr.push(stale ? b[o + v.isr]! : isr);
  }
  const f = P.faults;
  return {
    running,
    runningMask,
    bytes: b,
    logAt,
    log: P.log,
    leo,
    hw,
    viewLeader,
    viewEpoch,
    viewIsr,
    leader,
    leaderEpoch,
    isr,
    recovering: b[o + p.recovering] !== 0,
    fenced: b[o + P.fenced]!,
    shuttingDown: b[o + P.shuttingDown]!,
    cut: b[o + P.cut]!,
    produced: b[o + at.ghost.produced]!,
    uncleanShutdowns: b[o + f.uncleanShutdowns]!,
    cleanShutdowns: b[o + f.cleanShutdowns]!,
    emptyDisks: b[o + f.emptyDisks]!,
    partitions: b[o + f.partitions]!,
    isrShrinks: b[o + f.isrShrinks]!,
  };
}
