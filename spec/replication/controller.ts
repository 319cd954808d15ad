/**
 * The KRaft controller's handling of the topic partitions: `PartitionChangeBuilder.build()` (ISR, ELR and
 * clean election in one change), fencing and registration (`ReplicationControlManager`), and the unclean
 * paths (legacy unclean election, KIP-966 unclean recovery with and without the Unclean Recovery Manager).
 *
 * What happens to a broker (fenced, unfenced, in controlled shutdown, registered after an unclean
 * shutdown) is one change of every partition it hosts, in one step: `ReplicationControlManager` runs a
 * `PartitionChangeBuilder` over each partition with a replica on the broker (`brokersToIsrs`) and commits
 * the records together. Every broker hosts every partition here.
 */
import { bit, countOf, idsOf, inMask, maskOf, maskOfIds } from './ids.ts';
import { readCode } from '../layout/bytes.ts';
import { commonPrefix, lastEpoch } from './log.ts';
import { brokerMask, setBrokerMask } from './clusterFields.ts';
import { placesOf } from './places.ts';
import { type BrokerSet, type Config, NO_LEADER, type Partition, type ReplicationState } from './state.ts';
import { ONLY, type TopicPartition } from './topicPartition.ts';
import { inCopy, putBounded, putByte, writesInPlace } from './writes.ts';

/** Every replica ranks the same: the clean election goes by assignment order alone. */
const sameRank = (): number => 0;

/** A `PartitionRegistration` with its sets as masks of broker ids: what a change computes on. */
export interface Registration {
  readonly leader: number;
  readonly leaderEpoch: number;
  readonly partitionEpoch: number;
  readonly isr: number;
  readonly elr: number;
  readonly lastKnownElr: number;
  readonly recovering: boolean;
}

export interface Change<R = Partition> {
  /** The partition after the change (`p` itself when nothing changed). */
  readonly partition: R;
  readonly changed: boolean;
  /** The clean election chose a replica outside the ISR and ELR it elected from (never, by construction). */
  readonly electedOutside: boolean;
  /** The change elected the last known leader (an unclean election, as Kafka logs it). */
  readonly lastKnownLeaderElected: boolean;
  /** That election ran where the unclean recovery strategy's definition allows an unclean election. */
  readonly uncleanAllowed: boolean;
}

/**
 * Whether the controller keeps the last known leader in `lastKnownElr` and elects it inside the normal
 * election: Kafka's `useLastKnownLeaderInBalancedRecovery`, on whenever the ELR is (the builder's
 * default), off only in the KIP's design with the Unclean Recovery Manager, which keeps the real last
 * known ELR instead.
 */
export const storesLastKnownLeader = (cfg: Config): boolean => cfg.elr && !cfg.recoveryManager;

/**
 * `PartitionChangeBuilder.build()` with `Election.ONLINE`, for a new target ISR (all sets as id masks).
 * `uncleanShutdown` is a broker the controller has just found restarted uncleanly
 * (`setUncleanShutdownReplicas`); `replicas` is the partition's assignment order.
 */
export function changePartition(
  cfg: Config,
  p: Partition,
  fenced: number,
  targetIsr: number,
  uncleanShutdown = NO_LEADER,
  logRank: (r: number) => number = sameRank,
  replicas: readonly number[] = cfg.replicas,
): Change {
  const c = changeRegistration(cfg, registrationOf(p), fenced, targetIsr, uncleanShutdown, logRank, replicas);
  return { ...c, partition: c.changed ? cfg.layout.Partition.from(registrationInput(c.partition)) : p };
}

/** The registration of a partition record, sets as masks. */
export function registrationOf(p: Partition): Registration {
  return {
    leader: p.leader,
    leaderEpoch: p.leaderEpoch,
    partitionEpoch: p.partitionEpoch,
    isr: maskOf(p.isr),
    elr: maskOf(p.elr),
    lastKnownElr: maskOf(p.lastKnownElr),
    recovering: p.recovering,
  };
}

/** A registration as the layout's input for a partition record. */
export function registrationInput(r: Registration) {
  return { ...r, isr: idsOf(r.isr), elr: idsOf(r.elr), lastKnownElr: idsOf(r.lastKnownElr) };
}

