/**
 * The reasons a replica records when a `QuorumState` helper would have thrown `IllegalStateException`
 * (`Replica.illegal`): the failed call with its arguments, then why. The text is made here only, so the
 * layout can list every reason a model can record (`illegalReasons`) and store one as a 1- or 2-byte
 * code instead of its text: the reason is read on the one step that reaches `IllegalState`, and the
 * state is copied and hashed on every step.
 */
import type { KraftConfig, Role } from './state.ts';

export const ROLES: readonly Role[] = ['Unattached', 'Voted', 'Prospective', 'Candidate', 'Leader', 'Follower', 'Resigned', 'Dead', 'IllegalState'];

/** The failed calls, with their arguments. */
export const call = {
  transitionToUnattached: (epoch: number) => `transitionToUnattached(epoch=${epoch})`,
  transitionToVoted: (epoch: number, candidate: string) => `transitionToVoted(epoch=${epoch}, candidate=${candidate})`,
  transitionToFollower: (epoch: number, leader: string) => `transitionToFollower(epoch=${epoch}, leader=${leader})`,
  transitionToProspective: () => 'transitionToProspective()',
  prospectiveTransitionAfterElectionLoss: () => 'prospectiveTransitionAfterElectionLoss()',
  prospectiveAddVotedState: (epoch: number, candidate: string) => `prospectiveAddVotedState(epoch=${epoch}, candidate=${candidate})`,
  transitionToCandidate: () => 'transitionToCandidate()',
  transitionToLeader: () => 'transitionToLeader()',
  transitionToResigned: () => 'transitionToResigned()',
  maybeTransition: (leader: string | null, epoch: number) => `maybeTransition(leader=${leader}, epoch=${epoch})`,
  truncateTo: (offset: number) => `truncateTo(${offset})`,
  updateHighWatermark: (offset: number) => `updateHighWatermark(${offset})`,
} as const;

/** Why each call failed. */
export const why = {
  notAboveEpoch: (epoch: number, role: Role) => `not above the current epoch ${epoch} (${role})`,
  candidateIsLocal: () => 'the candidate is the local replica',
  leaderIsLocal: () => 'the leader is the local replica',
  epochIsLarger: (epoch: number) => `the current epoch ${epoch} is larger`,
  already: (role: Role, epoch: number) => `already ${role} in epoch ${epoch}`,
  isLeader: () => 'the replica is the leader',
  alreadyProspective: () => 'the replica is already Prospective',
  replicaIs: (role: Role) => `the replica is ${role}`,
  notProspectiveWithoutVote: (epoch: number) => `not a Prospective without a vote in epoch ${epoch}`,
  notProspective: (role: Role) => `the replica is ${role}, not Prospective`,
  votes: (role: Role, votes: number) => `the replica is ${role} with ${votes} votes`,
  inconsistentLeader: (leader: string | null, epoch: number) => `inconsistent with leader ${leader} in epoch ${epoch}`,
  belowHighWatermark: (hwm: number) => `below the high watermark ${hwm}`,
  nonMonotonicHighWatermark: (hwm: number) => `non-monotonic: the high watermark is ${hwm}`,
} as const;

/** The text `Replica.illegal` holds. */
export function reason(failedCall: string, because: string): string {
  return `${failedCall}: ${because}`;
}

/**
 * Every reason a model with this configuration can record: each call with each reason it gives, over
 * every epoch and offset the layout can hold and one beyond (a call may name the next epoch or offset),
 * every voter, role and vote count (`maxLogLength`: the longest log, layout.ts). The order is fixed by the configuration, so every process (and
 * worker) of a run gives a reason the same code.
 */
export function illegalReasons(cfg: KraftConfig, maxLogLength: number): string[] {
  const range = (n: number) => Array.from({ length: n + 1 }, (_, i) => i);
  const epochs = range(cfg.maxEpoch + 1);
  const offsets = range(maxLogLength + 1);
  const voters = cfg.voters;
  const leaders = [null, ...voters];
  const out: string[] = [];
  const add = (calls: readonly string[], reasons: readonly string[]) => {
    for (const c of calls) for (const r of reasons) out.push(reason(c, r));
  };
  const epochRole = (f: (e: number, role: Role) => string) => epochs.flatMap((e) => ROLES.map((role) => f(e, role)));
  const roleEpoch = (f: (role: Role, e: number) => string) => ROLES.flatMap((role) => epochs.map((e) => f(role, e)));
  const epochVoter = (f: (e: number, v: string) => string) => epochs.flatMap((e) => voters.map((v) => f(e, v)));
  const sameEpochReasons = [...epochs.map(why.epochIsLarger), ...roleEpoch(why.already)];

  add(epochs.map(call.transitionToUnattached), epochRole(why.notAboveEpoch));
  add(epochVoter(call.transitionToVoted), [why.candidateIsLocal(), ...sameEpochReasons]);
  add(epochVoter(call.transitionToFollower), [why.leaderIsLocal(), ...sameEpochReasons]);
  add([call.transitionToProspective()], [why.isLeader(), why.alreadyProspective()]);
  add([call.prospectiveTransitionAfterElectionLoss()], ROLES.map(why.replicaIs));
  add(epochVoter(call.prospectiveAddVotedState), [...ROLES.map(why.replicaIs), why.candidateIsLocal(), ...epochs.map(why.notProspectiveWithoutVote)]);
  add([call.transitionToCandidate()], ROLES.map(why.notProspective));
  add([call.transitionToLeader()], ROLES.flatMap((role) => range(voters.length).map((n) => why.votes(role, n))));
  add([call.transitionToResigned()], ROLES.map(why.replicaIs));
  add(
    leaders.flatMap((l) => epochs.map((e) => call.maybeTransition(l, e))),
    leaders.flatMap((l) => epochs.map((e) => why.inconsistentLeader(l, e))),
  );
  add(offsets.map(call.truncateTo), offsets.map(why.belowHighWatermark));
  add(offsets.map(call.updateHighWatermark), offsets.map(why.nonMonotonicHighWatermark));
  return out;
}
