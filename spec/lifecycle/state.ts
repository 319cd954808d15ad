/**
 * The state of KIP-631 broker lifecycle: broker processes (one per broker id and incarnation), the
 * active controller's registry and leases, the `@metadata` log with its high watermark, partition
 * leadership and ISR, and the heartbeat network.
 *
 * Sources: the KIP-631 DISCUSS thread (seed 001), and Kafka's `ClusterControlManager`,
 * `BrokerHeartbeatManager`, `ReplicationControlManager` and `BrokerLifecycleManager`.
 *
 * Every field is a bounded int, an enum, a set of broker ids, or a small map keyed by broker id,
 * partition or incarnation, so the state has a fixed packed layout.
 */
import { List, Map, Record, Set } from 'immutable';

/** A broker id (`broker.id`); `b1`, `b2`, ... */
export type BrokerId = string;
/** A partition of the one topic; `p1`, `p2`, ... */
export type PartitionId = string;
/** Which start of a broker id this process is: 0 for the first, 1 for the next, ... */
export type Incarnation = number;

/**
 * A broker process's own state (`BrokerLifecycleManager`; the thread names INITIAL, FENCED and
 * SHUTDOWN, and "registered and active" for ACTIVE: Colin McCabe, Oct 22 2020). `NOT_STARTED` is a slot
 * for an incarnation that has not run yet; `PENDING_SHUTDOWN` is Kafka's `PENDING_CONTROLLED_SHUTDOWN`;
 * `DEAD` is a process killed with kill -9.
 */
export type ProcState = 'NOT_STARTED' | 'INITIAL' | 'FENCED' | 'ACTIVE' | 'PENDING_SHUTDOWN' | 'SHUTDOWN' | 'DEAD';
export const PROC_STATES: readonly ProcState[] = ['NOT_STARTED', 'INITIAL', 'FENCED', 'ACTIVE', 'PENDING_SHUTDOWN', 'SHUTDOWN', 'DEAD'];

/** A process that can still send, receive and fetch. */
export function isRunning(p: Proc): boolean {
  return p.state !== 'NOT_STARTED' && p.state !== 'SHUTDOWN' && p.state !== 'DEAD';
}

export const Proc = Record<{
  state: ProcState;
  /** The broker epoch the controller gave this incarnation; null while INITIAL (KIP-380, KIP-631). */
  epoch: number | null;
  /** `NextMetadataOffset`: the metadata applied so far, exclusive (Jun Rao / Colin McCabe, Oct 13-21 2020). */
  applied: number;
  /** Partitions whose replica data this process holds in full (an unclean kill loses it: KIP-903). */
  data: Set<PartitionId>;
}>({ state: 'NOT_STARTED', epoch: null, applied: 0, data: Set<PartitionId>() });
export type Proc = ReturnType<typeof Proc>;

/** The three registration states of KIP-631 ("unregistered, registered but fenced, and registered and active"). */
export type RegStatus = 'UNREGISTERED' | 'FENCED' | 'ACTIVE';

/**
 * One broker id's registration as the metadata records define it (`ClusterControlManager`'s
 * `BrokerRegistration`). `since` is the offset just after the latest BrokerRecord or FencedBrokerRecord
 * for the id: a broker that has applied that far knows its own registration and fencing.
 */
export const Registration = Record<{ status: RegStatus; epoch: number; incarnation: Incarnation; since: number }>({
  status: 'UNREGISTERED',
  epoch: 0,
  incarnation: 0,
  since: 0,
});
export type Registration = ReturnType<typeof Registration>;

/** A partition's leader and ISR (`PartitionRegistration`); every broker is a replica. */
export const Partition = Record<{ leader: BrokerId | null; isr: Set<BrokerId>; leaderEpoch: number }>({
  leader: null,
  isr: Set<BrokerId>(),
  leaderEpoch: 0,
});
export type Partition = ReturnType<typeof Partition>;

/** The cluster metadata the records describe, at some offset. */
export const Image = Record<{ regs: Map<BrokerId, Registration>; parts: Map<PartitionId, Partition> }>({
  regs: Map<BrokerId, Registration>(),
  parts: Map<PartitionId, Partition>(),
});
export type Image = ReturnType<typeof Image>;

/**
 * The active controller's soft state for one broker id (`BrokerHeartbeatManager`): held only by the
 * active controller and never written to the log ("BrokerRecord does exist in the Raft log, but does not
 * include the last heartbeat time": Colin McCabe, Sep 2020).
 */
export const Lease = Record<{ end: number; lastOffset: number }>({ end: 0, lastOffset: 0 });
export type Lease = ReturnType<typeof Lease>;