/** `changePartition` on a registration whose sets are masks. */
export function changeRegistration(
  cfg: Config,
  p: Registration,
  fenced: number,
  targetIsr: number,
  uncleanShutdown = NO_LEADER,
  logRank: (r: number) => number = sameRank,
  replicas: readonly number[] = cfg.replicas,
): Change<Registration> {
  const oldIsr = p.isr;
  const oldElr = p.elr;
  const oldLke = p.lastKnownElr;
  const unclean = uncleanShutdown === NO_LEADER ? 0 : bit(uncleanShutdown);
  const lkl = storesLastKnownLeader(cfg);
  let isr = targetIsr;
  let elr = cfg.elr ? oldElr : 0;
  let lke = cfg.elr ? oldLke : 0;
  if (cfg.elr) {
    // maybePopulateTargetElr: at or above min ISR the ELR and LastKnownELR are cleared; below it, replicas
    // leaving the ISR join the ELR, except one that shut down uncleanly, which joins the LastKnownELR.
    if (countOf(isr) >= cfg.minIsr && cfg.mutation !== 'elrNotClearedAtMinIsr') {
      elr = 0;
      lke = 0;
    } else {
      const candidates = elr | oldIsr;
      elr = candidates & ~isr & (cfg.mutation === 'elrKeepsUncleanReplica' ? ~0 : ~unclean);
      lke = (candidates | lke) & ~isr & ~elr;
    }
  }
  // electAnyLeader: keep a valid leader, else the first valid replica in assignment order. A replica in the
  // ELR is valid only while the ISR is empty (isValidNewLeader); an acceptable leader is unfenced and not
  // the broker being handled as an unclean shutdown.
  const acceptable = (cfg.mutation === 'electFencedReplica' ? ~0 : ~fenced) & ~unclean;
  const electable = (isr !== 0 ? (cfg.mutation === 'elrValidWithIsr' ? isr | elr : isr) : elr) & acceptable;
  let leader = p.leader !== NO_LEADER && inMask(electable, p.leader) ? p.leader : firstValid(cfg, replicas, electable, logRank);
  // canElectLastKnownLeader: with the ISR and ELR both empty, the single last known leader is elected, if it
  // is acceptable (KAFKA-19522, Kafka 4.1: before it the acceptability check only logged). The KIP's
  // strategy None never elects uncleanly.
  let lastKnownLeaderElected = false;
  let uncleanAllowed = true;
  const emptyIsrAndElr = (isr === 0 && elr === 0) || cfg.mutation === 'lastKnownLeaderWithElr';
  const lklAcceptable = (oldLke & acceptable) !== 0 || (cfg.mutation === 'lastKnownLeaderFenced' && (oldLke & ~unclean) !== 0);
  if (leader === NO_LEADER && lkl && cfg.strategy !== 'None' && emptyIsrAndElr && countOf(oldLke) === 1 && lklAcceptable) {
    leader = cfg.replicas.find((r) => inMask(oldLke, r))!;
    lastKnownLeaderElected = true;
    uncleanAllowed = uncleanAllowedFor(cfg, isr, elr, fenced);
  }
  const electedOutside = leader !== NO_LEADER && leader !== p.leader && !lastKnownLeaderElected && !inMask(isr | elr, leader);
  let recovering = p.recovering;
  if (leader !== p.leader && leader !== NO_LEADER && inMask(elr, leader)) {
    // tryElection: a leader from the ELR becomes the whole ISR.
    isr = bit(leader);
    elr &= ~bit(leader);
  } else if (lastKnownLeaderElected) {
    // tryElection, unclean: the ISR is forced to the new leader, the partition is marked RECOVERING, and
    // maybeUpdateRecordElr clears the ELR.
    isr = bit(leader);
    elr = 0;
    recovering = true;
  }
  // Before KIP-966 the ISR never becomes empty: the last member stays, leaderless ("last replica standing").
  if (!cfg.elr && isr === 0) isr = oldIsr;
  if (lkl) {
    // maybeUpdateLastKnownLeader: the leader is remembered the first time the ISR empties, kept while the
    // partition stays leaderless, and forgotten once it has a leader again.
    if (isr === 0 && oldIsr !== 0 && p.leader !== NO_LEADER && oldLke !== bit(p.leader)) lke = bit(p.leader);
    else if (leader !== NO_LEADER) lke = 0;
    else lke = oldLke;
  }
  if (leader === p.leader && isr === oldIsr && elr === oldElr && lke === oldLke && recovering === p.recovering) {
    return { partition: p, changed: false, electedOutside, lastKnownLeaderElected, uncleanAllowed };
  }
  // PartitionRegistration.merge: a leader change bumps the leader epoch; every change bumps the partition epoch.
  const partition: Registration = {
    leader,
    leaderEpoch: leader !== p.leader ? p.leaderEpoch + 1 : p.leaderEpoch,
    partitionEpoch: p.partitionEpoch + 1,
    isr,
    elr,
    lastKnownElr: lke,
    recovering,
  };
  return { partition, changed: true, electedOutside, lastKnownLeaderElected, uncleanAllowed };
}

