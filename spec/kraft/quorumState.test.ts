import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Map, Set } from 'immutable';
import {
  hasConsistentLeader,
  maybeHandleCommonResponse,
  maybeTransition,
  prospectiveAddVotedState,
  prospectiveTransitionAfterElectionLoss,
  transitionToCandidate,
  transitionToFollower,
  transitionToLeader,
  transitionToProspective,
  transitionToResigned,
  transitionToUnattached,
  transitionToVoted,
} from './quorumState.ts';
import { Replica } from './state.ts';
import { voteRequest } from './messages.ts';

const pending = Map([['r2', voteRequest('r1', 'r2', 1, true, 1, 2)]]);
const leader = Replica({ role: 'Leader', epoch: 1, leader: 'r1', votedFor: 'r1' });
const follower = Replica({ role: 'Follower', epoch: 1, leader: 'r1', fetched: true });
const resigned = Replica({ role: 'Resigned', epoch: 1, leader: 'r1', votedFor: 'r1' });
/** r1 after KAFKA-16281's first three steps: Prospective in the epoch it led, leader cleared. */
const prospective = Replica({ role: 'Prospective', epoch: 1, votedFor: 'r1', votes: Set(['r1']), inflight: pending });

test('transitionToFollower throws (IllegalState) for itself as leader, an older epoch, or a Leader/Follower of the same epoch', () => {
  const self = transitionToFollower(prospective, 'r1', 1, 'r1');
  assert.equal(self.role, 'IllegalState');
  assert.equal(self.illegal, 'transitionToFollower(epoch=1, leader=r1): the leader is the local replica');
  assert.equal(self.epoch, 1, 'the sink keeps the rest of the replica for the trace');
  assert.equal(transitionToFollower(Replica({ epoch: 2 }), 'r2', 1, 'r1').illegal, 'transitionToFollower(epoch=1, leader=r1): the current epoch 2 is larger');
  assert.equal(transitionToFollower(follower, 'r2', 1, 'r3').role, 'IllegalState');
  assert.equal(transitionToFollower(leader, 'r1', 1, 'r2').role, 'IllegalState');
});

test('transitionToFollower keeps the vote in the same epoch, forgets it in a new one, and resets the epoch state', () => {
  const same = transitionToFollower(prospective, 'r1', 1, 'r2');
  assert.deepEqual([same.role, same.leader, same.votedFor, same.votes.size, same.inflight.size], ['Follower', 'r2', 'r1', 0, 0]);
  const next = transitionToFollower(follower, 'r2', 2, 'r3');
  assert.deepEqual([next.role, next.epoch, next.leader, next.votedFor, next.fetched], ['Follower', 2, 'r3', null, false]);
});

test('transitionToUnattached only moves to a higher epoch, forgetting leader and vote', () => {
  assert.equal(transitionToUnattached(resigned, 1).role, 'IllegalState');
  const u = transitionToUnattached(resigned, 2);
  assert.deepEqual([u.role, u.epoch, u.leader, u.votedFor], ['Unattached', 2, null, null]);
});

test('transitionToVoted: from Unattached in the epoch (or a higher epoch), never for oneself', () => {
  const u = Replica({ epoch: 2 });
  assert.deepEqual([transitionToVoted(u, 'r1', 2, 'r2').role, transitionToVoted(u, 'r1', 2, 'r2').votedFor], ['Voted', 'r2']);
  assert.equal(transitionToVoted(u, 'r1', 2, 'r1').role, 'IllegalState');
  assert.equal(transitionToVoted(Replica({ role: 'Voted', epoch: 2, votedFor: 'r2' }), 'r1', 2, 'r3').role, 'IllegalState');
  assert.equal(transitionToVoted(follower, 'r2', 1, 'r3').role, 'IllegalState');
});

test('transitionToProspective keeps the epoch and the vote, clears the leader (the KAFKA-16281 era) and votes for itself', () => {
  const p = transitionToProspective(resigned, 'r1');
  assert.deepEqual([p.role, p.epoch, p.leader, p.votedFor, [...p.votes]], ['Prospective', 1, null, 'r1', ['r1']]);
  assert.equal(transitionToProspective(leader, 'r1').role, 'IllegalState');
});

