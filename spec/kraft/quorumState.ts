/**
 * `QuorumState`'s transition helpers and `KafkaRaftClient`'s response triage, as pure functions on one
 * replica. Each helper checks the precondition the Java code checks before it changes state; called
 * outside it, the Java helper throws `IllegalStateException`, and here the replica moves to the
 * `IllegalState` sink with the failed call recorded (kafka-tlaplus `kraft_kip_996_functions.tla`,
 * `SetIllegalState`).
 *
 * Every transition builds a fresh epoch state: votes, the fetch flag, in-flight requests
 * (`resetConnections`) and the leader's follower offsets all start empty.
 */
import { List, Map, Set } from '../immutable.ts';
import type { Request } from './messages.ts';
import { call as failed, reason, why } from './illegalReasons.ts';
import { type Entry, type ErrorCode, type FourthCondition, type ProspectiveRules, type Replica, type Role, entryOf } from './state.ts';

const NO_VOTES = Set<string>();
const NO_OFFSETS = Map<string, number>();
const NO_REQUESTS = Map<string, Request>();
const selfVotes = new globalThis.Map<string, Set<string>>();

/** `{ self }`: the votes of a replica that has only its own (one shared set per replica). */
function onlySelf(self: string): Set<string> {
  let v = selfVotes.get(self);
  if (v === undefined) selfVotes.set(self, (v = Set([self])));
  return v;
}

export function illegal(r: Replica, call: string, because: string): Replica {
  return r.set('role', 'IllegalState').set('illegal', reason(call, because));
}

function enter(r: Replica, role: Role, epoch: number, leader: string | null, votedFor: string | null, votes = NO_VOTES): Replica {
  // One write of every field (a packed replica is copied once).
  return r.merge({ role, epoch, leader, votedFor, votes, rejections: NO_VOTES, fetched: false, inflight: NO_REQUESTS, endOffsets: NO_OFFSETS });
}

/** `QuorumState.transitionToUnattached` to a higher epoch: the leader and the vote are forgotten. */
export function transitionToUnattached(r: Replica, epoch: number): Replica {
  if (epoch <= r.epoch) {
    return illegal(r, failed.transitionToUnattached(epoch), why.notAboveEpoch(r.epoch, r.role));
  }
  return enter(r, 'Unattached', epoch, null, null);
}

/** `QuorumState.transitionToVoted`: in the same epoch only from Unattached, never for oneself. */
export function transitionToVoted(r: Replica, self: string, epoch: number, candidate: string): Replica {
  const call = failed.transitionToVoted(epoch, candidate);
  if (candidate === self) return illegal(r, call, why.candidateIsLocal());
  if (epoch < r.epoch) return illegal(r, call, why.epochIsLarger(r.epoch));
  if (epoch === r.epoch && r.role !== 'Unattached') return illegal(r, call, why.already(r.role, epoch));
  return enter(r, 'Voted', epoch, null, candidate);
}

/**
 * `QuorumState.transitionToFollower` throws when the leader is the local replica ("since it matches the
 * local broker.id"), when the epoch is behind, or when already Leader or Follower in that epoch.
 */
export function transitionToFollower(r: Replica, self: string, epoch: number, leaderId: string): Replica {
  const call = failed.transitionToFollower(epoch, leaderId);
  if (leaderId === self) return illegal(r, call, why.leaderIsLocal());
  if (epoch < r.epoch) return illegal(r, call, why.epochIsLarger(r.epoch));
  if (epoch === r.epoch && (r.role === 'Leader' || r.role === 'Follower')) {
    return illegal(r, call, why.already(r.role, epoch));
  }
  return enter(r, 'Follower', epoch, leaderId, epoch > r.epoch ? null : r.votedFor);
}

/**
 * KIP-996 `transitionToProspective`: same epoch, the vote kept, and the replica votes for itself.
 * In the KAFKA-16281 era (kafka-tlaplus @421f170 `TransitionToProspective`) the known leader is cleared;
 * as shipped (`QuorumState.transitionToProspective` passes `leaderId()` to `ProspectiveState`) it is
 * kept, and Prospective -> Prospective throws. A leader never times out.
 */
export function transitionToProspective(r: Replica, self: string, rules: ProspectiveRules = 'jiraEra'): Replica {
  if (r.role === 'Leader') return illegal(r, failed.transitionToProspective(), why.isLeader());
  if (rules === 'kip996') {
    if (r.role === 'Prospective') return illegal(r, failed.transitionToProspective(), why.alreadyProspective());
    return enter(r, 'Prospective', r.epoch, r.leader, r.votedFor, onlySelf(self));
  }
  return enter(r, 'Prospective', r.epoch, null, r.votedFor, onlySelf(self));
}

/**
 * `KafkaRaftClient.prospectiveTransitionAfterElectionLoss` (KIP-996 as shipped): a Prospective whose
 * pre-vote was rejected by a majority, or timed out, follows the leader it knows of, or else goes
 * Unattached in the same epoch (`QuorumState.transitionToUnattached` allows the same epoch only from
 * Prospective), keeping its vote so that it is not cast twice. A kept vote for another candidate is
 * `Voted` here (Kafka merged `VotedState` into `UnattachedState`); a kept vote for itself (a lost
 * candidacy) stays `Unattached` with `votedFor` itself.
 */
export function prospectiveTransitionAfterElectionLoss(r: Replica, self: string): Replica {
  if (r.role !== 'Prospective') return illegal(r, failed.prospectiveTransitionAfterElectionLoss(), why.replicaIs(r.role));
  if (r.leader !== null) return transitionToFollower(r, self, r.epoch, r.leader);
  const voted = r.votedFor;
  return enter(r, voted !== null && voted !== self ? 'Voted' : 'Unattached', r.epoch, null, voted);
}

