/**
 * Properties of the broker lifecycle (research note §3.1). State invariants read the processes, the log's
 * records and the committed image, never a value a guard computed; the rules about single steps (a stale
 * heartbeat changes nothing, no fence in the failover grace period, ...) read the history variables in
 * `audit` (TLA+'s `[][A => P]_vars` as a state invariant), which `heartbeatAudit.ts` sets around the
 * heartbeat handler from the states before and after, not from the handler's own comparisons.
 */
import { always, sometimes, type Property } from '../../invariants/property.ts';
import { committedImage, initialImage } from './metadata.ts';
import { type BrokerId, type LifecycleConfig, type LifecycleState, type MetaRecord, baseOffset, isRunning, logEnd } from './state.ts';

/** Every BrokerRecord of `b`, the initial registration first, as `[epoch, incarnation]`. */
function registrationsOf(cfg: LifecycleConfig, s: LifecycleState, b: BrokerId): [number, number][] {
  const init = initialImage(cfg).regs.get(b);
  const out: [number, number][] = init.status === 'UNREGISTERED' ? [] : [[init.epoch, init.incarnation]];
  s.log.forEach((r: MetaRecord) => {
    if (r.type === 'BrokerRecord' && r.broker === b) out.push([r.epoch, r.incarnation]);
  });
  return out;
}

/**
 * At most one running incarnation of a broker id holds the epoch the controller has registered for it:
 * two processes that both pass the epoch check would both be the broker.
 */
export function singleLiveIncarnation(cfg: LifecycleConfig, s: LifecycleState): boolean {
  return cfg.brokers.every((b) => {
    const reg = s.ctrl.regs.get(b);
    if (reg.status === 'UNREGISTERED') return true;
    let holders = 0;
    for (const q of s.procs.get(b).values()) if (isRunning(q) && q.epoch === reg.epoch) holders++;
    return holders <= 1;
  });
}

/**
 * Broker epochs strictly increase per id, in log order (KIP-380's broker epoch, as KIP-631 assigns it),
 * except that the same incarnation registering again keeps its epoch (`ClusterControlManager.registerBroker`).
 */
export function brokerEpochMonotonic(cfg: LifecycleConfig, s: LifecycleState): boolean {
  return cfg.brokers.every((b) =>
    registrationsOf(cfg, s, b).every(([e, k], i, all) => i === 0 || all[i - 1]![0] < e || (all[i - 1]![0] === e && all[i - 1]![1] === k)),
  );
}

/** No two incarnations of a broker id were ever given the same epoch. */
export function epochUniquePerIncarnation(cfg: LifecycleConfig, s: LifecycleState): boolean {
  return cfg.brokers.every((b) => {
    const regs = registrationsOf(cfg, s, b);
    return regs.every(([e, k], i) => regs.every(([e2, k2], j) => j <= i || k === k2 || e !== e2));
  });
}

/**
 * A fenced or unregistered broker leads no partition and is in no ISR, once the records are committed
 * and applied, except as the last ISR member, which Kafka keeps rather than elect uncleanly
 * (`PartitionChangeBuilder`; Ron Dagostino, Oct 22 2020: "is a fenced broker considered Offline for
 * partition metadata purposes? I think so").
 */
export function fencedNotLeaderNotInIsr(cfg: LifecycleConfig, s: LifecycleState): boolean {
  const image = committedImage(cfg, s);
  for (const p of cfg.partitions) {
    const part = image.parts.get(p);
    for (const [b, reg] of image.regs) {
      if (reg.status === 'ACTIVE') continue;
      if (part.leader === b) return false;
      if (part.isr.has(b) && part.isr.size > 1) return false;
    }
  }
  return true;
}

/**
 * The records of broker `b` in log order with their offsets: the initial image's registration and
 * unfencing first, then the appended ones. Read from the records themselves, not from the images the
 * controller keeps, so that a fault in how those images are kept cannot hide from the properties below.
 */