/**
 * The replica a clean election picks among `electable`: the first in assignment order (Kafka), or under
 * KIP-250's proposal the one with the longest log (the controller asks each, atomically here), ties going
 * to assignment order.
 */
function firstValid(cfg: Config, replicas: readonly number[], electable: number, logRank: (r: number) => number): number {
  let best = NO_LEADER;
  for (const r of replicas) {
    if (!inMask(electable, r)) continue;
    if (cfg.election === 'assignmentOrder' || cfg.mutation === 'longestLogIgnored') return r;
    if (best === NO_LEADER || logRank(r) > logRank(best)) best = r;
  }
  return best;
}

/** (last epoch, log end offset) as one number, for `longestLog` elections and the recovery manager. */
export function logRankOf(s: ReplicationState, tp: TopicPartition = ONLY): (r: number) => number {
  return (r) => {
    const log = tp.replica(s, r).log;
    return lastEpoch(log) * 1_000 + log.size;
  };
}

/** One partition change, written in place into the step's copy `s` (writes.ts). */
function apply(s: ReplicationState, cfg: Config, tp: TopicPartition, targetIsr: number, uncleanShutdown = NO_LEADER): void {
  const logRank = cfg.election === 'longestLog' ? logRankOf(s, tp) : undefined;
  const was = registrationAt(s, tp);
  const c = changeRegistration(cfg, was, unavailable(s), targetIsr, uncleanShutdown, logRank, cfg.assignment[tp.id]);
  if (c.changed) writeRegistration(s, tp, c.partition);
  const g = placesOf(s).tps[tp.id]!.ghost;
  if (c.electedOutside) putByte(s, g.cleanElectionOutside, 1);
  if (c.lastKnownLeaderElected) {
    putByte(s, g.uncleanElection, 1);
    if (!c.uncleanAllowed) putByte(s, g.uncleanOutsideStrategy, 1);
  }
}

/** `tp`'s registration at the controller, read from the state's bytes (places.ts). */
export function registrationAt(s: ReplicationState, tp: TopicPartition): Registration {
  const P = placesOf(s);
  const p = P.tps[tp.id]!.partition;
  const b = s._b;
  const o = s._o;
  return {
    leader: b[o + p.leader]! - 1,
    leaderEpoch: readCode(b, o + p.leaderEpoch, P.leaderEpochWidth),
    partitionEpoch: readCode(b, o + p.partitionEpoch, P.partitionEpochWidth),
    isr: b[o + p.isr]!,
    elr: b[o + p.elr]!,
    lastKnownElr: b[o + p.lastKnownElr]!,
    recovering: b[o + p.recovering] !== 0,
  };
}

/**
 * Writes `tp`'s registration at the controller in the step's copy `s` (writes.ts). The sets are masks of
 * broker ids, the leader's code is the leader plus one; an epoch past its bound is reported by the layout.
 */
export function writeRegistration(s: ReplicationState, tp: TopicPartition, r: Registration): ReplicationState {
  if (!writesInPlace(s)) return inCopy(s, (m) => writeRegistration(m, tp, r));
  const P = placesOf(s);
  const p = P.tps[tp.id]!.partition;
  putByte(s, p.leader, r.leader + 1);
  putBounded(s, p.leaderEpoch, P.leaderEpochWidth, r.leaderEpoch, P.max.leaderEpoch, tp.registrationPath, 'leaderEpoch');
  putBounded(s, p.partitionEpoch, P.partitionEpochWidth, r.partitionEpoch, P.max.partitionEpoch, tp.registrationPath, 'partitionEpoch');
  putByte(s, p.isr, r.isr);
  putByte(s, p.elr, r.elr);
  putByte(s, p.lastKnownElr, r.lastKnownElr);
  putByte(s, p.recovering, r.recovering ? 1 : 0);
  return s;
}

/** The partitions a broker event changes: every one the broker hosts, which is all of them. */
const hostedBy = (cfg: Config): readonly TopicPartition[] => (cfg.mutation === 'brokerEventOnePartition' ? cfg.tps.slice(0, 1) : cfg.tps);

