/**
 * Properties of the KRaft quorum (kafka-tlaplus `kraft/kip_996/kraft_kip_996_properties.tla`, Raft
 * §5.2–5.4). Every one quantifies over all voters alike, so each is symmetric.
 */
import type { List } from '../immutable.ts';
import { always, everyStep, sometimes, type Property } from '../../invariants/property.ts';
import { leadsTo } from '../../invariants/temporal.ts';
import { isPacked } from '../layout/index.ts';
import { type Entry, type KraftState, type Replica, isLive } from './state.ts';
import { same } from './messages.ts';
import { ReplicaVerdicts } from './replicaVerdicts.ts';

const symmetric = { symmetric: true };

function each(s: KraftState, test: (id: string, r: Replica) => boolean): boolean {
  let ok = true;
  s.replicas.forEach((r, id) => (ok = test(id, r)));
  return ok;
}

function some(s: KraftState, test: (id: string, r: Replica) => boolean): boolean {
  return !each(s, (id, r) => !test(id, r));
}

function eachPair(s: KraftState, test: (a: Replica, b: Replica) => boolean): boolean {
  const rs: Replica[] = [];
  s.replicas.forEach((r) => {
    rs.push(r);
  });
  for (let i = 0; i < rs.length; i++) for (let j = i + 1; j < rs.length; j++) if (!test(rs[i]!, rs[j]!)) return false;
  return true;
}

/**
 * No step takes a running voter's epoch back. `QuorumState` moves only to an epoch at least its own (each
 * `transitionTo…` throws on a lower one) and `FileQuorumStateStore` writes the election state to disk
 * before the replica acts on it, so a restart with its disk comes back in the same epoch; only a voter that
 * lost its disk (Dead here, for good) leaves its epoch behind. An invariant cannot see an epoch that went
 * back to a value the voter held before; this step can (a restart that forgets the quorum state).
 */
export function epochNeverDecreases(before: KraftState, after: KraftState): boolean {
  if (before.replicas === after.replicas) return true;
  // Packed, unchanged replicas are equal bytes (a step that only sends or delivers a message: 4 in 10).
  if (isPacked(before) && before.replicas.equals(after.replicas)) return true;
  return each(after, (id, r) => r.role === 'Dead' || r.epoch >= before.replicas.get(id)!.epoch);
}

/** KAFKA-16281 and every other helper misuse: no replica ever hit an `IllegalStateException`. */
export const noIllegalState = (s: KraftState) => each(s, (_, r) => r.role !== 'IllegalState');

/** A follower's leader is never itself (`QuorumState.transitionToFollower` forbids it). */
export const noFollowerOfSelf = (s: KraftState) => each(s, (id, r) => r.role !== 'Follower' || r.leader !== id);

/** Raft Election Safety: no two replicas name different leaders for one epoch (so at most one Leader per epoch). */
export function electionSafety(s: KraftState): boolean {
  const leaderOf = new globalThis.Map<number, string>();
  return each(s, (_, r) => {
    if (r.leader === null || r.role === 'Dead') return true;
    const known = leaderOf.get(r.epoch);
    if (known === undefined) leaderOf.set(r.epoch, r.leader);
    return known === undefined || known === r.leader;
  });
}

const prefixCache = new WeakMap<List<Entry>, WeakMap<List<Entry>, number>>();

/** Length of the longest common prefix of two logs (cached: logs are shared between states). */
function commonPrefix(a: List<Entry>, b: List<Entry>): number {
  if (a === b) return a.size;
  if (isPacked(a)) return prefixLength(a, b); // read afresh from bytes, cheap to compare, never the same object
  let byB = prefixCache.get(a);
  const known = byB?.get(b);
  if (known !== undefined) return known;
  const i = prefixLength(a, b);
  if (byB === undefined) prefixCache.set(a, (byB = new WeakMap()));
  byB.set(b, i);
  return i;
}

function prefixLength(a: List<Entry>, b: List<Entry>): number {
  const n = Math.min(a.size, b.size);
  let i = 0;
  while (i < n && same(a.get(i), b.get(i))) i++;
  return i;
}

