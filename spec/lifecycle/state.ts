/**
 * The state of KIP-631 broker lifecycle: broker processes (one per broker id and incarnation), the
 * active controller's registry and leases, the `@metadata` log with its high watermark, partition
 * leadership and ISR, and the heartbeat network.
 *
 * Sources: the KIP-631 DISCUSS thread (seed 001), and Kafka's `ClusterControlManager`,
 * `BrokerHeartbeatManager`, `ReplicationControlManager` and `BrokerLifecycleManager`.
 *
 * Every field is a bounded int, an enum, a set of broker ids, or a small map keyed by broker id,
 * partition or incarnation: the state is declared as a packed layout (docs/layouts.md).
 */
import { layout as L, type Packed } from '../layout/index.ts';
import type { LifecycleMutation } from './mutations.ts';

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
export const PROC_STATES = ['NOT_STARTED', 'INITIAL', 'FENCED', 'ACTIVE', 'PENDING_SHUTDOWN', 'SHUTDOWN', 'DEAD'] as const;
export type ProcState = (typeof PROC_STATES)[number];

/**
 * The three registration states of KIP-631 ("unregistered, registered but fenced, and registered and
 * active"), and Kafka's fourth: unfenced but in controlled shutdown (`BrokerRegistration.inControlledShutdown`),
 * no longer a leader or ISR candidate (`ClusterControlManager.isActive` is false).
 */
export const REG_STATUSES = ['UNREGISTERED', 'FENCED', 'ACTIVE', 'SHUTTING_DOWN'] as const;
export type RegStatus = (typeof REG_STATUSES)[number];

/**
 * The metadata records of KIP-631 (`BrokerRecord`, `FencedBrokerRecord`, `UnfenceBroker`), Kafka's
 * `BrokerRegistrationChangeRecord` that marks a controlled shutdown, and a partition change.
 */
export const RECORD_TYPES = ['BrokerRecord', 'FencedBrokerRecord', 'UnfenceBroker', 'ControlledShutdownRecord', 'PartitionChange'] as const;
export type RecordType = (typeof RECORD_TYPES)[number];

/**
 * What the controller tells a broker in a heartbeat response: REGISTERED (the epoch of a registration),
 * FENCED (still, or now, fenced;
 * carries the epoch), ACTIVE (unfenced), SHUTDOWN (controlled shutdown done: `targetState = SHUTDOWN`,
 * Colin McCabe, Oct 12 2020), STALE (`STALE_BROKER_EPOCH`: register again), DUPLICATE
 * (`DUPLICATE_BROKER_REGISTRATION`: another incarnation holds the id).
 */
export const TARGETS = ['REGISTERED', 'FENCED', 'ACTIVE', 'SHUTDOWN', 'STALE', 'DUPLICATE'] as const;
export type Target = (typeof TARGETS)[number];

export const MSG_TYPES = ['Heartbeat', 'HeartbeatResponse'] as const;

/**
 * The packed layout of the state, for the given ids and bounds. Offsets and epochs are absolute metadata
 * offsets, bounded by the initial image plus `maxLog` records.
 */
