/**
 * The active controller: registrations and heartbeats (`ClusterControlManager.registerBroker`,
 * `BrokerHeartbeatManager`), lease expiry, commits, failover to another controller
 * (`ClusterControlManager.activate`), and ISR expansion (`ReplicationControlManager.alterPartition`).
 * The controller is single-threaded, so each handler is one atomic step ("Our code is single threaded as
 * well": Colin McCabe, Aug 31 2020).
 */
import {
  append,
  brokerRecord,
  controlledShutdownRecord,
  committedImage,
  fenceChanges,
  fencedBrokerRecord,
  hasRoom,
  leaseLive,
  partitionChange,
  type RecordInput,
  unfenceBroker,
  unfenceChanges,
} from './metadata.ts';
import {
  type BrokerId,
  type LifecycleConfig,
  type LifecycleState,
  type Msg,
  type PartitionId,
  type Target,
  baseOffset,
  isFaulty,
  logEnd,
  mutant,
} from './state.ts';

function respond(s: LifecycleState, to: Msg, target: Target, epoch: number | null, commitAt: number): LifecycleState {
  const reply = { type: 'HeartbeatResponse' as const, broker: to.broker, incarnation: to.incarnation, epoch, offset: 0, sentAt: 0, shutdown: false, target, commitAt };
  return s.set('net', s.net.add(reply));
}

/**
 * The lease a heartbeat grants. `requestStart`: the broker's send time plus the timeout, so network delay
 * counts against the lease (Colin McCabe, Aug 31 2020: "broker A sends a heartbeat at time 100 ... 1100").
 * `arrival`: the controller's own monotonic clock at arrival, the duration design the KIP settled on
 * ("we should use a duration here rather than a time": Colin McCabe, Sep 11 2020; `BrokerHeartbeatManager.touch`).
 */
function leaseEnd(cfg: LifecycleConfig, s: LifecycleState, m: Msg): number {
  return (cfg.leaseFrom === 'arrival' ? s.now : m.sentAt) + cfg.leaseTimeout;
}

/**
 * A new broker epoch. `counter`: the latest epoch the controller knows for the id, plus one ("look at an
 * in-memory hash table and see what the latest number is, and add one": Colin McCabe, Aug 29 2020).
 * `committedOffset`: the last committed offset ("Therefore the last committed offset must be different":
 * Colin McCabe, Sep 24 2020). `appendedOffset`: the log end before the BrokerRecord ("the current latest
 * offset (prior to creating the BrokerRecord)": Colin McCabe, Oct 12 2020; Kafka passes the record's
 * write offset to `registerBroker`).
 */
function newEpoch(cfg: LifecycleConfig, s: LifecycleState, known: number | null): number {
  switch (cfg.epochSource) {
    case 'counter':
      return known === null ? 0 : known + 1;
    case 'committedOffset':
      return s.hwm;
    case 'appendedOffset':
      return logEnd(cfg, s);
  }
}

/**
 * An INITIAL heartbeat asks for a broker epoch (Colin McCabe, Oct 12 2020: "The controller assigns a
 * broker epoch if the heartbeat request was sent without an epoch"). The id is free unless another
 * incarnation holds it with a valid session, unfenced and leased (`ClusterControlManager.registerBroker`
 * asks `BrokerHeartbeatManager.hasValidSession`, false for a fenced broker); the same incarnation may
 * register again and keeps its epoch and its fencing (Kafka's "Amending registration"). Which
 * registrations count is the `pendingCheck` choice: the
 * committed ones only, or the pending ones too (Unmesh Joshi, Aug 31 2020: "1. Pending broker
 * registrations (which are yet to be committed) 2. Already committed broker registrations"). On a
 * conflict, `currentWins` rejects the newcomer (Colin McCabe, Oct 12 2020: "we should favor the current
 * broker registration"; `DuplicateBrokerRegistrationException`); `newestWins` fences the holder (the
 * earlier KIP text, "favoring new processes ... killed with kill -9 and then restarted").
 */