/** Raft Log Matching (§5.3): logs holding an entry of the same epoch at the same offset agree up to it. */
export function logMatching(s: KraftState): boolean {
  return eachPair(s, (a, b) => {
    const n = Math.min(a.log.size, b.log.size);
    for (let k = commonPrefix(a.log, b.log); k < n; k++) if (a.log.get(k)!.epoch === b.log.get(k)!.epoch) return false;
    return true;
  });
}

/** Committed prefixes agree: below both high watermarks, two logs are equal (kafka-tlaplus `LogMatching`). */
export function noLogDivergence(s: KraftState): boolean {
  return eachPair(s, (a, b) => Math.min(a.hwm, b.hwm) <= commonPrefix(a.log, b.log));
}

const holds = (r: Replica, v: string) => r.log.some((e) => e.value === v);

/** Raft Leader Completeness: a leader that no live replica has moved past holds every acknowledged value. */
export function leaderCompleteness(s: KraftState): boolean {
  if (s.acked.size === 0) return true;
  return each(s, (_, r) => {
    if (r.role !== 'Leader') return true;
    if (some(s, (_id, o) => isLive(o) && o.epoch > r.epoch)) return true;
    return s.acked.every((v) => holds(r, v));
  });
}

/**
 * Raft Leader Completeness read from logs alone (no acknowledgement ghost): a leader's log extends the
 * committed prefix `[0, hwm)` of every replica whose epoch is not newer than the leader's. Such a high
 * watermark was set in that epoch or earlier, and every later leader must hold what it covers.
 */
export function leaderHoldsCommitted(s: KraftState): boolean {
  return each(s, (_, l) => l.role !== 'Leader' || each(s, (_id, o) => o.epoch > l.epoch || o.hwm <= commonPrefix(o.log, l.log)));
}

/**
 * Every entry below a leader's high watermark is held by a majority of the voters (`LeaderState.updateHighWatermark`
 * advances it to the offset a majority has fetched): counted on the logs themselves, not on the fetch offsets
 * the leader recorded. Voters that lost their disk hold nothing, so this is checked only without crashes.
 */
export function committedOnMajority(s: KraftState, quorum: number): boolean {
  return each(s, (_, l) => {
    if (l.role !== 'Leader' || l.hwm === 0) return true;
    let holders = 0;
    s.replicas.forEach((o) => {
      if (commonPrefix(o.log, l.log) >= l.hwm) holders++;
    });
    return holders >= quorum;
  });
}

/** No replica's high watermark passes its own log end (`FollowerState.updateHighWatermark`, `ReplicatedLog`). */
export const highWatermarkWithinLog = (s: KraftState) => each(s, (_, r) => r.hwm <= r.log.size);

/** Durability: an acknowledged value stays on the disk of some replica that has not lost its disk. */
export function ackedValueNotLost(s: KraftState): boolean {
  return s.acked.every((v) => some(s, (_, r) => r.role !== 'Dead' && holds(r, v)));
}

/**
 * Each epoch state carries exactly the data `QuorumState` gives it (kafka-tlaplus `ValidRolesAndStates`).
 * With the KIP-996 Prospective as shipped, a Prospective may know a leader (never itself) and an
 * Unattached replica may keep its own vote from a lost candidacy.
 */
export function validRolesAndStates(s: KraftState, prospectiveKeepsLeader = false): boolean {
  return each(s, (id, r) => {
    if (r.votes.size > 0 && r.role !== 'Prospective' && r.role !== 'Candidate') return false;
    if (r.rejections.size > 0 && (r.role !== 'Prospective' || !prospectiveKeepsLeader || r.rejections.some((t) => r.votes.has(t)))) return false;
    if (r.endOffsets.size > 0 && r.role !== 'Leader') return false;
    if (r.fetched && r.role !== 'Follower') return false;
    switch (r.role) {
      case 'Unattached':
        return r.leader === null && (r.votedFor === null || (prospectiveKeepsLeader && r.votedFor === id));
      case 'Voted':
        return r.leader === null && r.votedFor !== null && r.votedFor !== id;
      case 'Prospective':
        return (prospectiveKeepsLeader ? r.leader !== id : r.leader === null) && r.votes.has(id);
      case 'Candidate':
        return r.leader === null && r.votedFor === id && r.votes.has(id);
      case 'Leader':
      case 'Resigned':
        return r.leader === id;
      case 'Follower':
        return r.leader !== null;
      case 'Dead':
        return r.log.size === 0 && r.epoch === 0 && r.leader === null;
      case 'IllegalState':
        return true;
    }
  });
}

