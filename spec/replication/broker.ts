/**
 * Broker-side replication: followers fetch from whoever they believe leads, and every broker that
 * believes it leads advances its high watermark and answers pending produce requests from its own view
 * of the ISR, stale or not.
 */
import { acknowledges, strongAcks } from './producer.ts';
import { commonPrefix, hasEntryAt } from './log.ts';
import { type Config, connected, NO_LEADER, type ReplicationState, viewOf } from './state.ts';

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
 */
function settleLeader(s: ReplicationState, cfg: Config, b: number): ReplicationState {
  const me = s.brokers.get(b)!;
  const view = viewOf(s, b);
  const log = me.log;
  const isr = view.isr;
  const agreement: number[] = [];
  let low = log.size;
  for (const m of cfg.replicas) {
    if (!isr.has(m)) continue;
    const k = m === b ? log.size : commonPrefix(log, s.brokers.get(m)!.log);
    agreement.push(k);
    if (k < low) low = k;
  }
  let hw = me.hw;
  if ((!cfg.strictHwm || isr.size >= cfg.minIsr) && low > hw) hw = low;

  let ghost = s.ghost;
  // Consumers read below the high watermark: that prefix is committed. It must extend, or lie inside, the
  // longest committed prefix ever exposed.
  if (hw > 0) {
    const c = ghost.committed;
    if (commonPrefix(log, c) < Math.min(hw, c.size)) ghost = ghost.set('committedRewritten', true);
    else if (hw > c.size) ghost = ghost.set('committed', log.slice(0, hw));
  }
  if (strongAcks(cfg)) {
    for (let o = 0; o < log.size; o++) {
      const e = log.get(o)!;
      if (e.epoch !== view.leaderEpoch || ghost.acked.has(e.value)) continue;
      const isrHolders = agreement.filter((k) => k > o).length;
      if (!acknowledges(cfg, o, hw, isr.size, isrHolders)) continue;
      const copies = s.brokers.count((x) => hasEntryAt(x.log, o, e));
      ghost = ghost.merge({ acked: ghost.acked.add(e.value), ackBelowMinIsr: ghost.ackBelowMinIsr || copies < cfg.minIsr });
    }
  }
  let t = s;
  if (hw !== me.hw) t = t.setIn(['brokers', b, 'hw'], hw);
  return ghost === s.ghost ? t : t.set('ghost', ghost);
}

/**
 * Ends every step: brokers that do not lead drop their high watermark (it is never read), and every
 * broker that believes it leads settles.
 */
export function settle(s: ReplicationState, cfg: Config): ReplicationState {
  let t = s;
  for (const b of cfg.replicas) {
    if (actsAsLeader(t, b)) t = settleLeader(t, cfg, b);
    else if (t.brokers.get(b)!.hw !== 0) t = t.setIn(['brokers', b, 'hw'], 0);
  }
  return t;
}

/**
 * The leader follower `f` fetches from now, or NO_LEADER. KIP-320: the fetch carries the follower's
 * leader epoch and the leader serves only its own epoch (FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH
 * otherwise). A fetch that would change nothing is not a step.
 */
export function fetchSource(s: ReplicationState, f: number): number {
  const fb = s.brokers.get(f)!;
  if (!fb.running) return NO_LEADER;
  const v = viewOf(s, f);
  const l = v.leader;
  if (l === NO_LEADER || l === f || !connected(s, f, l)) return NO_LEADER;
  const lb = s.brokers.get(l)!;
  if (!lb.running) return NO_LEADER;
  const lv = viewOf(s, l);
  if (lv.leader !== l || lv.leaderEpoch !== v.leaderEpoch) return NO_LEADER;
  const p = commonPrefix(fb.log, lb.log);
  return p === fb.log.size && p === lb.log.size ? NO_LEADER : l;
}

/**
 * One fetch round trip: the follower truncates a divergent suffix (KIP-101/279/320, see `commonPrefix`)
 * and appends the next record of the leader's log.
 */
export function fetch(s: ReplicationState, f: number, l: number): ReplicationState {
  const mine = s.brokers.get(f)!.log;
  const theirs = s.brokers.get(l)!.log;
  const p = commonPrefix(mine, theirs);
  let ghost = s.ghost;
  if (p < mine.size && !ghost.uncleanElection && !ghost.committedTruncated) {
    const c = ghost.committed;
    for (let o = p; o < Math.min(mine.size, c.size); o++) {
      const e = mine.get(o)!;
      if (!hasEntryAt(c, o, e)) continue;
      const elsewhere = s.brokers.some((x, i) => i !== f && hasEntryAt(x.log, o, e));
      if (!elsewhere) ghost = ghost.set('committedTruncated', true);
    }
  }
  const log = p < theirs.size ? mine.slice(0, p).push(theirs.get(p)!) : mine.slice(0, p);
  const t = s.setIn(['brokers', f, 'log'], log);
  return ghost === s.ghost ? t : t.set('ghost', ghost);
}