function recordsOf(cfg: LifecycleConfig, s: LifecycleState, b: BrokerId): { type: MetaRecord['type']; epoch: number; offset: number }[] {
  const out: { type: MetaRecord['type']; epoch: number; offset: number }[] = [];
  const init = initialImage(cfg).regs.get(b);
  if (init.status !== 'UNREGISTERED') {
    out.push({ type: 'BrokerRecord', epoch: init.epoch, offset: init.epoch });
    if (init.status === 'ACTIVE') out.push({ type: 'UnfenceBroker', epoch: init.epoch, offset: init.epoch + 1 });
  }
  const base = baseOffset(cfg);
  s.log.forEach((r: MetaRecord, i: number) => {
    if (r.broker === b && r.type !== 'PartitionChange') out.push({ type: r.type, epoch: r.epoch, offset: base + i });
  });
  return out;
}

/**
 * A broker whose latest UnfenceBroker stands (no registration or fencing after it) was unfenced for a
 * heartbeat of a process that had applied the record `must` picks among its records before the
 * unfencing: every process holding that epoch has applied past it (`applied` only grows, so it shows
 * what the heartbeat could have carried).
 */
function unfencedAfter(cfg: LifecycleConfig, s: LifecycleState, must: (type: MetaRecord['type']) => boolean): boolean {
  return cfg.brokers.every((b) => {
    const recs = recordsOf(cfg, s, b);
    const lastIndex = (test: (type: MetaRecord['type']) => boolean) => recs.reduce((at, r, i) => (test(r.type) ? i : at), -1);
    const last = lastIndex((t) => t === 'BrokerRecord' || t === 'FencedBrokerRecord');
    const unfence = lastIndex((t) => t === 'UnfenceBroker');
    if (unfence < last || unfence < 0) return true;
    const before = recs.slice(0, unfence).filter((r) => must(r.type)).at(-1);
    if (before === undefined) return true;
    const epoch = recs[unfence]!.epoch;
    for (const q of s.procs.get(b).values()) if (q.state !== 'NOT_STARTED' && q.epoch === epoch && q.applied <= before.offset) return false;
    return true;
  });
}

/** Kafka's unfencing rule, checked from the log: an unfenced broker had applied its own BrokerRecord. */
export function unfencedAfterRegistration(cfg: LifecycleConfig, s: LifecycleState): boolean {
  return unfencedAfter(cfg, s, (t) => t === 'BrokerRecord');
}

/** The stricter rule: an unfenced broker had applied its own latest registration or fencing (CE8). */
export function unfencedAfterOwnFencing(cfg: LifecycleConfig, s: LifecycleState): boolean {
  return unfencedAfter(cfg, s, (t) => t === 'BrokerRecord' || t === 'FencedBrokerRecord');
}

/** Every partition's committed leader is a member of its committed ISR (`PartitionChangeBuilder` never elects outside it here). */
export function committedLeaderInIsr(cfg: LifecycleConfig, s: LifecycleState): boolean {
  const image = committedImage(cfg, s);
  return cfg.partitions.every((p) => {
    const part = image.parts.get(p);
    return part.leader === null || part.isr.has(part.leader);
  });
}

/**
 * A process that has shut down cleanly left a fenced registration behind in the committed image (or
 * one that a later registration of the id replaced): the controller answers SHUTDOWN_NOW only with the
 * fencing records, and the answer waits for them to commit.
 */
export function shutdownIsFenced(cfg: LifecycleConfig, s: LifecycleState): boolean {
  const image = committedImage(cfg, s);
  return cfg.brokers.every((b) => {
    const reg = image.regs.get(b);
    for (const q of s.procs.get(b).values()) if (q.state === 'SHUTDOWN' && reg.epoch === q.epoch && reg.status !== 'FENCED') return false;
    return true;
  });
}