function register(cfg: LifecycleConfig, s: LifecycleState, m: Msg): LifecycleState {
  const b = m.broker;
  const view = cfg.pendingCheck ? s.ctrl : committedImage(cfg, s);
  const seen = view.regs.get(b);
  const registered = seen.status !== 'UNREGISTERED';
  const sameIncarnation = registered && seen.incarnation === m.incarnation;
  const validSession = (seen.status === 'ACTIVE' || mutant(cfg, 'duplicateIgnoresFencing')) && leaseLive(cfg, s, b);
  const duplicate = registered && !sameIncarnation && (validSession || mutant(cfg, 'duplicateIgnoresSession'));
  if (duplicate && cfg.idConflict === 'currentWins') return respond(s, m, 'DUPLICATE', null, 0);

  const previous = s.ctrl.regs.get(b);
  const amend = sameIncarnation && previous.status !== 'UNREGISTERED' && previous.epoch === seen.epoch;
  // A replaced registration is fenced by the new one: its leaderships and ISR places move first.
  const moves = previous.status === 'ACTIVE' && !amend ? fenceChanges(cfg, s.ctrl.setIn(['regs', b, 'status'], 'FENCED'), b) : [];
  if (!hasRoom(cfg, s, 1 + moves.length)) return s;
  const epoch = amend ? previous.epoch : newEpoch(cfg, s, registered ? seen.epoch : null);
  let next = append(cfg, s, [brokerRecord(b, epoch, m.incarnation), ...moves]);
  next = next.setIn(['leases', b], { end: leaseEnd(cfg, s, m), lastOffset: m.offset, shutdownOffset: null });
  return respond(next, m, 'REGISTERED', epoch, logEnd(cfg, next));
}

/**
 * `HandleHeartbeat`: the active controller processes one heartbeat from the network.
 *
 * - No epoch: a registration (`register`).
 * - An epoch other than the registered one: `STALE_BROKER_EPOCH` (`ClusterControlManager.checkBrokerEpoch`).
 * - A metadata offset below the last heartbeat's: ignored when `staleOffsetCheck` is on ("heartbeat
 *   requests should be ignored if the metadata log offset they contain is smaller than a previous
 *   heartbeat": Colin McCabe, Sep 11 2020).
 * - Otherwise the next state follows `BrokerHeartbeatManager.calculateNextBrokerState` from the
 *   controller's soft state (fenced, or in controlled shutdown when it holds a `shutdownOffset`), the
 *   records follow `ReplicationControlManager.processBrokerHeartbeat`, and the lease is renewed
 *   (`touch`). A fenced broker is unfenced once its heartbeat shows it has applied its own
 *   RegisterBrokerRecord, or under `unfenceAfter: ownFencing` its latest fencing too. A shutdown request
 *   (`wantShutDown`) from a fenced broker, or from an unfenced one that leads nothing, is answered
 *   SHUTDOWN_NOW at once (`handleBrokerFenced`); an unfenced leader enters CONTROLLED_SHUTDOWN, unfenced
 *   still, while its leaderships and ISR places move (`handleBrokerInControlledShutdown`), and is
 *   answered SHUTDOWN_NOW on a later heartbeat once it leads nothing and every active broker has applied
 *   those records (`controlledShutdownOffset <= lowestActiveOffset`).
 */
