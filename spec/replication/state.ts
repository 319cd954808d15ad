/**
 * The state of Kafka topic partitions replicated on the same `rf` brokers, and of the KRaft controller that
 * owns their `PartitionRegistration`s. Offsets are list indexes, so a log end offset (LEO) is `log.size`.
 *
 * With one topic partition (the default) its registration is `partition`, and each broker holds its replica
 * (`log`, `hw`, `view`) beside its own fields. With more, each of those is per partition (`partitions`, a
 * broker's `replicas`, `ghosts`) while running, the clean-shutdown file, fencing, controlled shutdown and
 * network cuts stay per broker. Only `topicPartition.ts` knows where a partition's fields live.
 *
 * Metadata reaches every broker that can reach the controller in the same step as the change, so such a
 * broker's view is the controller's record and is stored as `null`. A broker cut off by a network
 * partition keeps the record it last saw: a deposed leader that still believes it leads (the "ghost" of
 * KIP-250) acts on that stale view until the partition heals.
 */
import { layout as L, type Packed } from '../layout/index.ts';
import type { Mutation } from './mutations.ts';
import { sizeAt } from './log.ts';
import { placesOf } from './places.ts';
import { ONLY, type TopicPartition } from './topicPartition.ts';
import { clearView, inCopy, putByte, putLogPrefix, writesInPlace } from './writes.ts';

import { NO_LEADER } from './ids.ts';
export { NO_LEADER } from './ids.ts';

/**
 * The bounds of the state, derived from the parameters: every value a reachable state holds lies inside
 * them, so a value outside is a modelling error the checker reports (the layout's `TypeOK`).
 */
export interface ReplicationBounds {
  readonly rf: number;
  readonly values: number;
  readonly maxLeaderEpoch: number;
  readonly maxPartitionEpoch: number;
  readonly maxUncleanShutdowns: number;
  readonly maxCleanShutdowns: number;
  readonly maxEmptyDisks: number;
  readonly maxPartitions: number;
  readonly maxIsrShrinks: number;
  readonly topicPartitions: number;
}

/**
 * Leader and partition epochs are bounded by the fault budgets. The controller changes the partition only
 * in a fault's step (`changes`: an ISR shrink; a controlled shutdown and its clean stop; a crash; the two
 * changes of a restart; a fence and an unfence per broker cut off), plus steps that need one of those
 * first: after a change, at most one unclean election and one preferred election move the leader (each
 * needs the leaderless or non-preferred partition a change left), and an ISR expansion never does (the
 * controller's leader is always in its ISR). The partition epoch also counts the expansions (at most the
 * members any change removed, `rf` each, plus the replicas outside the initial ISR) and the KIP-704
 * recoveries (one per unclean election). Each topic partition takes every broker-level change at most once, so
 * the bounds hold per partition whatever their number (the ISR-shrink budget is shared).
 */
export function boundsOf(p: {
  readonly rf: number;
  readonly values: number;
  readonly maxUncleanShutdowns: number;
  readonly maxCleanShutdowns: number;
  readonly maxEmptyDisks: number;
  readonly maxPartitions: number;
  readonly maxIsrShrinks: number;
  readonly topicPartitions?: number;
}): ReplicationBounds {
  const stops = p.maxUncleanShutdowns + p.maxCleanShutdowns + p.maxEmptyDisks;
  const changes = p.maxIsrShrinks + 4 * stops + 2 * p.rf * p.maxPartitions;
  return { ...p, topicPartitions: p.topicPartitions ?? 1, maxLeaderEpoch: 1 + 3 * changes, maxPartitionEpoch: 1 + p.rf + changes * (5 + 3 * p.rf) };
}

/**
 * The packed layout of the state for the given bounds. A log holds each value at most once (a value is
 * produced once, and a fetch appends to a prefix of the leader's log the leader's next record), so every
 * log, the committed prefix and every high watermark fit in `values`.
 */