/**
 * A shutdown hands its leaderships over: once a process of `b` has shut down (and `b` has not registered
 * again), every partition whose latest leader change in the log took the leadership from `b` to another
 * broker `L` while `b` was last unfenced (after its latest UnfenceBroker, up to the fencing that answered
 * SHUTDOWN_NOW) has a process of `L` that has applied that change. Read from the log and the processes'
 * applied offsets; it is what CONTROLLED_SHUTDOWN and its offset gate are for. A broker that was fenced
 * before the fencing that answered its shutdown (a lease that lapsed, even in controlled shutdown) has
 * failed rather than handed over: Kafka then shuts it down at once ("If a broker is fenced, it leaves
 * controlled shutdown", `BrokerHeartbeatManager.touch`).
 */
export function cleanShutdownHandsOver(cfg: LifecycleConfig, s: LifecycleState): boolean {
  return cfg.brokers.every((b) => {
    const down = [...s.procs.get(b).values()].find((q) => q.state === 'SHUTDOWN');
    if (down === undefined || registrationsOf(cfg, s, b).at(-1)?.[0] !== down.epoch) return true;
    const own = recordsOf(cfg, s, b).filter((r) => r.type !== 'BrokerRecord' || r.epoch === down.epoch);
    const final = own.at(-1);
    const before = own.at(-2);
    if (final?.type !== 'FencedBrokerRecord' || before === undefined || before.type === 'FencedBrokerRecord' || before.type === 'BrokerRecord') return true;
    const unfencedFrom = own.reduce((at, r) => (r.type === 'UnfenceBroker' ? r.offset : at), -1);
    return cfg.partitions.every((p) => {
      const handover = latestLeaderChange(cfg, s, p);
      if (handover === undefined || handover.from !== b || handover.to === null || handover.offset < unfencedFrom) return true;
      return [...s.procs.get(handover.to).values()].some((q) => q.applied > handover.offset);
    });
  });
}

/** The latest record of the log that changed `p`'s leader, with the leader before and after it. */
function latestLeaderChange(cfg: LifecycleConfig, s: LifecycleState, p: string): { from: BrokerId | null; to: BrokerId | null; offset: number } | undefined {
  const base = baseOffset(cfg);
  let leader = initialImage(cfg).parts.get(p).leader;
  let change: { from: BrokerId | null; to: BrokerId | null; offset: number } | undefined;
  s.log.forEach((r: MetaRecord, i: number) => {
    if (r.type !== 'PartitionChange' || r.partition !== p || r.leader === leader) return;
    change = { from: leader, to: r.leader, offset: base + i };
    leader = r.leader;
  });
  return change;
}

/** `NextMetadataOffset <= HWM <= log end`: brokers apply only committed metadata. */
export function offsetsOrdered(cfg: LifecycleConfig, s: LifecycleState): boolean {
  for (const slots of s.procs.values()) for (const q of slots.values()) if (isRunning(q) && q.applied > s.hwm) return false;
  return s.hwm <= logEnd(cfg, s);
}

/** Which witnesses the bounds make reachable (a `sometimes` that cannot happen would fail the check). */
export interface WitnessScope {
  readonly registrations: boolean;
  readonly expiries: boolean;
  readonly shutdowns: boolean;
  readonly failovers: boolean;
  /** A broker that may fail or shut down leads a partition at the start. */
  readonly leaderFaults: boolean;
}