export function lifecycleLayout(b: LifecycleBounds) {
  const maxOffset = baseOffsetOf(b) + b.maxLog;
  const Broker = L.ids('broker', b.brokers);
  // A domain needs a value: with no partitions, one that no map or set ever holds.
  const Part = L.ids('partition', b.partitions.length > 0 ? b.partitions : ['p0']);
  const Inc = L.ids('incarnation', Array.from({ length: b.incarnations }, (_, k) => k));
  const Offset = L.int(0, maxOffset);

  const Proc = L.record('Proc', {
    state: L.enumOf(PROC_STATES),
    /** The broker epoch the controller gave this incarnation; null while INITIAL (KIP-380, KIP-631). */
    epoch: L.option(Offset),
    /** `NextMetadataOffset`: the metadata applied so far, exclusive (Jun Rao / Colin McCabe, Oct 13-21 2020). */
    applied: Offset,
    /** Partitions whose replica data this process holds in full (an unclean kill loses it: KIP-903). */
    data: L.idSet(Part),
  });

  /**
   * One broker id's registration as the metadata records define it (`ClusterControlManager`'s
   * `BrokerRegistration`). `registeredAt` is the offset of the id's latest BrokerRecord
   * (`ClusterControlManager.registerBrokerRecordOffset`, kept by `replay(RegisterBrokerRecord, offset)`);
   * `fencedAt` the offset of its latest BrokerRecord or FencedBrokerRecord, which the stricter unfence
   * rule compares with.
   */
  const Registration = L.record('Registration', { status: L.enumOf(REG_STATUSES), epoch: Offset, incarnation: Inc, registeredAt: Offset, fencedAt: Offset });

  /** A partition's leader and ISR (`PartitionRegistration`); every broker is a replica. */
  const Partition = L.record('Partition', { leader: L.option(Broker), isr: L.idSet(Broker), leaderEpoch: L.int(0, b.maxLog) });

  /** The cluster metadata the records describe, at some offset. */
  const Image = L.record('Image', { regs: L.map(Broker, Registration), parts: L.map(Part, Partition) });

  /**
   * The active controller's soft state for one broker id (`BrokerHeartbeatManager`): held only by the
   * active controller and never written to the log ("BrokerRecord does exist in the Raft log, but does
   * not include the last heartbeat time": Colin McCabe, Sep 2020).
   */
  const Lease = L.record('Lease', {
    end: L.int(0, b.maxClock + b.leaseTimeout),
    /** The metadata offset of the latest heartbeat (`BrokerHeartbeatState.metadataOffset`, exclusive here). */
    lastOffset: Offset,
    /** `controlledShutdownOffset`: set while the broker is in controlled shutdown, Kafka's inclusive offset of the last record that began it. */
    shutdownOffset: L.option(Offset),
  });

  /**
   * One record of `@metadata`; fields a type does not use keep their defaults. `PartitionChange` is the
   * thread's `IsrChange` with the leader folded in (Jose / Colin, Sep 2020).
   */
  const MetaRecord = L.record('MetaRecord', {
    type: L.enumOf(RECORD_TYPES),
    broker: L.option(Broker),
    epoch: Offset,
    incarnation: Inc,
    partition: L.option(Part),
    leader: L.option(Broker),
    isr: L.idSet(Broker),
    leaderEpoch: L.int(0, b.maxLog),
  });

  /**
   * A message in flight. `Heartbeat`: broker → active controller, with its epoch (null when INITIAL: a
   * registration), its `NextMetadataOffset`, the time it was sent (`LeaseStartTimeMs`) and whether it
   * asks for a controlled shutdown. `HeartbeatResponse`: controller → broker incarnation, delivered only
   * once the records it depends on are committed (`commitAt`), as `QuorumController` completes a request
   * after its records commit.
   */
  const Msg = L.record('Msg', {
    type: L.enumOf(MSG_TYPES),
    broker: Broker,
    incarnation: Inc,
    epoch: L.option(Offset),
    offset: Offset,
    sentAt: L.int(0, b.maxClock),
    shutdown: L.bool(),
    target: L.enumOf(TARGETS),
    commitAt: Offset,
  });

  /**
   * History variables (TLA+ style): each is set by the step that breaks an action-level rule, so the
   * rule can be checked as a state invariant. They stay false on every behaviour of a correct design.
   */
  const Audit = L.record('Audit', {
    /** A registration displaced another incarnation that held the id unfenced with a live lease. */
    displacedLive: L.bool(),
    /** ... and only the uncommitted records showed that holder. */
    duplicateViaPending: L.bool(),
    /** A heartbeat with an epoch other than the registered one, or an older metadata offset, changed the log, the registration or a lease. */
    staleHeartbeatApplied: L.bool(),
    /** A lease-expiry fence came within `leaseTimeout` of the controller becoming active. */
    fencedInGrace: L.bool(),
    /** An ISR expansion admitted a replica whose current incarnation does not hold the data. */
    staleIsrExpansion: L.bool(),
  });

  const State = L.record('LifecycleState', {
    /** The discrete monotonic clock of the active controller ("specify a monotonic clock": Colin McCabe, Aug 31 2020). */
    now: L.int(0, b.maxClock),
    /** The Raft epoch of the active controller; each failover increments it. */
    controllerEpoch: L.int(1, 1 + b.maxFailovers),
    /** When the current active controller took over. */
    activatedAt: L.int(0, b.maxClock),
    /** Records appended after the initial image, in order; record `i` is at offset `base + i`. */
    log: L.list(MetaRecord, b.maxLog),
    /** High watermark: offsets below it are committed (exclusive, as in the thread). */
    hwm: Offset,
    /** The active controller's image: every appended record applied, committed or not (timeline state). */
    ctrl: Image,
    leases: L.map(Broker, Lease),
    /** Every broker id's incarnation slots (steady brokers use only the first). */
    procs: L.map(Broker, L.map(Inc, Proc)),
    /**
     * The partition leader's view of its followers (`Partition.remoteReplicas`): for each follower that
     * has fetched up to the leader's end, the broker epoch that fetch carried. Reset on a leader change.
     */
    caughtUp: L.map(Part, L.partialMap(Broker, Offset)),
    net: L.set(Msg, b.maxInflight),
    audit: Audit,
  });
  return { Broker, Part, Proc, Registration, Partition, Image, Lease, MetaRecord, Msg, Audit, State };
}

