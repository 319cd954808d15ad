/**
 * Broker-side replication: followers fetch from whoever they believe leads, and every broker that
 * believes it leads advances its high watermark and answers pending produce requests from its own view
 * of the ISR, stale or not.
 */
import { countOf, inMask, maskOf } from './ids.ts';
import { commonPrefix, hasEntryAt } from './log.ts';
import { snapshotOf } from './snapshot.ts';
import { acknowledges, strongAcks } from './producer.ts';
import { type Config, NO_LEADER, type Partition, type ReplicationState, viewOf } from './state.ts';
import { ONLY, type Replica, setGhost, setReplica, type TopicPartition } from './topicPartition.ts';

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
 * Returns the new high watermark; what the leader exposed and acknowledged goes into the partition's ghost (in place
 * on a `withMutations` copy, hence the returned state).
 */
function settleLeader(s: ReplicationState, cfg: Config, tp: TopicPartition, b: number, me: Replica, view: Partition): [number, ReplicationState] {
  const log = me.log;
  const isr = maskOf(view.isr);
  const isrSize = countOf(isr);
  const cut = maskOf(s.cut);
  const agreement: number[] = [];
  let low = log.size;
  for (const m of cfg.replicas) {
    if (!inMask(isr, m)) continue;
    let k = m === b || cfg.mutation === 'highWatermarkIgnoresIsr' ? log.size : commonPrefix(log, tp.replica(s, m).log);
    // A member across the network cut cannot fetch from this leader, so the leader cannot learn what it
    // holds now: it keeps the high watermark where it is (it can stop an advance, never allow one).
    if (inMask(cut, m) !== inMask(cut, b)) k = Math.min(k, me.hw);
    agreement.push(k);
    if (k < low) low = k;
  }
  let hw = me.hw;
  if ((!cfg.strictHwm || isrSize >= cfg.minIsr || cfg.mutation === 'strictHwmIgnored') && low > hw) hw = low;

  // Consumers read below the high watermark: that prefix is committed. It must extend, or lie inside, the
  // longest committed prefix ever exposed.
  let t = s;
  if (hw > 0) {
    const c = tp.ghost(t).committed;
    if (commonPrefix(log, c) < Math.min(hw, c.size)) {
      if (!tp.ghost(t).committedRewritten) t = setGhost(t, tp, 'committedRewritten', true);
    } else if (hw > c.size) t = setGhost(t, tp, 'committed', log.slice(0, hw));
  }
  if (strongAcks(cfg)) {
    for (let o = 0; o < log.size; o++) {
      const e = log.get(o)!;
      if (e.epoch !== view.leaderEpoch || tp.ghost(t).acked.has(e.value)) continue;
      let isrHolders = 0;
      for (const k of agreement) if (k > o) isrHolders++;
      if (!acknowledges(cfg, o, hw, isrSize, isrHolders)) continue;
      let copies = 0;
      for (const x of cfg.replicas) if (hasEntryAt(tp.replica(s, x).log, o, e)) copies++;
      t = setGhost(t, tp, 'acked', tp.ghost(t).acked.add(e.value));
      if (copies < cfg.minIsr && !tp.ghost(t).ackBelowMinIsr) t = setGhost(t, tp, 'ackBelowMinIsr', true);
    }
  }
  return [hw, t];
}

/**
 * Ends every step: in every topic partition, brokers that do not lead drop their high watermark (it is
 * never read), and every broker that believes it leads settles.
 */
export function settle(s: ReplicationState, cfg: Config): ReplicationState {
  let t = s;
  for (const tp of cfg.tps) {
    // Only broker b's own iteration writes its high watermark, so the replicas read here stay right for it.
    const brokers = t.brokers;
    for (const b of cfg.replicas) {
      const me = tp.replica(t, b);
      let hw = 0;
      if (brokers.get(b)!.running) {
        const view = me.view ?? tp.partition(t);
        if (view.leader === b) [hw, t] = settleLeader(t, cfg, tp, b, me, view);
      }
      if (hw !== me.hw) t = setReplica(t, tp, b, 'hw', hw);
    }
  }
  return t;
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
  const mine = v.logs[f]!;
  const theirs = v.logs[l]!;
  const p = commonPrefix(mine, theirs);
  return p === mine.size && p === theirs.size ? NO_LEADER : l;
}

/**
 * One fetch round trip: the follower truncates a divergent suffix (KIP-101/279/320, see `commonPrefix`)
 * and appends the next record of the leader's log.
 */
export function fetch(s: ReplicationState, f: number, l: number, tp: TopicPartition = ONLY): ReplicationState {
  const mine = tp.replica(s, f).log;
  const theirs = tp.replica(s, l).log;
  const p = commonPrefix(mine, theirs);
  let truncated = false;
  const ghost = tp.ghost(s);
  if (p < mine.size && !ghost.committedTruncated) {
    const c = ghost.committed;
    for (let o = p; o < Math.min(mine.size, c.size); o++) {
      const e = mine.get(o)!;
      if (!hasEntryAt(c, o, e)) continue;
      const elsewhere = s.brokers.some((_, i) => i !== f && hasEntryAt(tp.replica(s, i).log, o, e));
      if (!elsewhere) truncated = true;
    }
  }
  const t = setReplica(s, tp, f, 'log', p < theirs.size ? theirs.slice(0, p + 1) : mine.slice(0, p));
  return truncated ? setGhost(t, tp, 'committedTruncated', true) : t;
}