/** Which witnesses a model can reach: a feature whose budget is zero has none. */
export interface KraftWitnesses {
  /** The epoch of the leader in the initial state (0 when there is none). */
  readonly initialLeaderEpoch: number;
  /** Clients write values. */
  readonly values: boolean;
  /** Leaders resign (check quorum) or restart. */
  readonly resignations: boolean;
  /** Election timeouts fire, so a leader that stepped down can campaign again. */
  readonly electionTimeouts: boolean;
  /** The KIP-996 Prospective as shipped: it keeps the known leader and may hold rejections. */
  readonly prospectiveKeepsLeader: boolean;
  /** A Resigned leader times out into Prospective in the epoch it led (the KAFKA-16281 era). */
  readonly resignedProspective: boolean;
  /** Voters may crash and lose their disk; messages may be lost; links may be cut. */
  readonly crashes: boolean;
  readonly losses: boolean;
  readonly cuts: boolean;
}

const newLeader = (s: KraftState, w: KraftWitnesses) => some(s, (_, r) => r.role === 'Leader' && r.epoch > w.initialLeaderEpoch);

/**
 * The situation KAFKA-16281 starts from, which every fix must still reach: a voter that still follows a
 * leader receives a pre-vote request from that leader (now resigned or restarted).
 */
export function preVoteToOwnFollower(s: KraftState): boolean {
  return s.net.some((m) => {
    if (m.type !== 'VoteRequest' || !m.preVote) return false;
    const to = s.replicas.get(m.to)!;
    return to.role === 'Follower' && to.leader === m.from;
  });
}

/** The JIRA's trigger: a pre-vote reply that names its own requester as the leader. */
export function preVoteReplyNamesRequester(s: KraftState): boolean {
  return s.net.some((m) => m.type === 'VoteResponse' && m.preVote && m.error === null && m.leaderId === m.to);
}

/**
 * Where the shipped Prospective differs: a pre-vote reply naming the leader the Prospective already
 * knows, so `maybeHandleCommonResponse`'s same-epoch branch (`!quorum.hasLeader()`) does not apply.
 */
export function preVoteReplyNamesKnownLeader(s: KraftState): boolean {
  return s.net.some((m) => {
    if (m.type !== 'VoteResponse' || !m.preVote || m.leaderId === null) return false;
    const to = s.replicas.get(m.to)!;
    return to.role === 'Prospective' && to.leader === m.leaderId && to.epoch === m.epoch;
  });
}