export function replicationLayout(b: ReplicationBounds) {
  const BrokerId = L.ids('broker', Array.from({ length: b.rf }, (_, i) => i));
  const Epoch = L.int(0, b.maxLeaderEpoch);
  const Offset = L.int(0, b.values);

  /** One record: the leader epoch it was appended in (KIP-101) and the producer's value (each value is sent once). */
  const Entry = L.record('Entry', { epoch: Epoch, value: L.int(0, b.values) });
  const Log = L.list(Entry, b.values);

  /**
   * The controller's `PartitionRegistration` (KIP-631, with the KIP-966 fields). Without the Unclean
   * Recovery Manager, `lastKnownElr` holds the last known leader alone, as Kafka stores it
   * (`PartitionChangeBuilder.useLastKnownLeaderInBalancedRecovery`, `maybeUpdateLastKnownLeader`); with the
   * manager it holds the last known ELR members. `recovering` is `LeaderRecoveryState.RECOVERING` (KIP-704):
   * an unclean election set it, and the leader has not yet reported RECOVERED.
   */
  const Partition = L.record('Partition', {
    leader: L.int(NO_LEADER, b.rf - 1),
    leaderEpoch: Epoch,
    partitionEpoch: L.int(0, b.maxPartitionEpoch),
    isr: L.idSet(BrokerId),
    elr: L.idSet(BrokerId),
    lastKnownElr: L.idSet(BrokerId),
    recovering: L.bool(),
  });

  /**
   * What a leader knows of its followers (Kafka's `Replica` state, kept by `Partition` while it leads): the
   * offset each follower last fetched from without diverging (`updateFollowerFetchState`, called only when
   * the fetch found no diverging epoch), -1 when unknown. A broker that becomes leader starts with every
   * offset unknown (`Replica.resetReplicaState` with isNewLeader), so both fields are kept only while the
   * broker believes it leads. `staleFetch`: followers that have not fetched since they restarted or since
   * the leader was re-elected in a new epoch; their offset is still what the high watermark waits on, but
   * an ISR expansion happens only on a fetch (`maybeExpandIsr`), and KIP-903's broker epoch refuses one
   * from an earlier incarnation.
   */
  const leaderFetchState = {
    fetchOffsets: L.map(BrokerId, L.int(-1, b.values)),
    staleFetch: L.idSet(BrokerId),
  };

  /**
   * One broker's replica. The flushed prefix is not a variable: an unclean shutdown keeps any prefix
   * (`UncleanShutdown.keep`), which is every flush history, since a flush can always come just before the
   * crash. `hw` is kept only while the broker believes it leads (0 otherwise), because a follower's high
   * watermark never decides an acknowledgement or what consumers see; so is its fetch state of followers.
   */
  const Broker = L.record('Broker', {
    running: L.bool(),
    log: Log,
    hw: Offset,
    ...leaderFetchState,
    /** The partition record this broker acts on, when it differs from the controller's (cut off); else null. */
    view: L.option(Partition),
    /**
     * KIP-966 CleanShutdownFile. It holds the broker epoch, which the controller compares with the
     * registration it knows; the file is written only by a clean shutdown and deleted at startup, so the
     * comparison reduces to whether the file is there.
     */
    cleanShutdownFile: L.bool(),
  });

  /** TLC-style aux counters: how much of each fault budget is spent, and the failures by kind. */
  const Faults = L.record('Faults', {
    uncleanShutdowns: L.int(0, b.maxUncleanShutdowns),
    /** Unclean shutdowns that lost at least one record (the KIP-966 "data loss unclean shutdown"). */
    dataLossShutdowns: L.int(0, b.maxUncleanShutdowns),
    cleanShutdowns: L.int(0, b.maxCleanShutdowns),
    emptyDisks: L.int(0, b.maxEmptyDisks),
    partitions: L.int(0, b.maxPartitions),
    /** Brokers cut off from the controller, over all network partitions (tracked only when they count as failures). */
    isolations: L.int(0, b.rf * b.maxPartitions),
    isrShrinks: L.int(0, b.maxIsrShrinks),
  });

  /**
   * Observer variables (kafka-tlaplus `inv_*`): no guard reads them except `produced`, which bounds the
   * producers. The booleans are sticky and false in every good state, so they split no states until the
   * property they feed is broken.
   */
  const Ghost = L.record('Ghost', {
    /** How many values producers have sent (values are 1..produced). */
    produced: Offset,
    /** Values acknowledged to an acks=all or acks=quorum producer. */
    acked: L.idSet(L.enumOf(Array.from({ length: b.values }, (_, i) => i + 1))),
    /** The longest committed prefix any leader has exposed to consumers (its log below its high watermark). */
    committed: Log,
    uncleanElection: L.bool(),
    /** A leader exposed a committed prefix that disagrees with `committed`. */
    committedRewritten: L.bool(),
    /** A follower's truncation erased the last copy of a committed record (whatever election came before it). */
    committedTruncated: L.bool(),
    /** A strong acknowledgement went out while fewer than min.insync.replicas logs held the record. */
    ackBelowMinIsr: L.bool(),
    /** A clean election chose a replica outside the ISR and the ELR. */
    cleanElectionOutside: L.bool(),
    /** An unclean election or recovery ran when the unclean recovery strategy forbids it. */
    uncleanOutsideStrategy: L.bool(),
    // Milestones for the `sometimes` witnesses: each says a preset reached the situation its fix is about.
    /** A leader was elected from the ELR after some record was acknowledged. */
    elrElectionAfterAck: L.bool(),
    /** A crash (unclean shutdown or lost disk) erased a broker's copy of an acknowledged record. */
    ackedCopyCrashed: L.bool(),
    /** The leader changed after such a crash. */
    electionAfterAckedCopyCrashed: L.bool(),
    /** An admin preferred-leader election moved leadership. */
    preferredElected: L.bool(),
    /** A broker cut off from the controller, still believing it leads, took a write (the KIP-250 ghost). */
    ghostAppended: L.bool(),
    /** A leader was elected after an acknowledgement while an ISR member lacked the acknowledged record. */
    electionPastLaggingIsr: L.bool(),
  });

  const State = L.record('ReplicationState', {
    /** By broker id; the partition's replicas are all the brokers, in assignment order. */
    brokers: L.map(BrokerId, Broker),
    partition: Partition,
    /** Brokers the controller treats as unavailable (KIP-631 fenced). */
    fenced: L.idSet(BrokerId),
    /**
     * Brokers in controlled shutdown (KIP-841 `BrokerRegistration.inControlledShutdown`): running, but no longer
     * an acceptable leader or ISR member; a broker leaves the state when it stops.
     */
    shuttingDown: L.idSet(BrokerId),
    /** Brokers on the far side of a network partition: they reach each other, not the controller or the rest. */
    cut: L.idSet(BrokerId),
    faults: Faults,
    ghost: Ghost,
  });
  if (b.topicPartitions === 1) return { BrokerId, Entry, Log, Partition, Broker, Faults, Ghost, State };

  // Several topic partitions on the same brokers: what belongs to one partition (its registration, each
  // broker's replica of it, its observer variables) is kept per partition, what belongs to a broker once.
  // The state is typed as the one-partition state: the fields that differ are read and written only
  // through `topicPartition.ts`.
  const TopicPartitionId = L.ids('topicPartition', Array.from({ length: b.topicPartitions }, (_, i) => i));
  /** A broker's replica of one topic partition (each field as in the one-partition `Broker`). */
  const Replica = L.record('Replica', { log: Log, hw: Offset, ...leaderFetchState, view: L.option(Partition) });
  const SharedBroker = L.record('Broker', { running: L.bool(), replicas: L.map(TopicPartitionId, Replica), cleanShutdownFile: L.bool() });
  const Shared = L.record('ReplicationState', {
    brokers: L.map(BrokerId, SharedBroker),
    partitions: L.map(TopicPartitionId, Partition),
    fenced: L.idSet(BrokerId),
    shuttingDown: L.idSet(BrokerId),
    cut: L.idSet(BrokerId),
    faults: Faults,
    ghosts: L.map(TopicPartitionId, Ghost),
  });
  return { BrokerId, Entry, Log, Partition, Broker, Faults, Ghost, State: Shared as unknown as typeof State };
}