export function handleHeartbeat(cfg: LifecycleConfig, s0: LifecycleState, m: Msg): LifecycleState {
  const s = s0.set('net', s0.net.delete(m));
  if (m.epoch === null) return register(cfg, s, m);
  const b = m.broker;
  const reg = s.ctrl.regs.get(b);
  if (reg.status === 'UNREGISTERED' || (reg.epoch !== m.epoch && !mutant(cfg, 'staleEpochAccepted'))) return respond(s, m, 'STALE', m.epoch, 0);
  const lease = s.leases.get(b);
  const staleOffset = m.offset < lease.lastOffset;
  if (staleOffset && cfg.staleOffsetCheck) return s;

  const touched = { end: leaseEnd(cfg, s, m), lastOffset: m.offset };
  let next = s.setIn(['leases', b], { ...touched, shutdownOffset: lease.shutdownOffset });
  let target: Target = reg.status === 'FENCED' ? 'FENCED' : 'ACTIVE';
  let commitAt = 0;
  if (m.shutdown) {
    const inControlledShutdown = reg.status !== 'FENCED' && lease.shutdownOffset !== null;
    const leads = hasLeaderships(cfg, s.ctrl, b);
    if (reg.status !== 'FENCED' && !inControlledShutdown && leads && !mutant(cfg, 'shutdownWhileLeader')) {
      // UNFENCED -> CONTROLLED_SHUTDOWN: the registration says so (BrokerRegistrationChangeRecord) unless
      // it already does, and the leaderships and ISR places move; the offset of the batch's last record
      // is the controlled shutdown offset (`QuorumController`'s `processBatchEndOffset`).
      const marked = s.ctrl.setIn(['regs', b, 'status'], 'SHUTTING_DOWN');
      const recs = [...(reg.status === 'SHUTTING_DOWN' ? [] : [controlledShutdownRecord(b, reg.epoch)]), ...fenceChanges(cfg, marked, b)];
      if (!hasRoom(cfg, s, recs.length)) return s0;
      next = append(cfg, next, recs);
      return next.setIn(['leases', b, 'shutdownOffset'], logEnd(cfg, next) - 1);
    }
    const offsetPassed = mutant(cfg, 'shutdownBeforeOffset') || lease.shutdownOffset! <= lowestActiveOffset(cfg, s, b);
    if (inControlledShutdown && (leads || !offsetPassed)) return next;
    // SHUTDOWN_NOW: fenced, its leaderships and ISR places moved (`handleBrokerFenced`), then told to stop.
    const recs = [fencedBrokerRecord(b, reg.epoch), ...fenceChanges(cfg, s.ctrl.setIn(['regs', b, 'status'], 'FENCED'), b)];
    if (!hasRoom(cfg, s, recs.length)) return s0;
    next = append(cfg, next, recs).setIn(['leases', b, 'shutdownOffset'], null);
    target = 'SHUTDOWN';
    commitAt = logEnd(cfg, next);
  } else if (reg.status === 'FENCED') {
    // Kafka: `request.currentMetadataOffset() >= registerBrokerRecordOffset`, where currentMetadataOffset
    // is the last offset the broker applied; the heartbeat here carries the next one (exclusive), so the
    // record at `threshold` is applied once `m.offset > threshold`.
    const threshold = cfg.unfenceAfter === 'ownFencing' ? reg.fencedAt : reg.registeredAt;
    const caughtUp = mutant(cfg, 'unfenceOffByOne') ? m.offset >= threshold : m.offset - 1 >= threshold;
    if (caughtUp || mutant(cfg, 'unfenceWithoutCatchUp')) {
      const unfenced = s.ctrl.setIn(['regs', b, 'status'], 'ACTIVE');
      const recs = [unfenceBroker(b, reg.epoch), ...unfenceChanges(cfg, unfenced, b)];
      if (!hasRoom(cfg, s, recs.length)) return s0;
      next = append(cfg, next, recs);
      target = 'ACTIVE';
      commitAt = logEnd(cfg, next);
    }
  }
  // An answer that only confirms an unchanged ACTIVE registration changes nothing at the broker: not sent.
  if (target === 'ACTIVE' && commitAt === 0) return next;
  return respond(next, m, target, reg.epoch, commitAt);
}

/** Whether `b` leads a partition in `image` (`BrokerToElrs`/`BrokersToIsrs.hasLeaderships`). */
export function hasLeaderships(cfg: LifecycleConfig, image: LifecycleState['ctrl'], b: BrokerId): boolean {
  return cfg.partitions.some((p) => image.parts.get(p).leader === b);
}

/**
 * `BrokerHeartbeatManager.lowestActiveOffset`: the lowest metadata offset (Kafka's, the last applied
 * one: the model's exclusive offset minus one) among the active brokers, unfenced and not in controlled
 * shutdown, other than `b`; none active is no bound. A steady broker (one that never misbehaves) is
 * taken to report what its process has applied, as if it heartbeated at every step.
 */
export function lowestActiveOffset(cfg: LifecycleConfig, s: LifecycleState, b: BrokerId): number {
  let lowest = Infinity;
  for (const other of cfg.brokers) {
    if (other === b || s.ctrl.regs.get(other).status !== 'ACTIVE') continue;
    const lease = s.leases.get(other);
    if (lease.shutdownOffset !== null) continue;
    const reported = isFaulty(cfg, other) ? lease.lastOffset : s.procs.get(other).get(0).applied;
    lowest = Math.min(lowest, mutant(cfg, 'shutdownOffsetOffByOne') ? reported : reported - 1);
  }
  return lowest;
}

