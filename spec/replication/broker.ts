/**
 * Broker-side replication: followers fetch from whoever they believe leads, and every broker that
 * believes it leads advances its high watermark and answers pending produce requests from its own view
 * of the ISR, stale or not.
 */
import { readCode as codeAt } from '../layout/bytes.ts';
import { bit, countOf, inMask, MAX_BROKERS } from './ids.ts';
import { commonPrefixAt, epochAt, sameEntryAt, sizeAt, valueAt } from './log.ts';
import { type PartitionPlaces, placesOf } from './places.ts';
import { snapshotOf } from './snapshot.ts';
import { acknowledges, strongAcks } from './producer.ts';
import { type Config, NO_LEADER, type ReplicationState, viewOf } from './state.ts';
import { ONLY, type TopicPartition } from './topicPartition.ts';
import { inCopy, putByte, putLogPrefix, writesInPlace } from './writes.ts';

/** Whether `b` is running and believes it leads `tp`. */
export function actsAsLeader(s: ReplicationState, b: number, tp: TopicPartition = ONLY): boolean {
  return s.brokers.get(b)!.running && viewOf(s, b, tp).leader === b;
}

/**
 * The leader's work after any step: `Partition.maybeIncrementLeaderHW`, then the delayed produce requests.
 *
 * The leader sees each follower's log as it is now, where Kafka sees the offset of its last fetch: the
 * high watermark is the ISR members' agreement with the leader's log (never more than they hold), and the
 * leader's own high watermark never moves back. KIP-966 (`strictHwm`): it does not advance while the ISR
 * is below min.insync.replicas.
 *
 * Only a follower on the leader's side of a network cut fetches from it (`fetchSource`). A cut-off leader
 * (the KIP-250 ghost) still waits for every member of its stale ISR (`Partition.maybeIncrementLeaderHW`
 * bounds the high watermark by each maximal-ISR member's last fetch offset), but learns nothing about the
 * members across the cut, whose logs now follow the new leader. The model keeps no fetch offsets, so such a
 * member holds the high watermark where it is: this loses only a ghost's advance up to offsets a member
 * across the cut had fetched before it while a follower on the ghost's side still lagged.
 *
 * Pending requests are the records of the leader's current epoch: only the leader of an epoch appends in
 * it, and a request fails once its leader learns it was deposed, so a later ack is impossible.
 *
 * It runs after every step, so it reads and writes the state's bytes in place (places.ts, writes.ts):
 * `s` is the step's copy. `view` is where the registration the leader acts on lies. Returns the new high
 * watermark.
 */
function settleLeader(s: ReplicationState, cfg: Config, tp: TopicPartition, b: number, view: PartitionPlaces): number {
  const P = placesOf(s);
  const shape = P.log;
  const at = P.tps[tp.id]!;
  const mine = at.replicas[b]!.log;
  const bytes = s._b;
  const o = s._o;
  const size = sizeAt(bytes, o + mine, shape);
  const isr = bytes[o + view.isr]!;
  const isrSize = countOf(isr);
  const cut = bytes[o + P.cut]!;
  const myHw = bytes[o + at.replicas[b]!.hw]!;
  // What each ISR member agrees on with the leader's log, by broker (-1: not a member). Only acks=quorum
  // reads it past the high watermark, which it can raise only while below the leader's log end.
  const agreement = AGREEMENT;
  let low = size;
  if (myHw < size || cfg.acks === 'quorum') for (const m of cfg.replicas) {
    agreement[m] = -1;
    if (!inMask(isr, m)) continue;
    let k = m === b || cfg.mutation === 'highWatermarkIgnoresIsr' ? size : commonPrefixAt(bytes, o + mine, o + at.replicas[m]!.log, shape);
    // A member across the network cut cannot fetch from this leader, so the leader cannot learn what it
    // holds now: it keeps the high watermark where it is (it can stop an advance, never allow one).
    if (inMask(cut, m) !== inMask(cut, b)) k = Math.min(k, myHw);
    agreement[m] = k;
    if (k < low) low = k;
  }
  let hw = myHw;
  if ((!cfg.strictHwm || isrSize >= cfg.minIsr || cfg.mutation === 'strictHwmIgnored') && low > hw) hw = low;

  // Consumers read below the high watermark: that prefix is committed. It must extend, or lie inside, the
  // longest committed prefix ever exposed.
  const g = at.ghost;
  if (hw > 0) {
    const committed = sizeAt(bytes, o + g.committed, shape);
    if (commonPrefixAt(bytes, o + mine, o + g.committed, shape) < Math.min(hw, committed)) putByte(s, g.committedRewritten, 1);
    else if (hw > committed) putLogPrefix(s, g.committed, mine, hw, shape);
  }
  if (strongAcks(cfg)) {
    const leaderEpoch = codeAt(bytes, o + view.leaderEpoch, P.leaderEpochWidth);
    for (let e = 0; e < size; e++) {
      const value = valueAt(bytes, o + mine, e, shape);
      if (epochAt(bytes, o + mine, e, shape) !== leaderEpoch || inMask(bytes[o + g.acked]!, value - 1)) continue;
      let isrHolders = 0;
      if (cfg.acks === 'quorum') for (const m of cfg.replicas) if (agreement[m]! > e) isrHolders++;
      if (!acknowledges(cfg, e, hw, isrSize, isrHolders)) continue;
      let copies = 0;
      for (const x of cfg.replicas) {
        const theirs = o + at.replicas[x]!.log;
        if (e < sizeAt(bytes, theirs, shape) && sameEntryAt(bytes, o + mine, e, theirs, e, shape)) copies++;
      }
      putByte(s, g.acked, bytes[o + g.acked]! | bit(value - 1));
      if (copies < cfg.minIsr) putByte(s, g.ackBelowMinIsr, 1);
    }
  }
  return hw;
}