/** The KRaft properties; `quorum` is the majority of the voter set. */
export function kraftProperties(w: KraftWitnesses, quorum: number): Property<KraftState>[] {
  // Every invariant reads only the replicas and the acknowledged values (replicaVerdicts.ts).
  const kept = new ReplicaVerdicts();
  return [
    always('NoIllegalState', 'no transition helper is called outside its precondition (the Java code would throw IllegalStateException)', kept.of(noIllegalState), symmetric),
    always('NoFollowerOfSelf', "a Follower's leader is never the replica itself (KAFKA-16281)", kept.of(noFollowerOfSelf), symmetric),
    always('ElectionSafety', 'no two replicas name different leaders for the same epoch', kept.of(electionSafety), symmetric),
    always('LogMatching', 'two logs with an entry of the same epoch at the same offset are identical up to it', kept.of(logMatching), symmetric),
    always('NoLogDivergence', 'logs agree below both high watermarks', kept.of(noLogDivergence), symmetric),
    always('LeaderCompleteness', 'a current leader holds every acknowledged value', kept.of(leaderCompleteness), symmetric),
    always('LeaderHoldsCommitted', "a leader's log extends every committed prefix of a replica not ahead of its epoch", kept.of(leaderHoldsCommitted), symmetric),
    ...(w.crashes ? [] : [always<KraftState>('CommittedOnMajority', "every entry below a leader's high watermark is on a majority of the voters' logs", kept.of((s) => committedOnMajority(s, quorum)), symmetric)]),
    always('HighWatermarkWithinLog', "no replica's high watermark passes its log end", kept.of(highWatermarkWithinLog), symmetric),
    always('AckedValueNotLost', 'every acknowledged value is on some replica that kept its disk', kept.of(ackedValueNotLost), symmetric),
    always('ValidRolesAndStates', 'each epoch state holds only the leader, vote and bookkeeping it may hold', kept.of((s) => validRolesAndStates(s, w.prospectiveKeepsLeader)), symmetric),
    everyStep('EpochNeverDecreases', "no step takes a running voter's epoch back (QuorumState persists it before acting on it)", epochNeverDecreases, symmetric),
    sometimes('LeaderElected', 'an election completes: a leader of a new epoch exists', (s) => newLeader(s, w), symmetric),
    sometimes(
      'PreVoteRejectedWithKnownLeader',
      'a pre-vote is rejected by a replica that names its leader',
      (s) => s.net.some((m) => m.type === 'VoteResponse' && m.preVote && !m.granted && m.error === null && m.leaderId !== null),
      symmetric,
    ),
    ...(w.values ? [sometimes<KraftState>('ValueCommitted', 'a value written by a client is acknowledged', (s) => s.acked.some((v) => v !== 'v0'), symmetric)] : []),
    ...(w.resignations ? [sometimes<KraftState>('LeaderResigned', 'a leader resigns', (s) => some(s, (_, r) => r.role === 'Resigned'), symmetric)] : []),
    ...(w.resignations && w.electionTimeouts
      ? [sometimes<KraftState>('PreVoteToOwnFollower', 'a voter that still follows a leader gets a pre-vote request from it (where KAFKA-16281 starts)', preVoteToOwnFollower, symmetric)]
      : []),
    ...(w.resignations && w.electionTimeouts && w.resignedProspective
      ? [sometimes<KraftState>('PreVoteReplyNamesRequester', "a pre-vote reply names its requester as leader (KAFKA-16281's trigger)", preVoteReplyNamesRequester, symmetric)]
      : []),
    ...(w.prospectiveKeepsLeader
      ? [sometimes<KraftState>('PreVoteReplyNamesKnownLeader', 'a Prospective that knows its leader gets a pre-vote reply naming that leader', preVoteReplyNamesKnownLeader, symmetric)]
      : []),
    ...(w.crashes
      ? [sometimes<KraftState>('LeaderElectedAfterDiskLoss', 'a new leader is elected while a voter has lost its disk', (s) => newLeader(s, w) && some(s, (_, r) => r.role === 'Dead'), symmetric)]
      : []),
    ...(w.losses ? [sometimes<KraftState>('LeaderElectedAfterLoss', 'a new leader is elected after a message was lost', (s) => newLeader(s, w) && s.losses > 0, symmetric)] : []),
    ...(w.cuts ? [sometimes<KraftState>('LeaderElectedWhileLinkCut', 'a new leader is elected while a link is cut', (s) => newLeader(s, w) && s.cut.size > 0, symmetric)] : []),
  ];
}

/** Some voter is Prospective while another voter leads (KAFKA-16281's second half: the stuck Prospective). */
export const prospectiveBesideLeader = (s: KraftState) => some(s, (_, r) => r.role === 'Prospective') && some(s, (_, r) => r.role === 'Leader');

/** Some voter leads. */
const leaderExists = (s: KraftState) => some(s, (_, r) => r.role === 'Leader');

/** KAFKA-16281's second half: a Prospective beside a stable leader must not stay Prospective for ever. */
export const notStuckInProspective = (): Property<KraftState> =>
  leadsTo(
    'NotStuckInProspective',
    'a voter that is Prospective while a leader leads does not stay so: it learns of the leader, or the leadership changes',
    prospectiveBesideLeader,
    (s) => !prospectiveBesideLeader(s),
  );

/**
 * Raft's election liveness: whenever no voter leads, one is elected. Timers are budgeted, and a spent
 * budget is a timer that never fires again (a permanent fault), so this holds only where the budgets
 * leave room for a whole election after the last leader is gone.
 */
export const eventuallyLeaderElected = (): Property<KraftState> =>
  leadsTo('EventuallyLeaderElected', 'whenever no voter leads, a leader is elected eventually', (s) => !leaderExists(s), leaderExists);
