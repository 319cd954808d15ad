/**
 * A plain reading of one state, as one topic partition sees it, for the guards. The checker asks every
 * action's guard about the same state in a row, so the state is read once, from its bytes in place
 * (places.ts), into arrays, and the last state's readings are kept; reading the next state rewrites them
 * (a state is read for each of its successors' guards, so a reading allocates nothing). States are
 * immutable, so a reading never goes stale; a copy being written (writes.ts) is never read here.
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

/** One topic partition's reading, rewritten in place for each state read (by topic partition id). */
class Reading implements Snapshot {
  running: boolean[] = [];
  runningMask = 0;
  bytes: Uint8Array = new Uint8Array(0);
  logAt: number[] = [];
  log: LogShape = { lw: 1, ew: 2, max: 0, epoch: 0, epochWidth: 1, value: 1 };
  leo: number[] = [];
  hw: number[] = [];
  viewLeader: number[] = [];
  viewEpoch: number[] = [];
  viewIsr: number[] = [];
  leader = 0;
  leaderEpoch = 0;
  isr = 0;
  recovering = false;
  fenced = 0;
  shuttingDown = 0;
  cut = 0;
  produced = 0;
  uncleanShutdowns = 0;
  cleanShutdowns = 0;
  emptyDisks = 0;
  partitions = 0;
  isrShrinks = 0;
}

let lastState: ReplicationState | null = null;
/** Bit `tp.id`: the reading of that topic partition is of `lastState`. */
let fresh = 0;
const readings: Reading[] = [];

/**
 * The reading of `s` for `tp`. It is rewritten when another state is read, so it is used at once (a guard,
 * or a step reading the state it started from), never kept.
 */
export function snapshotOf(s: ReplicationState, tp: TopicPartition): Snapshot {
  if (s !== lastState) {
    lastState = s;
    fresh = 0;
  }
  const r = (readings[tp.id] ??= new Reading());
  if ((fresh & (1 << tp.id)) === 0) {
    read(s, tp, r);
    fresh |= 1 << tp.id;
  }
  return r;
}

function read(s: ReplicationState, tp: TopicPartition, into: Reading): void {
  const P = placesOf(s);
  const at = P.tps[tp.id]!;
  const b = s._b;
  const o = s._o;
  const p = at.partition;
  const leader = b[o + p.leader]! - 1;
  const leaderEpoch = readCode(b, o + p.leaderEpoch, P.leaderEpochWidth);
  const isr = b[o + p.isr]!;
  const { running, logAt, leo, hw, viewLeader, viewEpoch, viewIsr } = into;
  let runningMask = 0;
  for (let i = 0; i < P.brokers; i++) {
    const r = at.replicas[i]!;
    const up = b[o + P.running[i]!] !== 0;
    running[i] = up;
    if (up) runningMask |= 1 << i;
    logAt[i] = o + r.log;
    leo[i] = sizeAt(b, o + r.log, P.log);
    hw[i] = b[o + r.hw]!;
    const stale = b[o + r.view] !== 0;
    const v = r.viewPartition;
    viewLeader[i] = stale ? b[o + v.leader]! - 1 : leader;
    viewEpoch[i] = stale ? readCode(b, o + v.leaderEpoch, P.leaderEpochWidth) : leaderEpoch;
    viewIsr[i] = stale ? b[o + v.isr]! : isr;
  }
  const f = P.faults;
  into.runningMask = runningMask;
  into.bytes = b;
  into.log = P.log;
  into.leader = leader;
  into.leaderEpoch = leaderEpoch;
  into.isr = isr;
  into.recovering = b[o + p.recovering] !== 0;
  into.fenced = b[o + P.fenced]!;
  into.shuttingDown = b[o + P.shuttingDown]!;
  into.cut = b[o + P.cut]!;
  into.produced = b[o + at.ghost.produced]!;
  into.uncleanShutdowns = b[o + f.uncleanShutdowns]!;
  into.cleanShutdowns = b[o + f.cleanShutdowns]!;
  into.emptyDisks = b[o + f.emptyDisks]!;
  into.partitions = b[o + f.partitions]!;
  into.isrShrinks = b[o + f.isrShrinks]!;
}
