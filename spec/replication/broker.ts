/**
 * Broker-side replication: followers fetch from whoever they believe leads, and every broker that
 * believes it leads advances its high watermark and answers pending produce requests from its own view
 * of the ISR, stale or not.
 */
import { countOf, inMask, maskOf } from './ids.ts';
import { commonPrefix, hasEntryAt } from './log.ts';
import { snapshotOf } from './snapshot.ts';
import { acknowledges, strongAcks } from './producer.ts';
import { type Broker, type Config, NO_LEADER, type Partition, type ReplicationState, viewOf } from './state.ts';

/** Whether `b` is running and believes it leads. */
export function actsAsLeader(s: ReplicationState, b: number): boolean {
  return s.brokers.get(b)!.running && viewOf(s, b).leader === b;
}

/**
 * The leader's work after any step: `Partition.maybeIncrementLeaderHW`, then the delayed produce requests.
 *
 * The leader sees each follower's log as it is now, where Kafka sees the offset of its last fetch: the
 * high watermark is the ISR members' agreement with the leader's log (never more than they hold), and the
 * leader's own high watermark never moves back. KIP-966 (`strictHwm`): it does not advance while the ISR
 * is below min.insync.replicas.
 *
 * Pending requests are the records of the leader's current epoch: only the leader of an epoch appends in
 * it, and a request fails once its leader learns it was deposed, so a later ack is impossible.
 *
 * Returns the new high watermark; what the leader exposed and acknowledged goes into `s.ghost` (in place
 * on a `withMutations` copy, hence the returned state).
 */
function settleLeader(s: ReplicationState, cfg: Config, b: number, me: Broker, view: Partition): [number, ReplicationState] {
  const log = me.log;
  const isr = maskOf(view.isr);
  const isrSize = countOf(isr);
  const agreement: number[] = [];
  let low = log.size;
  const brokers = s.brokers;
  for (const m of cfg.replicas) {
    if (!inMask(isr, m)) continue;
    const k = m === b || cfg.mutation === 'highWatermarkIgnoresIsr' ? log.size : commonPrefix(log, brokers.get(m)!.log);
    agreement.push(k);
    if (k < low) low = k;
  }
  let hw = me.hw;
  if ((!cfg.strictHwm || isrSize >= cfg.minIsr || cfg.mutation === 'strictHwmIgnored') && low > hw) hw = low;

  // Consumers read below the high watermark: that prefix is committed. It must extend, or lie inside, the
  // longest committed prefix ever exposed.
  let t = s;
  if (hw > 0) {
    const c = t.ghost.committed;
    if (commonPrefix(log, c) < Math.min(hw, c.size)) {
      if (!t.ghost.committedRewritten) t = t.setIn(['ghost', 'committedRewritten'], true);
    } else if (hw > c.size) t = t.setIn(['ghost', 'committed'], log.slice(0, hw));
  }
  if (strongAcks(cfg)) {
    for (let o = 0; o < log.size; o++) {
      const e = log.get(o)!;
      if (e.epoch !== view.leaderEpoch || t.ghost.acked.has(e.value)) continue;
      let isrHolders = 0;
      for (const k of agreement) if (k > o) isrHolders++;
      if (!acknowledges(cfg, o, hw, isrSize, isrHolders)) continue;
      const copies = brokers.count((x) => hasEntryAt(x.log, o, e));
      t = t.setIn(['ghost', 'acked'], t.ghost.acked.add(e.value));
      if (copies < cfg.minIsr && !t.ghost.ackBelowMinIsr) t = t.setIn(['ghost', 'ackBelowMinIsr'], true);
    }
  }
  return [hw, t];
}

/**
 * Ends every step: brokers that do not lead drop their high watermark (it is never read), and every
 * broker that believes it leads settles.
 */
export function settle(s: ReplicationState, cfg: Config): ReplicationState {
  let t = s;
  // Only broker b's own iteration writes its high watermark, so the brokers read here stay right for it.
  const brokers = s.brokers;
  for (const b of cfg.replicas) {
    const me = brokers.get(b)!;
    let hw = 0;
    if (me.running) {
      const view = me.view ?? t.partition;
      if (view.leader === b) [hw, t] = settleLeader(t, cfg, b, me, view);
    }
    if (hw !== me.hw) t = t.setIn(['brokers', b, 'hw'], hw);
  }
  return t;
}

/**
 * The leader follower `f` fetches from now, or NO_LEADER. KIP-320: the fetch carries the follower's
 * leader epoch and the leader serves only its own epoch (FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH
 * otherwise). A fetch that would change nothing is not a step.
 */
export function fetchSource(s: ReplicationState, f: number, acrossEpochs = false): number {
  const v = snapshotOf(s);
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
export function fetch(s: ReplicationState, f: number, l: number): ReplicationState {
  const brokers = s.brokers;
  const mine = brokers.get(f)!.log;
  const theirs = brokers.get(l)!.log;
  const p = commonPrefix(mine, theirs);
  let truncated = false;
  if (p < mine.size && !s.ghost.committedTruncated) {
    const c = s.ghost.committed;
    for (let o = p; o < Math.min(mine.size, c.size); o++) {
      const e = mine.get(o)!;
      if (!hasEntryAt(c, o, e)) continue;
      const elsewhere = brokers.some((x, i) => i !== f && hasEntryAt(x.log, o, e));
      if (!elsewhere) truncated = true;
    }
  }
  const t = s.setIn(['brokers', f, 'log'], p < theirs.size ? theirs.slice(0, p + 1) : mine.slice(0, p));
  return truncated ? t.setIn(['ghost', 'committedTruncated'], true) : t;
}
