/**
 * The state of one Kafka partition replicated on `rf` brokers, and of the KRaft controller that owns its
 * `PartitionRegistration`. Offsets are list indexes, so a log end offset (LEO) is `log.size`.
 *
 * Metadata reaches every broker that can reach the controller in the same step as the change, so such a
 * broker's view is the controller's record and is stored as `null`. A broker cut off by a network
 * partition keeps the record it last saw: a deposed leader that still believes it leads (the "ghost" of
 * KIP-250) acts on that stale view until the partition heals.
 */
import { List, Map, Record, Set } from 'immutable';
import { idSet } from './ids.ts';
import type { Mutation } from './mutations.ts';

/** `LeaderConstants.NO_LEADER`. */
export const NO_LEADER = -1;

/** One record: the leader epoch it was appended in (KIP-101) and the producer's value (each value is sent once). */
export const Entry = Record<{ epoch: number; value: number }>({ epoch: 0, value: 0 });
export type Entry = ReturnType<typeof Entry>;
export type Log = List<Entry>;

/**
 * The controller's `PartitionRegistration` (KIP-631, with the KIP-966 fields). Without the Unclean
 * Recovery Manager, `lastKnownElr` holds the last known leader alone, as Kafka stores it
 * (`PartitionChangeBuilder.useLastKnownLeaderInBalancedRecovery`, `maybeUpdateLastKnownLeader`); with the
 * manager it holds the last known ELR members. `recovering` is `LeaderRecoveryState.RECOVERING` (KIP-704):
 * an unclean election set it, and the leader has not yet reported RECOVERED.
 */
export const Partition = Record<{
  leader: number;
  leaderEpoch: number;
  partitionEpoch: number;
  isr: Set<number>;
  elr: Set<number>;
  lastKnownElr: Set<number>;
  recovering: boolean;
}>({
  leader: NO_LEADER,
  leaderEpoch: 0,
  partitionEpoch: 0,
  isr: idSet(0),
  elr: idSet(0),
  lastKnownElr: idSet(0),
  recovering: false,
});
export type Partition = ReturnType<typeof Partition>;

/**
 * One broker's replica. The flushed prefix is not a variable: an unclean shutdown keeps any prefix
 * (`UncleanShutdown.keep`), which is every flush history, since a flush can always come just before the
 * crash. `hw` is kept only while the broker believes it leads (0 otherwise), because a follower's high
 * watermark never decides an acknowledgement or what consumers see.
 */
export const Broker = Record<{
  running: boolean;
  log: Log;
  hw: number;
  /** The partition record this broker acts on, when it differs from the controller's (cut off); else null. */
  view: Partition | null;
  /**
   * KIP-966 CleanShutdownFile. It holds the broker epoch, which the controller compares with the
   * registration it knows; the file is written only by a clean shutdown and deleted at startup, so the
   * comparison reduces to whether the file is there.
   */
  cleanShutdownFile: boolean;
}>({ running: true, log: List<Entry>(), hw: 0, view: null, cleanShutdownFile: false });
export type Broker = ReturnType<typeof Broker>;

/** TLC-style aux counters: how much of each fault budget is spent, and the failures by kind. */
export const Faults = Record({
  uncleanShutdowns: 0,
  /** Unclean shutdowns that lost at least one record (the KIP-966 "data loss unclean shutdown"). */
  dataLossShutdowns: 0,
  cleanShutdowns: 0,
  emptyDisks: 0,
  partitions: 0,
  /** Brokers cut off from the controller, over all network partitions (tracked only when they count as failures). */
  isolations: 0,
  isrShrinks: 0,
});
export type Faults = ReturnType<typeof Faults>;

/**
 * Observer variables (kafka-tlaplus `inv_*`): no guard reads them except `produced`, which bounds the
 * producers. The booleans are sticky and false in every good state, so they split no states until the
 * property they feed is broken.
 */
