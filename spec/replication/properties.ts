/**
 * Properties of Kafka partition replication with its controller (KIP-966 ELR, KIP-250 acks=quorum). Each
 * holds in every topic partition; a failure counts against every partition's tolerance, whichever
 * partition's records it lost (KIP-966 counts "data loss unclean shutdown events", which are a broker's).
 *
 * The durability promise (KIP-966: "MinISR-1 tolerance to data loss unclean shutdown events"; KIP-250,
 * Jun Rao: "we guarantee no data loss if there are fewer than ... failures") holds only while fewer than
 * min.insync.replicas data-loss failures have happened; the properties below say so where it applies.
 * A record is lost when no broker's log, running or not, holds it any more.
 */
import { always, sometimes, type Property } from '../../invariants/property.ts';
import { leadsTo } from '../../invariants/temporal.ts';
import { inMask } from './ids.ts';
import { commonPrefixAt, holdsValueAt, sizeAt } from './log.ts';
import { type GhostPlaces, leaderViewAt, placesOf } from './places.ts';
import { type Config, dataLossFailures, type ReplicationState, viewOf } from './state.ts';
import { ONLY, type TopicPartition } from './topicPartition.ts';

type S = ReplicationState;

/** Fewer than min.insync.replicas data-loss failures so far: inside the promised tolerance. */
export function withinTolerance(s: S, cfg: Config): boolean {
  return dataLossFailures(s, cfg) < cfg.minIsr;
}

/**
 * Every value acknowledged in `tp` is still in some broker's log of it. Properties are tested on every
 * state, so this and `holdsCommitted` read the logs' bytes in place (places.ts).
 */
export function ackedRecordsHeld(s: S, tp: TopicPartition = ONLY): boolean {
  const P = placesOf(s);
  const at = P.tps[tp.id]!;
  const b = s._b;
  const o = s._o;
  const acked = b[o + at.ghost.acked]!;
  for (let v = 1; acked >>> (v - 1) !== 0; v++) {
    if (!inMask(acked, v - 1)) continue;
    let held = false;
    for (let r = 0; r < P.brokers && !held; r++) held = holdsValueAt(b, o + at.replicas[r]!.log, v, P.log);
    if (!held) return false;
  }
  return true;
}

/** Whether `b` holds the whole committed prefix of `tp`. */
export function holdsCommitted(s: S, b: number, tp: TopicPartition = ONLY): boolean {
  const P = placesOf(s);
  const at = P.tps[tp.id]!;
  const committed = s._o + at.ghost.committed;
  return commonPrefixAt(s._b, s._o + at.replicas[b]!.log, committed, P.log) === sizeAt(s._b, committed, P.log);
}

/**
 * Whether every broker that believes it leads `tp` has a high watermark its running ISR members (as it sees
 * the ISR) agree with: each one's log matches the leader's at every offset below the high watermark where it
 * has a record. The leader computes the high watermark from fetch offsets; this reads the logs themselves.
 */
export function noDivergenceBelowHighWatermark(s: S, cfg: Config, tp: TopicPartition = ONLY): boolean {
  const P = placesOf(s);
  const at = P.tps[tp.id]!;
  const b = s._b;
  const o = s._o;
  for (const l of cfg.replicas) {
    const view = leaderViewAt(s, P, at, l);
    if (view === null) continue;
    const r = at.replicas[l]!;
    const hw = b[o + r.hw]!;
    const isr = b[o + view.isr]!;
    for (const m of cfg.replicas) {
      if (m === l || !inMask(isr, m) || b[o + P.running[m]!] === 0) continue;
      const mine = o + at.replicas[m]!.log;
      if (commonPrefixAt(b, mine, o + r.log, P.log) < Math.min(hw, sizeAt(b, mine, P.log))) return false;
    }
  }
  return true;
}

/**
 * Whether some produce request waits in the leader's purgatory (`DelayedProduce`): a record of the epoch a
 * running broker believes it leads, not yet acknowledged. Such a request is answered when it is
 * acknowledged, or fails (NOT_LEADER_OR_FOLLOWER) once its leader stops leading that epoch: it stopped, or
 * learnt of a new leader; no broker leads that epoch again, so an answer is final. A request refused at
 * append (NotEnoughReplicas, `acceptsAppend`) never waits.
 */
export function writePending(s: S, tps: readonly TopicPartition[] = [ONLY]): boolean {
  return tps.some((tp) => {
    const acked = tp.ghost(s).acked;
    return s.brokers.some((b, id) => {
      if (!b.running) return false;
      const view = viewOf(s, id, tp);
      return view.leader === id && tp.replica(s, id).log.some((e) => e.epoch === view.leaderEpoch && !acked.has(e.value));
    });
  });
}

/**
 * Issue 13: under fair replication and no permanent fault, every write gets an answer without waiting for
 * its request to time out (request.timeout.ms).
 */