/** One change of every topic partition, each to its ISR without the brokers in `leaving`. */
function applyAll(s: ReplicationState, cfg: Config, leaving: number, uncleanShutdown = NO_LEADER): ReplicationState {
  for (const tp of hostedBy(cfg)) apply(s, cfg, tp, isrAt(s, tp) & ~leaving, uncleanShutdown);
  return s;
}

/** `tp`'s ISR at the controller, as a mask. */
export function isrAt(s: ReplicationState, tp: TopicPartition): number {
  return s._b[s._o + placesOf(s).tps[tp.id]!.partition.isr]!;
}

/**
 * The brokers `isAcceptableLeader` rejects (`ReplicationControlManager`): fenced ones and, since KIP-841,
 * those in controlled shutdown.
 */
export function unavailable(s: ReplicationState): number {
  const P = placesOf(s);
  return s._b[s._o + P.fenced]! | s._b[s._o + P.shuttingDown]!;
}

/**
 * `handleBrokerInControlledShutdown` (BrokerHeartbeat with wantShutDown): the broker keeps running while
 * the controller records it in controlled shutdown, takes it out of the ISR and moves its leadership away
 * (`generateLeaderAndIsrUpdates` with it as the broker to remove).
 */
export function beginControlledShutdown(s: ReplicationState, cfg: Config, b: number): ReplicationState {
  if (!writesInPlace(s)) return inCopy(s, (m) => beginControlledShutdown(m, cfg, b));
  return applyAll(setBrokerMask(s, 'shuttingDown', brokerMask(s, 'shuttingDown') | bit(b)), cfg, bit(b));
}

/** An AlterPartition the controller accepted (the leader's partition epoch matched): the new ISR of `tp`. */
export function alterIsr(s: ReplicationState, cfg: Config, tp: TopicPartition, isr: number): ReplicationState {
  if (!writesInPlace(s)) return inCopy(s, (m) => alterIsr(m, cfg, tp, isr));
  apply(s, cfg, tp, isr);
  return s;
}

/**
 * `handleBrokerFenced` (heartbeats stopped, or a controlled shutdown finished): the broker leaves the ISR
 * and, if it led, a new leader is elected in the same change.
 */
export function fenceBroker(s: ReplicationState, cfg: Config, b: number): ReplicationState {
  if (!writesInPlace(s)) return inCopy(s, (m) => fenceBroker(m, cfg, b));
  const fenced = brokerMask(s, 'fenced');
  if (inMask(fenced, b)) return s;
  return applyAll(setBrokerMask(s, 'fenced', fenced | bit(b)), cfg, bit(b));
}

/** `handleBrokerUnfenced`: the broker is an acceptable leader again; a leaderless partition elects. */
export function unfenceBroker(s: ReplicationState, cfg: Config, b: number): ReplicationState {
  if (!writesInPlace(s)) return inCopy(s, (m) => unfenceBroker(m, cfg, b));
  return applyAll(setBrokerMask(s, 'fenced', brokerMask(s, 'fenced') & ~bit(b)), cfg, 0);
}

/**
 * BrokerRegistration, then unfencing. KIP-966: a restart the controller cannot prove clean
 * (`cleanShutdownCheck`) goes through `handleBrokerUncleanShutdown`, which removes the broker from the ISR
 * and ELR of every partition first, so it can never be elected cleanly with a log that lost records: the
 * clean-shutdown file is the broker's, the ELR membership it costs is per partition. Before KIP-966 the
 * controller does not look.
 *
 * The CleanShutdownFile holds the broker epoch of the incarnation that wrote it, and a broker's registered
 * epoch changes only when it registers, which it does only by restarting, reading the file and deleting
 * it: so the PreviousBrokerEpoch comparison and the presence of the file never disagree here, and broker
 * epochs are not state (they would split states without changing any verdict).
 */
export function registerBroker(s: ReplicationState, cfg: Config, b: number, clean: boolean): ReplicationState {
  if (!writesInPlace(s)) return inCopy(s, (m) => registerBroker(m, cfg, b, clean));
  if (cfg.elr && restartLooksUnclean(cfg, clean) && cfg.mutation !== 'uncleanRestartKeepsElr') {
    for (const tp of hostedBy(cfg)) {
      const p = registrationAt(s, tp);
      if (inMask(p.isr | p.elr, b)) apply(s, cfg, tp, p.isr & ~bit(b), b);
    }
  }
  return unfenceBroker(s, cfg, b);
}