/**
 * `LeaseExpire`: an unfenced broker whose lease has run out is fenced, and its leaderships and ISR places
 * move ("Once the lease expires, it needs to propose and commit a FenceBroker record": Unmesh Joshi,
 * Aug 29 2020; `QuorumController.maybeFenceOneStaleBroker`).
 */
export function leaseExpire(cfg: LifecycleConfig, s: LifecycleState, b: BrokerId): LifecycleState {
  const reg = s.ctrl.regs.get(b);
  const recs = [fencedBrokerRecord(b, reg.epoch), ...fenceChanges(cfg, s.ctrl.setIn(['regs', b, 'status'], 'FENCED'), b)];
  const next = append(cfg, s, recs).setIn(['leases', b, 'shutdownOffset'], null);
  // A session touched at activation is valid through `activatedAt + leaseTimeout`, that tick included.
  const inGrace = s.now <= s.activatedAt + cfg.leaseTimeout;
  return inGrace ? next.setIn(['audit', 'fencedInGrace'], true) : next;
}

export function canExpire(cfg: LifecycleConfig, s: LifecycleState, b: BrokerId): boolean {
  const status = s.ctrl.regs.get(b).status;
  return (status === 'ACTIVE' || status === 'SHUTTING_DOWN') && !leaseLive(cfg, s, b) && hasRoom(cfg, s, 1 + fenceChanges(cfg, s.ctrl, b).length);
}

/** `CommitMetadata`: the controller quorum commits everything appended (Raft replication, abstracted). */
export function commit(cfg: LifecycleConfig, s: LifecycleState): LifecycleState {
  return s.set('hwm', logEnd(cfg, s));
}

/**
 * `ControllerFailover`: another controller becomes active. It has the committed log only: the uncommitted
 * suffix is lost with the old leader, and so are the requests waiting for it to commit. Leases are soft
 * state it rebuilds: `extend` gives every broker a fresh lease ("the new active controller will extend
 * all the leases by registration.lease.timeout.ms": Unmesh Joshi, agreed by Colin McCabe, Sep 11 2020;
 * `ClusterControlManager.activate` touches every registered broker); `forget` starts with none, as a
 * controller with no heartbeat history would.
 */
export function failover(cfg: LifecycleConfig, s: LifecycleState): LifecycleState {
  const image = committedImage(cfg, s);
  const end = cfg.failoverLeases === 'extend' ? s.now + cfg.leaseTimeout : s.now;
  return s.merge({
    controllerEpoch: s.controllerEpoch + 1,
    activatedAt: s.now,
    log: s.log.setSize(s.hwm - baseOffset(cfg)),
    ctrl: image,
    leases: cfg.brokers.map((b) => {
      const restored = cfg.failoverShutdown === 'restore' && image.regs.get(b).status === 'SHUTTING_DOWN' ? s.hwm - 1 : null;
      return [b, isFaulty(cfg, b) ? { end, lastOffset: 0, shutdownOffset: restored } : { end: 0, lastOffset: 0, shutdownOffset: null }];
    }),
    net: s.net.filter((m) => m.type !== 'HeartbeatResponse' || m.commitAt <= s.hwm),
  });
}

/**
 * `AlterPartition`: the leader of `p` asks to add follower `b`, which it has seen fetch up to its end, to
 * the ISR; the controller handles it in the same step. The controller refuses a fenced or shutting-down
 * replica (KIP-841), and with `isrBrokerEpochs` also one whose broker epoch in the request is not the
 * registered one (KIP-903: a fetch from an earlier incarnation must not bring a restarted broker back).
 */
export function alterPartition(cfg: LifecycleConfig, s: LifecycleState, p: PartitionId, b: BrokerId): LifecycleState {
  const part = s.ctrl.parts.get(p);
  const reg = s.ctrl.regs.get(b);
  const fetchEpoch = s.caughtUp.get(p).get(b);
  if (reg.status !== 'ACTIVE' || (cfg.isrBrokerEpochs && fetchEpoch !== reg.epoch)) return s;
  // The incarnation the registration belongs to (it may have died since: that is an ordinary failure).
  const holder = [...s.procs.get(b).values()].find((q) => q.epoch === reg.epoch);
  const stale = holder === undefined || !holder.data.has(p);
  const next = append(cfg, s, [partitionChange(p, part.leader, part.isr.add(b).toArray(), part.leaderEpoch)]);
  return stale ? next.setIn(['audit', 'staleIsrExpansion'], true) : next;
}