export function writesAnswered(tps: readonly TopicPartition[] = [ONLY]): Property<S> {
  return leadsTo<S>(
    'WritesAnswered',
    'a pending acks=all/quorum produce request is eventually answered: acknowledged, or failed because its leader lost its epoch (never left to time out)',
    (s) => writePending(s, tps),
    (s) => !writePending(s, tps),
  );
}

/** Where `tp`'s observer variables lie in `s` (places.ts): the invariants, tested on every state, read their codes in place. */
const ghostOf = (s: S, tp: TopicPartition): GhostPlaces => placesOf(s).tps[tp.id]!.ghost;

/** Whether the sticky flag (or the mask of acknowledged values) at an absolute place of `s` is set. */
const isSet = (s: S, at: number): boolean => s._b[s._o + at] !== 0;

export function replicationProperties(cfg: Config): Property<S>[] {
  const strong = cfg.acks === 'all' || cfg.acks === 'quorum';
  // A property of one topic partition, claimed of every one; a witness of one, reached in any.
  const inEvery = (holds: (s: S, tp: TopicPartition) => boolean) => {
    if (cfg.tps.length === 1) return (s: S) => holds(s, ONLY);
    return (s: S) => cfg.tps.every((tp) => holds(s, tp));
  };
  const inSome = (reached: (s: S, tp: TopicPartition) => boolean) => (s: S) => cfg.tps.some((tp) => reached(s, tp));
  const props: Property<S>[] = [
    always<S>(
      'NoAckedRecordLost',
      'an acknowledged record (acks=all or quorum) is never lost while fewer than min.insync.replicas data-loss failures have happened and no unclean election took place',
      inEvery((s, tp) => !isSet(s, ghostOf(s, tp).acked) || isSet(s, ghostOf(s, tp).uncleanElection) || !withinTolerance(s, cfg) || ackedRecordsHeld(s, tp)),
    ),
    always<S>(
      'NoAckedRecordLostEvenUnclean',
      'an acknowledged record is never lost while fewer than min.insync.replicas data-loss failures have happened, even after an unclean election or recovery',
      inEvery((s, tp) => !isSet(s, ghostOf(s, tp).acked) || !withinTolerance(s, cfg) || ackedRecordsHeld(s, tp)),
    ),
    always<S>(
      'TruncationKeepsCommitted',
      'no follower truncation erases the last copy of a committed record, whatever election came before it (KAFKA-13872, last replica standing)',
      inEvery((s, tp) => !isSet(s, ghostOf(s, tp).committedTruncated)),
    ),
    always<S>(
      'CommittedPrefixNeverShrinks',
      'every committed prefix a leader exposes agrees with the longest one exposed before, while within the failure tolerance and with no unclean election',
      inEvery((s, tp) => !isSet(s, ghostOf(s, tp).committedRewritten) || isSet(s, ghostOf(s, tp).uncleanElection) || !withinTolerance(s, cfg)),
    ),
    always<S>(
      'CleanElectionsChooseIsrOrElr',
      'a clean election only ever chooses a member of the ISR or, with an empty ISR, of the ELR',
      inEvery((s, tp) => !isSet(s, ghostOf(s, tp).cleanElectionOutside)),
    ),
    always<S>(
      'AckImpliesMinIsrCopies',
      'when a record is acknowledged (acks=all or quorum), at least min.insync.replicas logs hold it (KIP-250)',
      inEvery((s, tp) => !isSet(s, ghostOf(s, tp).ackBelowMinIsr)),
    ),
    always<S>(
      'UncleanOnlyWhenStrategyAllows',
      'an unclean election or recovery runs only when unclean.recovery.strategy (or the legacy flag without ELR) allows it',
      inEvery((s, tp) => !isSet(s, ghostOf(s, tp).uncleanOutsideStrategy)),
    ),
  ];
  if (cfg.elr && cfg.strictHwm) {
    props.push(
      always<S>(
        'ElrMembersHoldCommitted',
        'KIP-966: every unfenced member of the ISR and the ELR holds the whole committed prefix, while within the failure tolerance and with no unclean election',
        inEvery((s, tp) => {
          if (isSet(s, ghostOf(s, tp).uncleanElection) || !withinTolerance(s, cfg)) return true;
          const P = placesOf(s);
          const r = P.tps[tp.id]!.partition;
          const candidates = (s._b[s._o + r.isr]! | s._b[s._o + r.elr]!) & ~s._b[s._o + P.fenced]!;
          for (const b of cfg.replicas) if (inMask(candidates, b) && !holdsCommitted(s, b, tp)) return false;
          return true;
        }),
      ),
    );
  }
  // After the older properties: where both fail in the same state, the older one is reported.
  props.push(
    always<S>(
      'LeaderInIsr',
      "the controller's leader is a member of the partition's ISR (PartitionChangeBuilder never elects outside it, and an unclean election makes the ISR the new leader alone)",
      inEvery((s, tp) => {
        const r = placesOf(s).tps[tp.id]!.partition;
        const leader = s._b[s._o + r.leader]! - 1;
        return leader < 0 || inMask(s._b[s._o + r.isr]!, leader);
      }),
    ),
    always<S>(
      'IsrHoldsCommitted',
      'every running, unfenced member of the ISR holds every committed record, while within the failure tolerance and with no unclean election (read from the logs, not from the high watermark rules)',
      inEvery((s, tp) => {
        if (isSet(s, ghostOf(s, tp).uncleanElection) || !withinTolerance(s, cfg)) return true;
        const P = placesOf(s);
        const members = s._b[s._o + P.tps[tp.id]!.partition.isr]! & ~s._b[s._o + P.fenced]!;
        for (const b of cfg.replicas) if (inMask(members, b) && s._b[s._o + P.running[b]!] !== 0 && !holdsCommitted(s, b, tp)) return false;
        return true;
      }),
    ),
    always<S>(
      'NoDivergenceBelowHighWatermark',
      "every running member of the ISR a leader acts on agrees with the leader's log below its high watermark, wherever it has records there (ghost leaders included), while within the failure tolerance and with no unclean election",
      inEvery((s, tp) => isSet(s, ghostOf(s, tp).uncleanElection) || !withinTolerance(s, cfg) || noDivergenceBelowHighWatermark(s, cfg, tp)),
    ),
  );
  props.push(
    strong
      ? sometimes<S>('RecordAcknowledged', 'some record is acknowledged to an acks=all/quorum producer', inSome((s, tp) => isSet(s, ghostOf(s, tp).acked)))
      : sometimes<S>('RecordCommitted', 'some record is committed (below a leader high watermark)', inSome((s, tp) => !tp.ghost(s).committed.isEmpty())),
    sometimes<S>('LeaderChanged', 'the controller elects a new leader', inSome((s, tp) => tp.partition(s).leaderEpoch > 1)),
  );
  if (cfg.maxUncleanShutdowns > 0) {
    props.push(sometimes<S>('UncleanShutdownHappened', 'a broker shuts down uncleanly', (s) => s.faults.uncleanShutdowns > 0));
  }
  if (cfg.maxEmptyDisks > 0) {
    props.push(sometimes<S>('EmptyDiskReturned', 'a broker comes back with an empty disk under its old id', (s) => s.faults.emptyDisks > 0));
  }
  if (cfg.maxPartitions > 0) {
    props.push(sometimes<S>('BrokerIsolated', 'a network partition cuts brokers off from the controller', (s) => !s.cut.isEmpty()));
  }
  if (cfg.elr) {
    props.push(sometimes<S>('ElrNonEmpty', 'the ELR has a member', inSome((s, tp) => !tp.partition(s).elr.isEmpty())));
  }
  const crashes = cfg.maxUncleanShutdowns + cfg.maxEmptyDisks;
  // An ELR member elected with its data needs a stop that keeps it in the ELR: a clean one or a cut.
  if (cfg.elr && strong && cfg.maxCleanShutdowns + cfg.maxPartitions > 0) {
    props.push(
      sometimes<S>('ElrElectionAfterAck', 'KIP-966: a leader is elected from the ELR after a record was acknowledged', inSome((s, tp) => isSet(s, ghostOf(s, tp).elrElectionAfterAck))),
    );
  }
  if (strong && crashes > 0) {
    props.push(
      sometimes<S>(
        'AckedCopyCrashedThenLeaderChange',
        'a crash erases a copy of an acknowledged record, and the leader changes afterwards',
        inSome((s, tp) => isSet(s, ghostOf(s, tp).electionAfterAckedCopyCrashed)),
      ),
    );
  }
  if (cfg.maxPartitions > 0) {
    props.push(sometimes<S>('GhostLeaderAppended', 'a broker cut off from the controller that still believes it leads takes a write (KIP-250 ghost)', inSome((s, tp) => isSet(s, ghostOf(s, tp).ghostAppended))));
  }
  // Under acks=all every ISR member holds an acknowledged record, so only acks=quorum can reach this.
  if (cfg.acks === 'quorum' && cfg.election === 'longestLog') {
    props.push(
      sometimes<S>(
        'ElectionPastLaggingIsrMember',
        'after an acknowledgement, a leader holding the record is elected while an ISR member lacks it',
        inSome((s, tp) => isSet(s, ghostOf(s, tp).electionPastLaggingIsr)),
      ),
    );
  }
  if (cfg.preferredElection !== 'off') {
    props.push(sometimes<S>('PreferredLeaderElected', 'an admin preferred-leader election moves leadership', inSome((s, tp) => isSet(s, ghostOf(s, tp).preferredElected))));
  }
  if (cfg.elr ? cfg.strategy === 'Aggressive' || (cfg.strategy === 'Balanced' && cfg.recoveryManager) : cfg.uncleanLeaderElection) {
    props.push(sometimes<S>('UncleanElectionHappened', 'an unclean election or recovery runs', inSome((s, tp) => isSet(s, ghostOf(s, tp).uncleanElection))));
  }
  // acks=0/1 requests never wait: there is nothing to answer later.
  if (cfg.liveness && strong) props.push(writesAnswered(cfg.tps));
  return props;
}