/** Whether the controller handles a restart as unclean, given whether the broker left a clean-shutdown file. */
export function restartLooksUnclean(cfg: Config, clean: boolean): boolean {
  switch (cfg.cleanShutdownCheck) {
    case 'previousBrokerEpoch':
      return !clean;
    case 'everyIncarnationUnclean':
      return true;
    case 'none':
      return false;
  }
}

/**
 * Whether an admin preferred-leader election may move leadership to the first replica in assignment order
 * now: `Election.PREFERRED` (`electPreferredLeader`) needs it to be a valid new leader (in the ISR, or in the
 * ELR with the ISR empty, and unfenced); the KIP-250 safe variant also needs the current leader reachable
 * and the preferred replica's log equal to the leader's (steps a to d of Jun Rao #4, in one step: the
 * leader takes no write in between).
 */
export function preferredElectionAllowed(s: ReplicationState, cfg: Config, tp: TopicPartition = ONLY): boolean {
  const p = tp.partition(s);
  const preferred = cfg.assignment[tp.id]![0]!;
  if (cfg.preferredElection === 'off' || p.leader === NO_LEADER || p.leader === preferred) return false;
  const isr = maskOf(p.isr);
  const valid = isr !== 0 ? isr : maskOf(p.elr);
  if (!inMask(valid & ~unavailable(s), preferred)) return false;
  if (cfg.preferredElection === 'immediate' || cfg.mutation === 'preferredSkipsCatchUp') return true;
  const leader = tp.replica(s, p.leader).log;
  const mine = tp.replica(s, preferred).log;
  const running = (b: number) => s.brokers.get(b)!.running;
  return running(p.leader) && !s.cut.has(p.leader) && running(preferred) && commonPrefix(mine, leader) === leader.size && mine.size === leader.size;
}

/** The preferred replica becomes the leader; the ISR is unchanged (a member of it moved up). */
export function electPreferred(s: ReplicationState, cfg: Config, tp: TopicPartition = ONLY): ReplicationState {
  if (!writesInPlace(s)) return inCopy(s, (m) => electPreferred(m, cfg, tp));
  const p = registrationAt(s, tp);
  const preferred = cfg.assignment[tp.id]![0]!;
  const fromElr = p.isr === 0;
  writeRegistration(s, tp, {
    ...p,
    leader: preferred,
    leaderEpoch: p.leaderEpoch + 1,
    partitionEpoch: p.partitionEpoch + 1,
    isr: fromElr ? bit(preferred) : p.isr,
    elr: fromElr ? p.elr & ~bit(preferred) : p.elr,
  });
  return s;
}

export type UncleanPath = 'ElectUncleanLeader' | 'UncleanRecovery';

/**
 * The replicas an unclean path may elect now, or [] when it must wait. `ElectUncleanLeader` is the path
 * without the Unclean Recovery Manager (and the legacy unclean.leader.election.enable); `UncleanRecovery`
 * is the manager, which reads every available log (GetReplicaLogInfo) and picks the best one.
 *
 * When (KIP-966 thread, Colin McCabe, Oct 3 2023): with no leader, an unfenced ELR member is elected
 * cleanly; Aggressive recovers when no ISR or ELR member is unfenced; Balanced only when the ISR and ELR
 * are both empty; None never. How (Artem Livshits, same day): with the manager, Aggressive reads whoever
 * is available and Balanced first waits for every LastKnownELR member; without it, Aggressive takes the
 * last known leader if available, else any replica, and Balanced is the `balancedFallback` reading.
 */
export function uncleanCandidates(s: ReplicationState, cfg: Config, path: UncleanPath, tp: TopicPartition = ONLY): number[] {
  const candidates = uncleanCandidateMask(s, cfg, path, tp);
  return cfg.assignment[tp.id]!.filter((r) => inMask(candidates, r));
}