export function lifecycleProperties(cfg: LifecycleConfig, scope: WitnessScope): Property<LifecycleState>[] {
  const hasRecord = (s: LifecycleState, type: MetaRecord['type']) => s.log.some((r) => r.type === type);
  const props: Property<LifecycleState>[] = [
    always('SingleLiveIncarnation', 'at most one running incarnation per broker id holds its registered epoch', (s) => singleLiveIncarnation(cfg, s)),
    always('BrokerEpochMonotonic', 'the epochs registered for a broker id strictly increase', (s) => brokerEpochMonotonic(cfg, s)),
    always('EpochUniquePerIncarnation', 'no two incarnations of a broker id get the same epoch', (s) => epochUniquePerIncarnation(cfg, s)),
    always(
      'NoDuplicateIdViaPending',
      "no registration is granted while another incarnation holds the id unfenced and leased in records not yet committed",
      (s) => !s.audit.duplicateViaPending,
    ),
    always(
      'CurrentRegistrationWins',
      'a registration never displaces another incarnation that holds the id unfenced with a live lease (hasValidSession)',
      (s) => !s.audit.displacedLive,
    ),
    always(
      'StaleHeartbeatInert',
      'a heartbeat with a stale broker epoch (judged from the log), or older by metadata offset than the last one, changes neither the log, the leases nor the registrations',
      (s) => !s.audit.staleHeartbeatApplied,
    ),
    always(
      'FailoverGrace',
      'the active controller fences no broker for lease expiry within one lease timeout of taking over',
      (s) => !s.audit.fencedInGrace,
    ),
    always(
      'UnfenceRequiresRegistration',
      'an unfenced broker had applied its own BrokerRecord (read from the log and the process, not the guard)',
      (s) => unfencedAfterRegistration(cfg, s),
    ),
    always(
      'UnfenceRequiresCatchUp',
      'an unfenced broker had applied its own latest registration or fencing record (read from the log and the process)',
      (s) => unfencedAfterOwnFencing(cfg, s),
    ),
    always('FencedNotLeaderNotInIsr', 'a fenced broker leads nothing and is in no ISR (but as the last member)', (s) => fencedNotLeaderNotInIsr(cfg, s)),
    always(
      'NoStaleIsrExpansion',
      'an ISR expansion admits only a replica whose current incarnation holds the data (KIP-903)',
      (s) => !s.audit.staleIsrExpansion,
    ),
    always('CommittedLeaderInIsr', "every partition's committed leader is in its committed ISR", (s) => committedLeaderInIsr(cfg, s)),
    always('IsrNeverEmpty', "no committed ISR is empty: the last member stays (PartitionChangeBuilder without KIP-966's ELR, which this model leaves out)", (s) =>
      cfg.partitions.every((p) => committedImage(cfg, s).parts.get(p).isr.size > 0),
    ),
    always('ShutdownIsFenced', 'a process that shut down cleanly has a fenced registration in the committed image', (s) => shutdownIsFenced(cfg, s)),
    always(
      'CleanShutdownHandsOver',
      'after a clean shutdown, the broker that took each of its leaderships has applied that change (read from the log)',
      (s) => cleanShutdownHandsOver(cfg, s),
    ),
    always('OffsetsOrdered', 'applied metadata <= high watermark <= log end', (s) => offsetsOrdered(cfg, s)),
  ];
  if (scope.registrations) props.push(sometimes('BrokerRegistered', 'a broker registers', (s) => hasRecord(s, 'BrokerRecord')));
  if (scope.expiries) {
    props.push(
      sometimes('BrokerFencedByLeaseExpiry', 'a running broker is fenced by lease expiry', (s) =>
        s.log.some((r) => r.type === 'FencedBrokerRecord' && [...s.procs.get(r.broker!).values()].every((q) => q.state !== 'PENDING_SHUTDOWN' && q.state !== 'SHUTDOWN')),
      ),
    );
  }
  if (scope.registrations || scope.expiries) props.push(sometimes('BrokerUnfenced', 'a fenced broker is unfenced', (s) => hasRecord(s, 'UnfenceBroker')));
  if (scope.shutdowns) props.push(sometimes('CleanShutdown', 'a broker completes a controlled shutdown', (s) => [...s.procs.values()].some((m) => [...m.values()].some((q) => q.state === 'SHUTDOWN'))));
  if (scope.leaderFaults) {
    props.push(
      sometimes('LeadershipMoved', "a partition's leadership moves from one broker to another", (s) =>
        s.log.some((r) => r.type === 'PartitionChange' && r.leader !== null && r.leader !== initialImage(cfg).parts.get(r.partition!).leader),
      ),
    );
  }
  if (scope.failovers) props.push(sometimes('ControllerFailedOver', 'another controller becomes active', (s) => s.controllerEpoch > 1));
  return props;
}