export type ReplicationLayout = ReturnType<typeof replicationLayout>;
export type ReplicationState = Packed<ReplicationLayout['State']>;
export type Partition = Packed<ReplicationLayout['Partition']>;
export type Broker = Packed<ReplicationLayout['Broker']>;
export type Entry = Packed<ReplicationLayout['Entry']>;
export type Log = Packed<ReplicationLayout['Log']>;
export type Ghost = Packed<ReplicationLayout['Ghost']>;
/** A set of broker ids as the state holds it (its `bits` are the ids' mask: broker `b` is bit `b`). */
export type BrokerSet = ReplicationState['fenced'];

export type Acks = '0' | '1' | 'all' | 'quorum';
export type Strategy = 'None' | 'Balanced' | 'Aggressive';
/**
 * `previousBrokerEpoch`: Kafka since KAFKA-18635 (and the KIP-966 design): the broker sends the epoch its
 * CleanShutdownFile holds as PreviousBrokerEpoch and `ClusterControlManager.registerBroker` compares it with
 * the registration it knows. `everyIncarnationUnclean`: `registerBroker` before that fix, which handled
 * every new incarnation as an unclean shutdown. `none`: no detection (KIP-966 without KAFKA-15586).
 */
export type CleanShutdownCheck = 'previousBrokerEpoch' | 'everyIncarnationUnclean' | 'none';

/**
 * `assignmentOrder`: Kafka, the first valid replica in assignment order (`PartitionChangeBuilder.electAnyLeader`).
 * `longestLog`: KIP-250's proposal, "the live replicas in ISR with the largest LEO" (Jun Rao; Litao Deng:
 * "Yes"), compared as (last epoch, log end offset) since logs may have diverged (open question 6).
 */
export type ElectionOrder = 'assignmentOrder' | 'longestLog';

/**
 * `off`: no admin election. `immediate`: Kafka's `Election.PREFERRED` (`electPreferredLeader`): the first
 * replica in assignment order takes over as soon as it is a valid leader. `safe`: KIP-250 thread, Jun Rao
 * #4: the leader stops taking writes, the preferred replica catches up to its log end, then leadership moves.
 */
export type PreferredElection = 'off' | 'immediate' | 'safe';