/** The metadata records of KIP-631 (`BrokerRecord`, `FencedBrokerRecord`, `UnfenceBroker`) and a partition change. */
export type RecordType = 'BrokerRecord' | 'FencedBrokerRecord' | 'UnfenceBroker' | 'PartitionChange';

/**
 * One record of `@metadata`. Fields a type does not use keep their defaults. `PartitionChange` is the
 * thread's `IsrChange` with the leader folded in (Jose / Colin, Sep 2020).
 */
export const MetaRecord = Record<{
  type: RecordType;
  broker: BrokerId | null;
  epoch: number;
  incarnation: Incarnation;
  partition: PartitionId | null;
  leader: BrokerId | null;
  isr: Set<BrokerId>;
  leaderEpoch: number;
}>({ type: 'BrokerRecord', broker: null, epoch: 0, incarnation: 0, partition: null, leader: null, isr: Set<BrokerId>(), leaderEpoch: 0 });
export type MetaRecord = ReturnType<typeof MetaRecord>;

/** What the controller tells a broker in a heartbeat response. */
export type Target =
  /** Registered (or still) fenced; carries the epoch. */
  | 'FENCED'
  /** Unfenced: the broker may serve. */
  | 'ACTIVE'
  /** Controlled shutdown done: the broker may exit (`targetState = SHUTDOWN`, Colin McCabe, Oct 12 2020). */
  | 'SHUTDOWN'
  /** `STALE_BROKER_EPOCH`: the epoch is not the registered one; the broker must register again. */
  | 'STALE'
  /** `DUPLICATE_BROKER_REGISTRATION`: another incarnation holds the id. */
  | 'DUPLICATE';
export const TARGETS: readonly Target[] = ['FENCED', 'ACTIVE', 'SHUTDOWN', 'STALE', 'DUPLICATE'];

export type MsgType = 'Heartbeat' | 'HeartbeatResponse';

/**
 * A message in flight. `Heartbeat`: broker → active controller, with its epoch (null when INITIAL: a
 * registration), its `NextMetadataOffset`, the time it was sent (`LeaseStartTimeMs`) and whether it asks
 * for a controlled shutdown. `HeartbeatResponse`: controller → broker incarnation, delivered only once
 * the records it depends on are committed (`commitAt`), as `QuorumController` completes a request after
 * its records commit.
 */
export const Msg = Record<{
  type: MsgType;
  broker: BrokerId;
  incarnation: Incarnation;
  epoch: number | null;
  offset: number;
  sentAt: number;
  shutdown: boolean;
  target: Target;
  commitAt: number;
}>({
  type: 'Heartbeat',
  broker: 'b1',
  incarnation: 0,
  epoch: null,
  offset: 0,
  sentAt: 0,
  shutdown: false,
  target: 'FENCED',
  commitAt: 0,
});
export type Msg = ReturnType<typeof Msg>;

/**
 * History variables (TLA+ style): each is set by the step that breaks an action-level rule, so the rule
 * can be checked as a state invariant. They stay false on every behaviour of a correct design.
 */
export const Audit = Record({
  /** A registration displaced another incarnation whose lease was live. */
  displacedLive: false,
  /** A registration was granted while another incarnation's uncommitted registration of the id held a live lease. */
  duplicateViaPending: false,
  /** A heartbeat with an older metadata offset, or an old epoch, changed the registration or the lease. */
  staleHeartbeatApplied: false,
  /** A lease-expiry fence came within `leaseTimeout` of the controller becoming active. */
  fencedInGrace: false,
  /** An UnfenceBroker was appended for a heartbeat that had not applied its own registration or fencing. */
  unfencedBehind: false,
  /** An ISR expansion admitted a replica whose current incarnation does not hold the data. */
  staleIsrExpansion: false,
});
export type Audit = ReturnType<typeof Audit>;

export const LifecycleState = Record({
  /** The discrete monotonic clock of the active controller ("specify a monotonic clock": Colin McCabe, Aug 31 2020). */
  now: 0,
  /** The Raft epoch of the active controller; each failover increments it. */
  controllerEpoch: 1,
  /** When the current active controller took over. */
  activatedAt: 0,
  /** Records appended after the initial image, in order; record `i` is at offset `base + i`. */
  log: List<MetaRecord>(),
  /** High watermark: offsets below it are committed (exclusive, as in the thread). */
  hwm: 0,
  /** The active controller's image: every appended record applied, committed or not (timeline state). */
  ctrl: Image(),
  leases: Map<BrokerId, Lease>(),
  /** Every broker id's incarnation slots. */
  procs: Map<BrokerId, Map<Incarnation, Proc>>(),
  /**
   * The partition leader's view of its followers (`Partition.remoteReplicas`): for each follower that
   * has fetched up to the leader's end, the broker epoch that fetch carried. Reset on a leader change.
   */
  caughtUp: Map<PartitionId, Map<BrokerId, number>>(),
  net: Set<Msg>(),
  audit: Audit(),
});
export type LifecycleState = ReturnType<typeof LifecycleState>;