const AGREEMENT: number[] = Array.from({ length: MAX_BROKERS }, () => -1);

/**
 * Ends every step: in every topic partition, brokers that do not lead drop their high watermark (it is
 * never read), and every broker that believes it leads settles.
 */
export function settle(s: ReplicationState, cfg: Config): ReplicationState {
  if (!writesInPlace(s)) return inCopy(s, (m) => settle(m, cfg));
  const P = placesOf(s);
  const bytes = s._b;
  const o = s._o;
  for (const tp of cfg.tps) {
    const at = P.tps[tp.id]!;
    // Only broker b's own iteration writes its high watermark, so the replicas read here stay right for it.
    for (const b of cfg.replicas) {
      const r = at.replicas[b]!;
      let hw = 0;
      if (bytes[o + P.running[b]!] !== 0) {
        const view = bytes[o + r.view] !== 0 ? r.viewPartition : at.partition;
        if (bytes[o + view.leader]! - 1 === b) hw = settleLeader(s, cfg, tp, b, view);
      }
      putByte(s, r.hw, hw);
    }
  }
  return s;
}

/**
 * The leader follower `f` fetches from now, or NO_LEADER. KIP-320: the fetch carries the follower's
 * leader epoch and the leader serves only its own epoch (FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH
 * otherwise). A fetch that would change nothing is not a step.
 */
export function fetchSource(s: ReplicationState, f: number, acrossEpochs = false, tp: TopicPartition = ONLY): number {
  const v = snapshotOf(s, tp);
  if (!v.running[f]) return NO_LEADER;
  const l = v.viewLeader[f]!;
  if (l === NO_LEADER || l === f || inMask(v.cut, f) !== inMask(v.cut, l)) return NO_LEADER;
  if (!v.running[l] || v.viewLeader[l] !== l || (v.viewEpoch[l] !== v.viewEpoch[f] && !acrossEpochs)) return NO_LEADER;
  const p = commonPrefixAt(v.bytes, v.logAt[f]!, v.logAt[l]!, v.log);
  return p === v.leo[f] && p === v.leo[l] ? NO_LEADER : l;
}

/**
 * One fetch round trip: the follower truncates a divergent suffix (KIP-101/279/320, see `commonPrefix`)
 * and appends the next record of the leader's log. The logs are compared and written in the state's
 * bytes (places.ts, writes.ts).
 */
export function fetch(s: ReplicationState, f: number, l: number, tp: TopicPartition = ONLY): ReplicationState {
  if (!writesInPlace(s)) return inCopy(s, (m) => fetch(m, f, l, tp));
  const P = placesOf(s);
  const shape = P.log;
  const at = P.tps[tp.id]!;
  const b = s._b;
  const o = s._o;
  const mine = o + at.replicas[f]!.log;
  const theirs = o + at.replicas[l]!.log;
  const p = commonPrefixAt(b, mine, theirs, shape);
  const mineSize = sizeAt(b, mine, shape);
  let truncated = false;
  if (p < mineSize && b[o + at.ghost.committedTruncated] === 0) {
    // A committed record the follower drops, held by no other broker at its offset, is gone.
    const committed = o + at.ghost.committed;
    const end = Math.min(mineSize, sizeAt(b, committed, shape));
    for (let e = p; e < end; e++) {
      if (!sameEntryAt(b, committed, e, mine, e, shape)) continue;
      let elsewhere = false;
      for (let i = 0; i < P.brokers && !elsewhere; i++) {
        const log = o + at.replicas[i]!.log;
        elsewhere = i !== f && e < sizeAt(b, log, shape) && sameEntryAt(b, log, e, mine, e, shape);
      }
      if (!elsewhere) truncated = true;
    }
  }
  const mineAt = at.replicas[f]!.log;
  if (p < sizeAt(b, theirs, shape)) putLogPrefix(s, mineAt, at.replicas[l]!.log, p + 1, shape);
  else putLogPrefix(s, mineAt, mineAt, p, shape);
  if (truncated) putByte(s, at.ghost.committedTruncated, 1);
  return s;
}
