/**
 * Broker-side replication: followers fetch from whoever they believe leads, and every broker that
 * believes it leads advances its high watermark and answers pending produce requests from its own view
 * of the ISR, stale or not.
 */
import { readCode as codeAt } from '../layout/bytes.ts';
import { bit, countOf, inMask, MAX_BROKERS } from './ids.ts';
import { commonPrefixAt, epochAt, sameEntryAt, sizeAt, valueAt } from './log.ts';
import { fetchIsStale, fetchOffsetAt, leaderViewAt, type PartitionPlaces, placesOf, type ReplicaPlaces } from './places.ts';
import { snapshotOf } from './snapshot.ts';
import { acknowledges, strongAcks } from './producer.ts';
import type { Mutation } from './mutations.ts';
import { type Config, NO_LEADER, type ReplicationState, viewOf } from './state.ts';
import { ONLY, type TopicPartition } from './topicPartition.ts';
import { appendEntry, inCopy, putByte, putLogPrefix, writesInPlace } from './writes.ts';

/** Whether `b` is running and believes it leads `tp`. */
export function actsAsLeader(s: ReplicationState, b: number, tp: TopicPartition = ONLY): boolean {
  return s.brokers.get(b)!.running && viewOf(s, b, tp).leader === b;
}

/**
 * The leader's work after any step: `Partition.maybeIncrementLeaderHW`, then the delayed produce requests.
 *
 * The high watermark is the least of the leader's log end and the last valid fetch offset of every other
 * member of the ISR the leader acts on (an unknown offset, -1, holds it where it is); it never moves back.
 * The leader knows only what fetches told it: a record a follower appended in its last fetch counts from
 * its next one, an offset stays what it was when the follower stopped or was cut off, and a member that
 * has not fetched since this broker became leader holds the high watermark. KIP-966 (`strictHwm`): it does
 * not advance while the ISR is below min.insync.replicas. Kafka also waits for a follower outside the ISR
 * that caught up within replica.lag.time.max.ms and is about to join it; the model has no clock, and that
 * wait only delays an advance.
 *
 * A cut-off leader (the KIP-250 ghost) acts on its stale ISR the same way: only followers on its side of the
 * cut can fetch from it (`fetchSource`).
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
  const leader = at.replicas[b]!;
  const mine = leader.log;
  const bytes = s._b;
  const o = s._o;
  const size = sizeAt(bytes, o + mine, shape);
  const isr = bytes[o + view.isr]!;
  const isrSize = countOf(isr);
  const myHw = bytes[o + leader.hw]!;
  // How far the leader knows each ISR member's log reaches, by broker (-1: not a member, or unknown).
  // Only acks=quorum reads it past the high watermark, which it can raise only while below the log end.
  const known = KNOWN;
  let low = size;
  if (myHw < size || cfg.acks === 'quorum') for (const m of cfg.replicas) {
    known[m] = -1;
    if (!inMask(isr, m)) continue;
    const k = m === b || cfg.mutation === 'highWatermarkIgnoresIsr' ? size : fetchOffsetAt(s, leader, m);
    known[m] = k;
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
      if (cfg.acks === 'quorum') for (const m of cfg.replicas) if (known[m]! > e) isrHolders++;
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

const KNOWN: number[] = Array.from({ length: MAX_BROKERS }, () => -1);

/**
 * Ends every step: in every topic partition, brokers that do not lead drop their high watermark and their
 * fetch state of followers (neither is read; a broker that becomes leader starts with both unknown), and
 * every broker that believes it leads settles.
 */
export function settle(s: ReplicationState, cfg: Config, before?: ReplicationState): ReplicationState {
  if (!writesInPlace(s)) return inCopy(s, (m) => settle(m, cfg, before));
  const P = placesOf(s);
  const bytes = s._b;
  const o = s._o;
  for (const tp of cfg.tps) {
    const at = P.tps[tp.id]!;
    // Only broker b's own iteration writes its high watermark, so the replicas read here stay right for it.
    for (const b of cfg.replicas) {
      const r = at.replicas[b]!;
      const view = leaderViewAt(s, P, at, b);
      if (view !== null && before !== undefined && ledInAnotherEpoch(before, tp, b, codeAt(bytes, o + view.leaderEpoch, P.leaderEpochWidth))) {
        // Re-elected in a new leader epoch: Kafka keeps the followers' offsets (resetReplicaState without
        // isNewLeader), but none of them was fetched in this epoch.
        putByte(s, r.staleFetch, (bit(P.brokers) - 1) & ~bit(b));
      }
      putByte(s, r.hw, view === null ? 0 : settleLeader(s, cfg, tp, b, view));
      if (view === null && cfg.mutation !== 'fetchStateKeptAcrossLeaderships') {
        for (const f of cfg.replicas) putByte(s, r.fetchOffsets[f]!, 0);
        putByte(s, r.staleFetch, 0);
      }
    }
  }
  return s;
}