// ---- design choices and bounds --------------------------------------------------------------------

/** Who keeps a broker id when a second incarnation registers while the first's lease is live. */
export type IdConflict = 'newestWins' | 'currentWins';
/** Where a new broker epoch comes from (the three answers in the thread). */
export type EpochSource = 'counter' | 'committedOffset' | 'appendedOffset';
/** The time a heartbeat's lease is counted from. */
export type LeaseFrom = 'requestStart' | 'arrival';
/** What a newly active controller does with the leases it has no heartbeat history for. */
export type FailoverLeases = 'extend' | 'forget';

export interface LifecycleConfig {
  readonly brokers: readonly BrokerId[];
  readonly partitions: readonly PartitionId[];
  /**
   * Brokers b1..bN that may fail, restart, lag, heartbeat late or be fenced; the others stay up, unfenced
   * and leased, and only serve as partition leaders (a state-space bound: one misbehaving broker at a time).
   */
  readonly faulty: number;
  /** Incarnation slots of the first broker id; the others run one process each (a state-space bound). */
  readonly incarnations: number;
  /** `fresh`: nothing registered or started. `running`: every broker's first incarnation registered, unfenced and caught up. */
  readonly init: 'fresh' | 'running';
  /** `registration.lease.timeout.ms`, in ticks. */
  readonly leaseTimeout: number;
  readonly maxClock: number;
  /** Records that may be appended after the initial image. */
  readonly maxLog: number;
  readonly maxInflight: number;
  readonly maxKills: number;
  /** Controlled shutdowns that may be requested (processes in PENDING_SHUTDOWN or SHUTDOWN). */
  readonly maxShutdowns: number;
  readonly maxFailovers: number;
  readonly idConflict: IdConflict;
  /** Check a new registration against pending (uncommitted) registrations too (Unmesh Joshi, Aug 31 2020). */
  readonly pendingCheck: boolean;
  readonly epochSource: EpochSource;
  readonly leaseFrom: LeaseFrom;
  /** Ignore a heartbeat whose metadata offset is below the last one's (Colin McCabe, Sep 11 2020). */
  readonly staleOffsetCheck: boolean;
  /** Unfence only a broker that has applied its own registration and fencing records. */
  readonly unfenceRequiresCatchUp: boolean;
  readonly failoverLeases: FailoverLeases;
  /** KIP-903: AlterPartition carries the broker epochs of the replicas it adds, and the controller checks them. */
  readonly isrBrokerEpochs: boolean;
}

/** Offset of the first record after the initial image (one BrokerRecord and one UnfenceBroker per running broker). */
export function baseOffset(cfg: LifecycleConfig): number {
  return cfg.init === 'running' ? 2 * cfg.brokers.length : 0;
}

/** The broker epoch of a running broker's first incarnation: the offset of its BrokerRecord in the initial image. */
export function initialEpoch(cfg: LifecycleConfig, b: BrokerId): number {
  return 2 * cfg.brokers.indexOf(b);
}

/** The end of the log, exclusive: the offset the next record gets. */
export function logEnd(cfg: LifecycleConfig, s: LifecycleState): number {
  return baseOffset(cfg) + s.log.size;
}

/** Whether broker `b` takes part in the lifecycle (see `LifecycleConfig.faulty`). */
export function isFaulty(cfg: LifecycleConfig, b: BrokerId): boolean {
  return cfg.brokers.indexOf(b) < cfg.faulty;
}

/** How many processes may run under broker id `b`: the races need a second one only under one id. */
export function slotsOf(cfg: LifecycleConfig, b: BrokerId): number {
  return b === cfg.brokers[0] ? cfg.incarnations : 1;
}

/** How many processes are in a state matching `test`: the fault budgets count what they spent this way. */
export function countProcs(s: LifecycleState, test: (p: Proc) => boolean): number {
  let n = 0;
  for (const slots of s.procs.values()) for (const p of slots.values()) if (test(p)) n++;
  return n;
}

export function proc(s: LifecycleState, b: BrokerId, k: Incarnation): Proc {
  return s.procs.get(b)!.get(k)!;
}