/** `uncleanCandidates` as a mask of broker ids (the guard asks it for every broker of a leaderless partition). */
export function uncleanCandidateMask(s: ReplicationState, cfg: Config, path: UncleanPath, tp: TopicPartition = ONLY): number {
  const p = registrationAt(s, tp);
  if (p.leader !== NO_LEADER) return 0;
  // An unclean election takes only an acceptable leader (`isAcceptableLeader`): unfenced and, since KIP-841,
  // not in controlled shutdown.
  const down = unavailable(s);
  const available = maskOfIds(cfg.assignment[tp.id]!) & ~down;
  if (!cfg.elr) {
    // Legacy: PartitionChangeBuilder.electAnyLeader with Election.UNCLEAN takes the first acceptable replica.
    if (path !== 'ElectUncleanLeader' || !cfg.uncleanLeaderElection || (p.isr & ~down) !== 0) return 0;
    const first = cfg.assignment[tp.id]!.find((r) => inMask(available, r));
    return first === undefined ? 0 : bit(first);
  }
  if (path === 'UncleanRecovery' ? !cfg.recoveryManager : cfg.recoveryManager) return 0;
  // The last known leader, as a mask (0: none stored).
  const lastKnownLeader = storesLastKnownLeader(cfg) && countOf(p.lastKnownElr) === 1 ? p.lastKnownElr : 0;
  const lklAvailable = (lastKnownLeader & ~down) !== 0;
  switch (cfg.strategy) {
    case 'None':
      return 0;
    case 'Aggressive':
      if (((p.isr | p.elr) & ~down) !== 0) return 0;
      if (cfg.recoveryManager) return longestLogs(s, tp, available);
      return lklAvailable ? lastKnownLeader : available;
    case 'Balanced':
      if ((p.isr !== 0 || p.elr !== 0) && cfg.mutation !== 'balancedIgnoresElr') return 0;
      if (cfg.recoveryManager) {
        const waited = (p.lastKnownElr & brokerMask(s, 'fenced')) === 0 || cfg.mutation === 'managerSkipsLastKnownElr';
        return waited ? longestLogs(s, tp, available) : 0;
      }
      // An available last known leader is already elected by the normal election (changePartition).
      return cfg.balancedFallback === 'lastKnownLeaderOrAny' && !lklAvailable ? available : 0;
  }
}

/** The manager's choice: the highest (last epoch, log end offset) among the available replicas (open question 6). */
function longestLogs(s: ReplicationState, tp: TopicPartition, available: number): number {
  const key = logRankOf(s, tp);
  let best = -Infinity;
  for (let r = 0; available >> r !== 0; r++) if (inMask(available, r)) best = Math.max(best, key(r));
  let chosen = 0;
  for (let r = 0; available >> r !== 0; r++) if (inMask(available, r) && key(r) === best) chosen |= bit(r);
  return chosen;
}

/**
 * An unclean election: `tryElection` forces the ISR to the new leader alone and `maybeUpdateRecordElr`
 * clears the ELR and LastKnownELR. The ghost records that it happened, and whether the strategy's own
 * definition allowed it at that moment.
 */
export function electUnclean(s: ReplicationState, cfg: Config, b: number, tp: TopicPartition = ONLY): ReplicationState {
  if (!writesInPlace(s)) return inCopy(s, (m) => electUnclean(m, cfg, b, tp));
  const p = registrationAt(s, tp);
  const allowed = uncleanAllowedFor(cfg, p.isr, p.elr, unavailable(s));
  // KIP-704: the new leader's log may lack committed records, so the partition is RECOVERING.
  writeRegistration(s, tp, {
    leader: b,
    leaderEpoch: p.leaderEpoch + 1,
    partitionEpoch: p.partitionEpoch + 1,
    isr: cfg.mutation === 'uncleanElectionKeepsIsr' ? p.isr : bit(b),
    elr: 0,
    lastKnownElr: 0,
    recovering: true,
  });
  const g = placesOf(s).tps[tp.id]!.ghost;
  putByte(s, g.uncleanElection, 1);
  if (!allowed) putByte(s, g.uncleanOutsideStrategy, 1);
  return s;
}

/**
 * When each unclean path may run, from the strategy definitions (KIP-966 thread, Calvin Liu, Sep 18
 * 2023): None "no unclean recovery will be performed"; Balanced "when both ISR and ELR are empty";
 * Aggressive "whenever the partition can't elect a durable replica". Without the ELR, the legacy
 * unclean.leader.election.enable allows it once no ISR member is available. `unavailable` is the mask of
 * the brokers that cannot lead (fenced, or in controlled shutdown: `isAcceptableLeader`).
 */
export function uncleanElectionAllowed(cfg: Config, p: Partition, unavailable: number): boolean {
  return uncleanAllowedFor(cfg, maskOf(p.isr), maskOf(p.elr), unavailable);
}

/** `uncleanElectionAllowed` on sets given as masks. */
function uncleanAllowedFor(cfg: Config, isr: number, elr: number, unavailable: number): boolean {
  if (!cfg.elr) return cfg.uncleanLeaderElection && (isr & ~unavailable) === 0;
  switch (cfg.strategy) {
    case 'None':
      return false;
    case 'Balanced':
      return isr === 0 && elr === 0;
    case 'Aggressive':
      return ((isr | elr) & ~unavailable) === 0;
  }
}