/** Whether `b` believed it led `tp` in `s`, in an epoch other than `epoch` (a code). */
function ledInAnotherEpoch(s: ReplicationState, tp: TopicPartition, b: number, epoch: number): boolean {
  const P = placesOf(s);
  const view = leaderViewAt(s, P, P.tps[tp.id]!, b);
  return view !== null && codeAt(s._b, s._o + view.leaderEpoch, P.leaderEpochWidth) !== epoch;
}

/**
 * The leader follower `f` fetches from now, or NO_LEADER. KIP-320: the fetch carries the follower's
 * leader epoch and the leader serves only its own epoch (FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH
 * otherwise). A fetch that would change nothing (no record to truncate or take, and the leader already
 * knows the follower's log end from this incarnation) is not a step.
 */
export function fetchSource(s: ReplicationState, f: number, acrossEpochs = false, tp: TopicPartition = ONLY): number {
  const v = snapshotOf(s, tp);
  if (!v.running[f]) return NO_LEADER;
  const l = v.viewLeader[f]!;
  if (l === NO_LEADER || l === f || inMask(v.cut, f) !== inMask(v.cut, l)) return NO_LEADER;
  if (!v.running[l] || v.viewLeader[l] !== l || (v.viewEpoch[l] !== v.viewEpoch[f] && !acrossEpochs)) return NO_LEADER;
  const p = commonPrefixAt(v.bytes, v.logAt[f]!, v.logAt[l]!, v.log);
  if (p !== v.leo[f] || p !== v.leo[l]) return l;
  const r = placesOf(s).tps[tp.id]!.replicas[l]!;
  return fetchOffsetAt(s, r, f) === p && !fetchIsStale(s, r, f) ? NO_LEADER : l;
}

/**
 * One fetch round trip: the follower truncates a divergent suffix (KIP-101/279/320, see `commonPrefix`)
 * and appends the next record of the leader's log. In Kafka a fetch whose last fetched epoch diverges is
 * answered with the diverging epoch and records nothing; the follower truncates and fetches again from
 * the common prefix, and that valid fetch is the one the leader records (`Partition.fetchRecords` calls
 * `updateFollowerFetchState` only without a diverging epoch). So the leader records the common prefix: the
 * follower's log end before the record it takes. The logs are compared and written in the state's bytes
 * (places.ts, writes.ts).
 */
export function fetch(s: ReplicationState, f: number, l: number, tp: TopicPartition = ONLY, mutation?: Mutation): ReplicationState {
  if (!writesInPlace(s)) return inCopy(s, (m) => fetch(m, f, l, tp, mutation));
  const P = placesOf(s);
  const shape = P.log;
  const at = P.tps[tp.id]!;
  const b = s._b;
  const o = s._o;
  const mine = o + at.replicas[f]!.log;
  const theirs = o + at.replicas[l]!.log;
  const leader = at.replicas[l]!;
  const mineSize = sizeAt(b, mine, shape);
  const theirSize = sizeAt(b, theirs, shape);
  if (mutation === 'fetchWithoutEpochValidation' && mineSize <= theirSize) {
    // Before KIP-101: served by offset alone, so a divergent suffix is never truncated.
    if (mineSize < theirSize) appendEntry(s, at.replicas[f]!.log, epochAt(b, theirs, mineSize, shape), valueAt(b, theirs, mineSize, shape), shape);
    return recordFetch(s, leader, f, mineSize);
  }
  const p = commonPrefixAt(b, mine, theirs, shape);
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
  if (p < theirSize) putLogPrefix(s, mineAt, at.replicas[l]!.log, p + 1, shape);
  else putLogPrefix(s, mineAt, mineAt, p, shape);
  if (truncated) putByte(s, at.ghost.committedTruncated, 1);
  return recordFetch(s, leader, f, mutation === 'fetchOffsetBeforeTruncation' ? mineSize : p);
}

/** The leader at `leader` records follower `f`'s valid fetch at `offset`, made by its current incarnation. */
function recordFetch(s: ReplicationState, leader: ReplicaPlaces, f: number, offset: number): ReplicationState {
  putByte(s, leader.fetchOffsets[f]!, offset + 1);
  putByte(s, leader.staleFetch, s._b[s._o + leader.staleFetch]! & ~bit(f));
  return s;
}