/**
 * `QuorumState.prospectiveAddVotedState` (KIP-996 as shipped): a Prospective that has not voted in its
 * epoch grants a standard vote and stays Prospective with a fresh election (only its own pre-vote
 * recorded). Its pre-vote requests stay in flight: `KafkaRaftClient` does not reset connections here.
 */
export function prospectiveAddVotedState(r: Replica, self: string, epoch: number, candidate: string): Replica {
  const call = failed.prospectiveAddVotedState(epoch, candidate);
  if (r.role !== 'Prospective') return illegal(r, call, why.replicaIs(r.role));
  if (candidate === self) return illegal(r, call, why.candidateIsLocal());
  if (epoch !== r.epoch || r.votedFor !== null) return illegal(r, call, why.notProspectiveWithoutVote(epoch));
  return r.merge({ votedFor: candidate, votes: onlySelf(self), rejections: NO_VOTES });
}

/** KIP-996: only a Prospective that won the pre-vote becomes Candidate, in the next epoch, voting for itself. */
export function transitionToCandidate(r: Replica, self: string): Replica {
  if (r.role !== 'Prospective') return illegal(r, failed.transitionToCandidate(), why.notProspective(r.role));
  return enter(r, 'Candidate', r.epoch + 1, null, self, onlySelf(self));
}

/**
 * `QuorumState.transitionToLeader` (from Candidate with a granted majority) followed by
 * `onBecomeLeader`, which appends the LeaderChange control record so the new epoch can commit.
 */
export function transitionToLeader(r: Replica, self: string, majority: number): Replica {
  if (r.role !== 'Candidate' || r.votes.size < majority) {
    return illegal(r, failed.transitionToLeader(), why.votes(r.role, r.votes.size));
  }
  const led = enter(r, 'Leader', r.epoch, self, r.votedFor);
  return led.set('log', led.log.push(entryOf(r.epoch, null)));
}

/** `QuorumState.transitionToResigned`: only a leader resigns; it keeps itself as the epoch's leader. */
export function transitionToResigned(r: Replica): Replica {
  if (r.role !== 'Leader') return illegal(r, failed.transitionToResigned(), why.replicaIs(r.role));
  return enter(r, 'Resigned', r.epoch, r.leader, r.votedFor);
}

/**
 * `KafkaRaftClient.hasConsistentLeader`: a message naming the local replica as leader of the current
 * epoch is consistent only if it is the leader; otherwise two known leaders of one epoch must agree.
 */
export function hasConsistentLeader(r: Replica, self: string, epoch: number, leaderId: string | null): boolean {
  if (leaderId !== null && leaderId === self) return epoch !== r.epoch || r.role === 'Leader';
  return epoch !== r.epoch || leaderId === null || r.leader === null || r.leader === leaderId;
}

/**
 * `KafkaRaftClient.maybeTransition`: a higher epoch makes the replica follow the named leader or go
 * Unattached; in the same epoch a newly learnt leader is followed. An inconsistent leader throws.
 */
export function maybeTransition(r: Replica, self: string, leaderId: string | null, epoch: number): Replica {
  if (!hasConsistentLeader(r, self, epoch, leaderId)) {
    return illegal(r, failed.maybeTransition(leaderId, epoch), why.inconsistentLeader(r.leader, r.epoch));
  }
  if (epoch > r.epoch) return leaderId !== null ? transitionToFollower(r, self, epoch, leaderId) : transitionToUnattached(r, epoch);
  if (leaderId !== null && r.leader === null) return transitionToFollower(r, self, epoch, leaderId);
  return r;
}

export interface Triage {
  readonly replica: Replica;
  /** True: the response was fully dealt with here; the API handler does no more. */
  readonly handled: boolean;
}

/**
 * `KafkaRaftClient.maybeHandleCommonResponse`, the `else if` that KAFKA-16281 is about:
 * 1. a stale epoch or UNKNOWN_LEADER_EPOCH: handled, nothing changes;
 * 2. a higher epoch, FENCED_LEADER_EPOCH or NOT_LEADER_OR_FOLLOWER: `maybeTransition`, handled;
 * 3. the same epoch, a leader named, none known locally (and the fourth condition, if any):
 *    `transitionToFollower`; the API handler still runs when there was no error;
 * 4. otherwise not handled.
 * The fourth condition is the design choice: absent (the code the JIRA describes), `leaderId != self`
 * (the JIRA's first description, kafka-tlaplus 82dbf14) or `state != Prospective` (its current
 * description, kafka-tlaplus 421f170).
 */
export function maybeHandleCommonResponse(
  r: Replica,
  self: string,
  fourth: FourthCondition,
  error: ErrorCode | null,
  leaderId: string | null,
  epoch: number,
): Triage {
  if (epoch < r.epoch || error === 'UNKNOWN_LEADER_EPOCH') return { replica: r, handled: true };
  if (epoch > r.epoch || error === 'FENCED_LEADER_EPOCH' || error === 'NOT_LEADER_OR_FOLLOWER') {
    return { replica: maybeTransition(r, self, leaderId, epoch), handled: true };
  }
  const fourthHolds = fourth === 'none' || (fourth === 'leaderIdNotSelf' ? leaderId !== self : r.role !== 'Prospective');
  if (leaderId !== null && r.leader === null && fourthHolds) {
    return { replica: transitionToFollower(r, self, epoch, leaderId), handled: error !== null };
  }
  return { replica: r, handled: false };
}

/** The log's first `size` entries (`ReplicatedLog.truncateTo`). */
export function truncate(log: List<Entry>, size: number): List<Entry> {
  return size >= log.size ? log : log.setSize(size);
}
