/**
 * When a leader accepts and acknowledges a produce request, by `acks` (KIP-250 thread, Guozhang Wang,
 * Feb 2 2018: 0 = no ack, 1 = the leader, all = every ISR member and at least min.insync.replicas of
 * them, quorum = at least max(majority of the replicas, min.insync.replicas) ISR members).
 */
import type { Config } from './state.ts';

/** Only acks=all and acks=quorum make a durability promise; acks=0/1 records are tracked as committed only. */
export const strongAcks = (cfg: Config): boolean => cfg.acks === 'all' || cfg.acks === 'quorum';

/**
 * `Partition.appendRecordsToLeader`: acks=all is refused with NotEnoughReplicas while the leader's ISR is
 * below min.insync.replicas (open question 2, Kafka's behaviour); quorum is refused on the same check.
 */
export function acceptsAppend(cfg: Config, isrSize: number): boolean {
  return !strongAcks(cfg) || isrSize >= cfg.minIsr || cfg.mutation === 'appendIgnoresMinIsr';
}

/** The number of ISR copies acks=quorum waits for: max(floor(RF/2)+1, min.insync.replicas). */
export function quorumSize(cfg: Config): number {
  return Math.max(Math.floor(cfg.replicas.length / 2) + 1, cfg.minIsr);
}

/**
 * Whether the leader answers the pending request for the record at `offset` now.
 * acks=all: `Partition.checkEnoughReplicasReachOffset` acks once the high watermark passes the record
 * ("we first wait for a message to be committed and then check the min.isr requirement", Jun Rao), while
 * the leader's ISR has at least min.insync.replicas members.
 * acks=quorum: enough ISR members hold the record, whatever the high watermark (open question 4: the
 * high watermark stays the ISR minimum).
 */
export function acknowledges(cfg: Config, offset: number, hw: number, isrSize: number, isrHolders: number): boolean {
  switch (cfg.acks) {
    case 'all':
      return (offset < hw || cfg.mutation === 'ackBeforeHighWatermark') && (isrSize >= cfg.minIsr || cfg.mutation === 'ackIgnoresMinIsr');
    case 'quorum':
      return isrHolders >= quorumSize(cfg);
    default:
      return false;
  }
}