test('transitionToProspective as shipped (KIP-996): the known leader and the vote are kept; Prospective -> Prospective throws', () => {
  const p = transitionToProspective(follower, 'r2', 'kip996');
  assert.deepEqual([p.role, p.epoch, p.leader, p.votedFor, [...p.votes]], ['Prospective', 1, 'r1', null, ['r2']]);
  assert.equal(transitionToProspective(p, 'r2', 'kip996').illegal, 'transitionToProspective(): the replica is already Prospective');
  assert.equal(transitionToProspective(p, 'r2', 'jiraEra').role, 'Prospective', 'the KAFKA-16281 era allows it');
});

test('prospectiveTransitionAfterElectionLoss: Follower of the known leader, else Unattached in the same epoch keeping the vote', () => {
  const known = transitionToProspective(follower, 'r2', 'kip996').set('rejections', Set(['r1', 'r3']));
  const f = prospectiveTransitionAfterElectionLoss(known, 'r2');
  assert.deepEqual([f.role, f.epoch, f.leader, f.votes.size, f.rejections.size], ['Follower', 1, 'r1', 0, 0]);
  const votedOther = Replica({ role: 'Prospective', epoch: 2, votedFor: 'r3', votes: Set(['r2']) });
  const v = prospectiveTransitionAfterElectionLoss(votedOther, 'r2');
  assert.deepEqual([v.role, v.epoch, v.leader, v.votedFor], ['Voted', 2, null, 'r3']);
  const lostCandidacy = Replica({ role: 'Prospective', epoch: 2, votedFor: 'r2', votes: Set(['r2']) });
  const u = prospectiveTransitionAfterElectionLoss(lostCandidacy, 'r2');
  assert.deepEqual([u.role, u.epoch, u.votedFor], ['Unattached', 2, 'r2']);
  assert.equal(prospectiveTransitionAfterElectionLoss(follower, 'r2').role, 'IllegalState');
  // Were the leader the replica itself (a Resigned leader made Prospective in its epoch), this is KAFKA-16281 again.
  const selfLed = transitionToProspective(resigned, 'r1', 'kip996');
  assert.equal(prospectiveTransitionAfterElectionLoss(selfLed, 'r1').illegal, 'transitionToFollower(epoch=1, leader=r1): the leader is the local replica');
});

test('prospectiveAddVotedState: a Prospective without a vote grants one and restarts its pre-vote count, keeping its requests', () => {
  const p = Replica({ role: 'Prospective', epoch: 2, votes: Set(['r1', 'r3']), rejections: Set(['r2']), inflight: pending });
  const v = prospectiveAddVotedState(p, 'r1', 2, 'r2');
  assert.deepEqual([v.role, v.votedFor, [...v.votes], v.rejections.size, v.inflight.size], ['Prospective', 'r2', ['r1'], 0, 1]);
  assert.equal(prospectiveAddVotedState(v, 'r1', 2, 'r3').role, 'IllegalState');
  assert.equal(prospectiveAddVotedState(p, 'r1', 2, 'r1').role, 'IllegalState');
  assert.equal(prospectiveAddVotedState(p, 'r1', 3, 'r2').role, 'IllegalState');
});

test('transitionToCandidate only from Prospective; transitionToLeader only from a Candidate with a majority; resign only a Leader', () => {
  const c = transitionToCandidate(prospective, 'r1');
  assert.deepEqual([c.role, c.epoch, c.votedFor, [...c.votes]], ['Candidate', 2, 'r1', ['r1']]);
  assert.equal(transitionToCandidate(follower, 'r2').role, 'IllegalState');
  assert.equal(transitionToLeader(c, 'r1', 2).role, 'IllegalState');
  const l = transitionToLeader(c.set('votes', Set(['r1', 'r3'])), 'r1', 2);
  assert.deepEqual([l.role, l.leader, l.log.last()?.epoch, l.log.last()?.value], ['Leader', 'r1', 2, null]);
  assert.equal(transitionToResigned(follower).role, 'IllegalState');
  assert.deepEqual([transitionToResigned(leader).role, transitionToResigned(leader).leader], ['Resigned', 'r1']);
});