export const Ghost = Record({
  /** How many values producers have sent (values are 1..produced). */
  produced: 0,
  /** Values acknowledged to an acks=all or acks=quorum producer. */
  acked: Set<number>(),
  /** The longest committed prefix any leader has exposed to consumers (its log below its high watermark). */
  committed: List<Entry>(),
  uncleanElection: false,
  /** A leader exposed a committed prefix that disagrees with `committed`. */
  committedRewritten: false,
  /** A follower's truncation erased the last copy of a committed record (whatever election came before it). */
  committedTruncated: false,
  /** A strong acknowledgement went out while fewer than min.insync.replicas logs held the record. */
  ackBelowMinIsr: false,
  /** A clean election chose a replica outside the ISR and the ELR. */
  cleanElectionOutside: false,
  /** An unclean election or recovery ran when the unclean recovery strategy forbids it. */
  uncleanOutsideStrategy: false,
  // Milestones for the `sometimes` witnesses: each says a preset reached the situation its fix is about.
  /** A leader was elected from the ELR after some record was acknowledged. */
  elrElectionAfterAck: false,
  /** A crash (unclean shutdown or lost disk) erased a broker's copy of an acknowledged record. */
  ackedCopyCrashed: false,
  /** The leader changed after such a crash. */
  electionAfterAckedCopyCrashed: false,
  /** An admin preferred-leader election moved leadership. */
  preferredElected: false,
  /** A broker cut off from the controller, still believing it leads, took a write (the KIP-250 ghost). */
  ghostAppended: false,
  /** A leader was elected after an acknowledgement while an ISR member lacked the acknowledged record. */
  electionPastLaggingIsr: false,
});
export type Ghost = ReturnType<typeof Ghost>;

export const ReplicationState = Record({
  /** By broker id; the partition's replicas are all the brokers, in assignment order. */
  brokers: Map<number, Broker>(),
  partition: Partition(),
  /** Brokers the controller treats as unavailable (KIP-631 fenced). */
  fenced: idSet(0),
  /**
   * Brokers in controlled shutdown (KIP-841 `BrokerRegistration.inControlledShutdown`): running, but no longer
   * an acceptable leader or ISR member; a broker leaves the state when it stops.
   */
  shuttingDown: idSet(0),
  /** Brokers on the far side of a network partition: they reach each other, not the controller or the rest. */
  cut: idSet(0),
  faults: Faults(),
  ghost: Ghost(),
});
export type ReplicationState = ReturnType<typeof ReplicationState>;

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
  /** Broker ids in assignment order; the first is the preferred leader. */
  readonly replicas: readonly number[];
  readonly minIsr: number;
  /** The ISR at start is the first `initIsr` replicas. */
  readonly initIsr: number;
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
  /** A guard mutation (tests only; never a parameter). */
  readonly mutation?: Mutation;
}

export const brokerName = (b: number): string => `broker${b}`;

/** The partition record broker `b` acts on. */
export function viewOf(s: ReplicationState, b: number): Partition {
  return s.brokers.get(b)!.view ?? s.partition;
}

/** Failures that can destroy data, counted against min.insync.replicas (the KIP-966 tolerance). */
export function dataLossFailures(s: ReplicationState, cfg: Config): number {
  const f = s.faults;
  return f.dataLossShutdowns + f.emptyDisks + (cfg.countIsolations ? f.isolations : 0);
}

/** `s` with broker `b` replaced by `f(b)`. */
export function updateBroker(s: ReplicationState, b: number, f: (x: Broker) => Broker): ReplicationState {
  return s.set('brokers', s.brokers.set(b, f(s.brokers.get(b)!)));
}

/** The broker after it stops: its disk keeps `log`; what it held in memory (high watermark, metadata) is gone. */
export function stopped(b: Broker, log: Log, cleanShutdownFile: boolean): Broker {
  return b.withMutations((x) => x.set('running', false).set('log', log).set('hw', 0).set('view', null).set('cleanShutdownFile', cleanShutdownFile));
}