export type LifecycleLayout = ReturnType<typeof lifecycleLayout>;
export type LifecycleState = Packed<LifecycleLayout['State']>;
export type Proc = Packed<LifecycleLayout['Proc']>;
export type Registration = Packed<LifecycleLayout['Registration']>;
export type Image = Packed<LifecycleLayout['Image']>;
export type MetaRecord = Packed<LifecycleLayout['MetaRecord']>;
export type Msg = Packed<LifecycleLayout['Msg']>;

/** A process that can still send, receive and fetch. */
export function isRunning(p: Proc): boolean {
  return p.state !== 'NOT_STARTED' && p.state !== 'SHUTDOWN' && p.state !== 'DEAD';
}

// ---- design choices and bounds --------------------------------------------------------------------

/** Who keeps a broker id when a second incarnation registers while the first's lease is live. */
export type IdConflict = 'newestWins' | 'currentWins';
/** Where a new broker epoch comes from (the three answers in the thread). */
export type EpochSource = 'counter' | 'committedOffset' | 'appendedOffset';
/** The time a heartbeat's lease is counted from. */
export type LeaseFrom = 'requestStart' | 'arrival';
/**
 * The record a fenced broker's heartbeat must have applied before the controller unfences it.
 * `registerRecord`: its own RegisterBrokerRecord, as Kafka does (`BrokerHeartbeatManager.calculateNextBrokerState`
 * compares `currentMetadataOffset` with `registerBrokerRecordOffset`). `ownFencing`: its latest
 * BrokerRecord or FencedBrokerRecord, a stricter design under which a GC-paused zombie (CE8) stays fenced.
 */
export type UnfenceAfter = 'registerRecord' | 'ownFencing';
/** What a newly active controller does with the leases it has no heartbeat history for. */
export type FailoverLeases = 'extend' | 'forget';
/**
 * What a newly active controller knows of a controlled shutdown in progress. `forget`: nothing, as in
 * Kafka (`ClusterControlManager.activate` registers every broker with no `controlledShutdownOffset`,
 * and `calculateNextBrokerState` reads only that soft state, not the registration's
 * `inControlledShutdown`). `restore`: a registration in controlled shutdown gets the last committed offset
 * as its controlled shutdown offset, a design variant.
 */
export type FailoverShutdown = 'forget' | 'restore';

/** The ids and bounds the layout depends on. */
export interface LifecycleBounds {
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
  /** Which of its own records a fenced broker must have applied before it is unfenced (see `UnfenceAfter`). */
  readonly unfenceAfter: UnfenceAfter;
  readonly failoverLeases: FailoverLeases;
  readonly failoverShutdown: FailoverShutdown;
  /** KIP-903: AlterPartition carries the broker epochs of the replicas it adds, and the controller checks them. */
  readonly isrBrokerEpochs: boolean;
}

export interface LifecycleConfig extends LifecycleBounds {
  readonly layout: LifecycleLayout;
  /** Guard mutations under test (`mutations.ts`); never set from parameters. */
  readonly mutations?: readonly LifecycleMutation[];
}

/** Whether guard mutation `m` is under test. */
export function mutant(cfg: LifecycleConfig, m: LifecycleMutation): boolean {
  return cfg.mutations?.includes(m) ?? false;
}

/** Offset of the first record after the initial image (one BrokerRecord and one UnfenceBroker per running broker). */
export function baseOffset(cfg: LifecycleConfig): number {
  return baseOffsetOf(cfg);
}

function baseOffsetOf(b: LifecycleBounds): number {
  return b.init === 'running' ? 2 * b.brokers.length : 0;
}

/** The broker epoch of a running broker's first incarnation: the offset of its BrokerRecord in the initial image. */
export function initialEpoch(cfg: LifecycleBounds, b: BrokerId): number {
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
  return s.procs.get(b).get(k);
}