test('hasConsistentLeader: naming the local replica as leader of its epoch is consistent only for the leader', () => {
  assert.equal(hasConsistentLeader(leader, 'r1', 1, 'r1'), true);
  assert.equal(hasConsistentLeader(resigned, 'r1', 1, 'r1'), false);
  assert.equal(hasConsistentLeader(resigned, 'r1', 2, 'r1'), true);
  assert.equal(hasConsistentLeader(follower, 'r2', 1, 'r3'), false);
  assert.equal(hasConsistentLeader(follower, 'r2', 1, 'r1'), true);
  assert.equal(hasConsistentLeader(follower, 'r2', 1, null), true);
});

test('maybeTransition: follow a newer leader, go Unattached in a newer epoch without one, adopt a leader newly learnt', () => {
  assert.deepEqual([maybeTransition(follower, 'r2', 'r3', 2).role, maybeTransition(follower, 'r2', 'r3', 2).leader], ['Follower', 'r3']);
  assert.equal(maybeTransition(follower, 'r2', null, 2).role, 'Unattached');
  assert.equal(maybeTransition(follower, 'r2', 'r1', 1), follower);
  assert.equal(maybeTransition(prospective, 'r1', 'r2', 1).leader, 'r2');
  assert.equal(maybeTransition(follower, 'r2', 'r3', 1).role, 'IllegalState');
});

test('maybeHandleCommonResponse: stale epochs and UNKNOWN_LEADER_EPOCH are handled without change', () => {
  const newer = follower.set('epoch', 2);
  assert.deepEqual(maybeHandleCommonResponse(newer, 'r2', 'none', null, 'r1', 1), { replica: newer, handled: true });
  assert.deepEqual(maybeHandleCommonResponse(follower, 'r2', 'none', 'UNKNOWN_LEADER_EPOCH', 'r3', 1), { replica: follower, handled: true });
});

test('maybeHandleCommonResponse: a newer epoch or a fencing error goes through maybeTransition and is handled', () => {
  const up = maybeHandleCommonResponse(follower, 'r2', 'none', null, 'r3', 2);
  assert.deepEqual([up.replica.role, up.replica.leader, up.handled], ['Follower', 'r3', true]);
  const notLeader = maybeHandleCommonResponse(follower, 'r2', 'none', 'NOT_LEADER_OR_FOLLOWER', 'r1', 1);
  assert.deepEqual(notLeader, { replica: follower, handled: true });
});

test('maybeHandleCommonResponse: the same-epoch branch follows a newly named leader; the API handler runs only without an error', () => {
  const u = Replica({ role: 'Unattached', epoch: 1 });
  const ok = maybeHandleCommonResponse(u, 'r3', 'none', null, 'r1', 1);
  assert.deepEqual([ok.replica.role, ok.replica.leader, ok.handled], ['Follower', 'r1', false]);
  assert.equal(maybeHandleCommonResponse(u, 'r3', 'none', 'FENCED_LEADER_EPOCH', 'r1', 1).handled, true);
  assert.deepEqual(maybeHandleCommonResponse(follower, 'r2', 'none', null, 'r1', 1), { replica: follower, handled: false });
});

test('KAFKA-16281: the reply naming r1 as leader, under each fourth condition', () => {
  const bug = maybeHandleCommonResponse(prospective, 'r1', 'none', null, 'r1', 1);
  assert.equal(bug.replica.role, 'IllegalState');
  for (const fourth of ['leaderIdNotSelf', 'notProspective'] as const) {
    assert.deepEqual(maybeHandleCommonResponse(prospective, 'r1', fourth, null, 'r1', 1), { replica: prospective, handled: false }, fourth);
  }
  // A reply naming another leader: leaderIdNotSelf follows it, notProspective stays Prospective.
  assert.equal(maybeHandleCommonResponse(prospective, 'r1', 'leaderIdNotSelf', null, 'r2', 1).replica.role, 'Follower');
  assert.equal(maybeHandleCommonResponse(prospective, 'r1', 'notProspective', null, 'r2', 1).replica.role, 'Prospective');
});