/** The two seed readings of Balanced recovery without the Unclean Recovery Manager (KIP-966 thread, Oct 3 2023). */
export type BalancedFallback = 'waitLastKnownLeader' | 'lastKnownLeaderOrAny';

/** The model's constants, resolved from the spec parameters. */
export interface Config {
  /** Broker ids in ascending order: every broker hosts a replica of every topic partition. */
  readonly replicas: readonly number[];
  /** The topic partitions on these brokers (`topicPartitions`; one unless asked). */
  readonly tps: readonly TopicPartition[];
  /** Each topic partition's replicas in assignment order; the first is its preferred leader. */
  readonly assignment: readonly (readonly number[])[];
  readonly minIsr: number;
  /** The ISR at start is the first `initIsr` replicas. */
  readonly initIsr: number;
  /** Records per topic partition. */
  readonly values: number;
  readonly acks: Acks;
  /** KIP-966: the ELR, LastKnownELR and unclean-shutdown detection (metadata version with ELR). */
  readonly elr: boolean;
  /** How the controller tells a clean restart from an unclean one at registration (with `elr`). */
  readonly cleanShutdownCheck: CleanShutdownCheck;
  /** KIP-966: the high watermark advances only while the ISR has at least min.insync.replicas members. */
  readonly strictHwm: boolean;
  readonly strategy: Strategy;
  readonly recoveryManager: boolean;
  readonly balancedFallback: BalancedFallback;
  /** How a clean election picks among the valid replicas (KIP-250 proposes the longest log). */
  readonly election: ElectionOrder;
  /** Whether an admin may move leadership back to the preferred replica, and how (KIP-250, Jun Rao #4). */
  readonly preferredElection: PreferredElection;
  /** The legacy unclean.leader.election.enable, consulted when the ELR is off. */
  readonly uncleanLeaderElection: boolean;
  readonly maxUncleanShutdowns: number;
  readonly maxCleanShutdowns: number;
  readonly maxEmptyDisks: number;
  readonly maxPartitions: number;
  readonly maxIsrShrinks: number;
  /** Count isolated brokers as failures against min.insync.replicas (the KIP-250 reading) as well as data loss. */
  readonly countIsolations: boolean;
  /**
   * Also check liveness under fairness (`WritesAnswered`). The search then keeps partition epochs: a
   * liveness check cannot use the VIEW that drops them (a cycle in the reduced graph need not be one of
   * the model's).
   */
  readonly liveness: boolean;
  /** A guard mutation (tests only; never a parameter). */
  readonly mutation?: Mutation;
  /** The state's layout, for the bounds these constants imply (`boundsOf`). */
  readonly layout: ReplicationLayout;
}

export const brokerName = (b: number): string => `broker${b}`;

/** The registration of `tp` broker `b` acts on. */
export function viewOf(s: ReplicationState, b: number, tp: TopicPartition = ONLY): Partition {
  return tp.replica(s, b).view ?? tp.partition(s);
}

/** Failures that can destroy data, counted against min.insync.replicas (the KIP-966 tolerance). */
export function dataLossFailures(s: ReplicationState, cfg: Config): number {
  const f = placesOf(s).faults;
  const b = s._b;
  const o = s._o;
  return b[o + f.dataLossShutdowns]! + b[o + f.emptyDisks]! + (cfg.countIsolations ? b[o + f.isolations]! : 0);
}

/**
 * Broker `b` stops: its disk keeps the first `kept(tp)` records of each topic partition's log and, after a
 * clean shutdown, the CleanShutdownFile; what it held in memory (high watermarks, metadata) is gone.
 * Written in place into the step's copy (writes.ts).
 */
export function stopBroker(s: ReplicationState, cfg: Config, b: number, kept: (tp: TopicPartition) => number, cleanShutdownFile: boolean): ReplicationState {
  if (!writesInPlace(s)) return inCopy(s, (m) => stopBroker(m, cfg, b, kept, cleanShutdownFile));
  const P = placesOf(s);
  putByte(s, P.running[b]!, 0);
  for (const tp of cfg.tps) {
    const r = P.tps[tp.id]!.replicas[b]!;
    putLogPrefix(s, r.log, r.log, Math.min(kept(tp), sizeAt(s._b, s._o + r.log, P.log)), P.log);
    putByte(s, r.hw, 0);
    clearView(s, r.view, r.viewPartition);
    // Every leader's fetch state of `b` now comes from an earlier incarnation (settle clears `b`'s own).
    for (const other of cfg.replicas) {
      const at = P.tps[tp.id]!.replicas[other]!.staleFetch;
      if (other !== b) putByte(s, at, s._b[s._o + at]! | (1 << b));
    }
  }
  putByte(s, P.cleanShutdownFile[b]!, cleanShutdownFile ? 1 : 0);
  return s;
}
