import { test } from 'node:test';
import assert from 'node:assert/strict';
import { List, Set } from 'immutable';
import { kraftProperties, validRolesAndStates } from './properties.ts';
import spec, { configOf, initialState } from './kraft.ts';
import { Entry, type KraftState, Replica } from './state.ts';
import { voteRequest, voteResponse } from './messages.ts';

const defaults = Object.fromEntries(spec.params.map((p) => [p.name, p.default]));
const established = (): KraftState => initialState(configOf(defaults));
const fresh = (): KraftState => initialState(configOf({ ...defaults, init: 'fresh' }));
const props = kraftProperties({ initialLeaderEpoch: 1, values: true, resignations: true, electionTimeouts: true, prospectiveKeepsLeader: true, resignedProspective: true, crashes: true, losses: true, cuts: true }, 2);
/** Without crashes, CommittedOnMajority is checked too. */
const withoutCrashes = kraftProperties({ initialLeaderEpoch: 1, values: true, resignations: true, electionTimeouts: true, prospectiveKeepsLeader: true, resignedProspective: true, crashes: false, losses: true, cuts: true }, 2);
const holds = (name: string, s: KraftState): boolean => (props.find((p) => p.name === name) ?? withoutCrashes.find((p) => p.name === name)!).test(s);
const edit = (s: KraftState, id: string, f: (r: Replica) => Replica): KraftState => s.setIn(['replicas', id], f(s.replicas.get(id)!));

const LC1 = Entry({ epoch: 1, value: null });
const V0 = Entry({ epoch: 1, value: 'v0' });

test('the established and the fresh initial states satisfy every invariant and no witness', () => {
  for (const s of [established(), fresh()]) {
    for (const p of props.filter((q) => q.kind !== 'everyStep')) assert.equal(p.test(s), p.kind === 'always', p.name);
  }
});

test('EpochNeverDecreases: a step that takes a running voter back to an epoch it held before breaks it; losing the disk does not', () => {
  const step = props.find((p) => p.name === 'EpochNeverDecreases')!.step!;
  const s = established();
  const [first] = [...s.replicas.keys()];
  const later = edit(s, first!, (r) => r.set('epoch', r.epoch + 1));
  assert.equal(step(s, later), true, 'the epoch goes up');
  assert.equal(step(later, s), false, 'the epoch goes back (a restart that forgot its quorum state)');
  assert.equal(step(later, edit(later, first!, () => Replica({ role: 'Dead' }))), true, 'a voter that lost its disk stays down, its epoch left behind');
  assert.equal(step(s, s), true);
});

test('every property is declared symmetric', () => {
  assert.deepEqual(props.filter((p) => !p.symmetric).map((p) => p.name), []);
});

test('witnesses of features whose budget is zero are left out', () => {
  const names = kraftProperties({ initialLeaderEpoch: 0, values: false, resignations: false, electionTimeouts: true, prospectiveKeepsLeader: false, resignedProspective: true, crashes: false, losses: false, cuts: false }, 2).map((p) => p.name);
  assert.ok(!names.includes('ValueCommitted') && !names.includes('LeaderResigned'), `no witness of values or resignations; got ${names.join(', ')}`);
  assert.ok(names.includes('LeaderElected') && names.includes('PreVoteRejectedWithKnownLeader'), `the election witnesses stay; got ${names.join(', ')}`);
});

test('NoIllegalState: the sink state is a violation', () => {
  const bad = edit(established(), 'r1', (r) => r.set('role', 'IllegalState').set('illegal', 'transitionToFollower(epoch=1, leader=r1)'));
  assert.equal(holds('NoIllegalState', bad), false);
  assert.equal(holds('NoIllegalState', edit(established(), 'r1', (r) => r.set('role', 'Resigned'))), true);
});

test('NoFollowerOfSelf: a follower of itself is a violation, a follower of another is not', () => {
  const self = edit(established(), 'r2', (r) => r.set('leader', 'r2'));
  assert.equal(holds('NoFollowerOfSelf', self), false);
  assert.equal(holds('NoFollowerOfSelf', established()), true);
});

test('ElectionSafety: two leaders named for one epoch is a violation; different epochs or a dead replica are not', () => {
  const twoLeaders = edit(established(), 'r2', (r) => r.merge({ role: 'Leader', leader: 'r2', fetched: false }));
  assert.equal(holds('ElectionSafety', twoLeaders), false);
  const followerDisagrees = edit(established(), 'r3', (r) => r.set('leader', 'r2'));
  assert.equal(holds('ElectionSafety', followerDisagrees), false);
  const nextEpoch = edit(established(), 'r2', (r) => r.merge({ role: 'Leader', leader: 'r2', epoch: 2, fetched: false }));
  assert.equal(holds('ElectionSafety', nextEpoch), true);
  assert.equal(holds('ElectionSafety', edit(established(), 'r2', () => Replica({ role: 'Dead' }))), true);
});

test('LogMatching: equal epochs at an offset force equal prefixes', () => {
  const other = edit(established(), 'r2', (r) => r.set('log', List([LC1, Entry({ epoch: 1, value: 'vX' })])).set('hwm', 1));
  assert.equal(holds('LogMatching', other), false);
  const prefixDiffers = edit(established(), 'r2', (r) => r.set('log', List([Entry({ epoch: 1, value: 'vX' }), V0])).set('hwm', 0));
  assert.equal(holds('LogMatching', prefixDiffers), false);
  const newerEpoch = edit(established(), 'r2', (r) => r.set('log', List([LC1, Entry({ epoch: 2, value: null })])).set('hwm', 1));
  assert.equal(holds('LogMatching', newerEpoch), true);
  const shorter = edit(established(), 'r2', (r) => r.set('log', List([LC1])).set('hwm', 1));
  assert.equal(holds('LogMatching', shorter), true);
});

test('NoLogDivergence: logs differing below both high watermarks is a violation, above them is not', () => {
  const log = List([LC1, Entry({ epoch: 2, value: null })]);
  assert.equal(holds('NoLogDivergence', edit(established(), 'r2', (r) => r.set('log', log))), false);
  assert.equal(holds('NoLogDivergence', edit(established(), 'r2', (r) => r.set('log', log).set('hwm', 1))), true);
});

test('LeaderCompleteness: a current leader must hold the acknowledged values; a stale one need not', () => {
  const s = edit(established(), 'r1', (r) => r.merge({ role: 'Follower', leader: 'r2', epoch: 2, endOffsets: r.endOffsets.clear() }));
  const lacking = edit(s, 'r2', (r) => r.merge({ role: 'Leader', leader: 'r2', epoch: 2, log: List([LC1]), hwm: 1, fetched: false }));
  assert.equal(holds('LeaderCompleteness', lacking), false);
  const stale = edit(lacking, 'r3', (r) => r.merge({ role: 'Unattached', leader: null, epoch: 3, fetched: false }));
  assert.equal(holds('LeaderCompleteness', stale), true);
  assert.equal(holds('LeaderCompleteness', established()), true);
});

test('LeaderHoldsCommitted: a leader extends the committed prefix of every replica not ahead of its epoch, read from logs', () => {
  // r2 leads epoch 2 without v0, which r3 (epoch 1) holds below its high watermark: no acknowledgement needed.
  const s = edit(established().set('acked', Set()), 'r1', (r) => r.merge({ role: 'Follower', leader: 'r2', epoch: 2, endOffsets: r.endOffsets.clear() }));
  const lacking = edit(s, 'r2', (r) => r.merge({ role: 'Leader', leader: 'r2', epoch: 2, log: List([LC1]), hwm: 1, fetched: false }));
  assert.equal(holds('LeaderHoldsCommitted', lacking), false);
  assert.equal(holds('LeaderHoldsCommitted', edit(lacking, 'r3', (r) => r.set('hwm', 1))), false, 'r1 (epoch 2) still has hwm 2');
  const newer = edit(edit(lacking, 'r3', (r) => r.set('epoch', 3)), 'r1', (r) => r.set('epoch', 3));
  assert.equal(holds('LeaderHoldsCommitted', newer), true, 'replicas ahead of the leader are not its business');
  assert.equal(holds('LeaderHoldsCommitted', established()), true);
});

test('CommittedOnMajority: entries below a leader high watermark are on a majority of logs, whatever the leader recorded', () => {
  let s = established();
  assert.equal(holds('CommittedOnMajority', s), true);
  s = edit(s, 'r2', (r) => r.set('log', List([LC1, Entry({ epoch: 1, value: 'vX' })])).set('hwm', 1));
  assert.equal(holds('CommittedOnMajority', s), true, 'r1 and r3 hold [LC1, v0]');
  s = edit(s, 'r3', (r) => r.set('log', List([LC1])).set('hwm', 1));
  assert.equal(holds('CommittedOnMajority', s), false, 'only r1 holds v0 at offset 1');
  assert.equal(holds('CommittedOnMajority', edit(s, 'r1', (r) => r.set('hwm', 1))), true);
});

test('HighWatermarkWithinLog: a high watermark past the log end is a violation', () => {
  assert.equal(holds('HighWatermarkWithinLog', edit(established(), 'r2', (r) => r.set('hwm', 3))), false);
  assert.equal(holds('HighWatermarkWithinLog', established()), true);
});

test('AckedValueNotLost: an acknowledged value must stay on a disk that was not lost', () => {
  let s = established();
  for (const id of ['r2', 'r3']) s = edit(s, id, (r) => r.set('log', List([LC1])).set('hwm', 1));
  assert.equal(holds('AckedValueNotLost', s), true);
  assert.equal(holds('AckedValueNotLost', edit(s, 'r1', () => Replica({ role: 'Dead' }))), false);
});

test('ValidRolesAndStates: each state carries only its own data', () => {
  const cases: [string, (r: Replica) => Replica][] = [
    ['Unattached with a leader', (r) => r.merge({ role: 'Unattached', leader: 'r1', fetched: false })],
    ['Voted for itself', (r) => r.merge({ role: 'Voted', leader: null, votedFor: 'r2', fetched: false })],
    ['Prospective without its own vote', (r) => r.merge({ role: 'Prospective', leader: null, votes: Set(['r3']), fetched: false })],
    ['Candidate not voting for itself', (r) => r.merge({ role: 'Candidate', leader: null, votes: Set(['r2']), votedFor: 'r1', fetched: false })],
    ['votes outside an election', (r) => r.set('votes', Set(['r2']))],
    ['fetched flag on a non-follower', (r) => r.merge({ role: 'Unattached', leader: null })],
    ['follower offsets on a non-leader', (r) => r.set('endOffsets', r.endOffsets.set('r1', 1))],
  ];
  for (const [what, f] of cases) assert.equal(holds('ValidRolesAndStates', edit(established(), 'r2', f)), false, what);
  const prospective = edit(established(), 'r2', (r) => r.merge({ role: 'Prospective', leader: null, votes: Set(['r2']), fetched: false }));
  assert.equal(holds('ValidRolesAndStates', prospective), true);
});

test('witnesses: a new leader, a client value acknowledged, a pre-vote denied naming a leader, a resignation', () => {
  const elected = edit(established(), 'r2', (r) => r.merge({ role: 'Leader', leader: 'r2', epoch: 2, fetched: false }));
  assert.equal(holds('LeaderElected', elected), true);
  assert.equal(holds('ValueCommitted', established().set('acked', Set(['v0', 'v1']))), true);
  assert.equal(holds('LeaderResigned', edit(established(), 'r1', (r) => r.set('role', 'Resigned'))), true);
  const req = voteRequest('r1', 'r2', 1, true, 1, 2);
  const denied = voteResponse(req, 1, 'r1', false);
  assert.equal(holds('PreVoteRejectedWithKnownLeader', established().set('net', Set([denied]))), true);
  const fenced = voteResponse(req, 2, 'r3', false, 'FENCED_LEADER_EPOCH');
  assert.equal(holds('PreVoteRejectedWithKnownLeader', established().set('net', Set([fenced]))), false);
  const noLeader = voteResponse(req, 1, null, false);
  assert.equal(holds('PreVoteRejectedWithKnownLeader', established().set('net', Set([noLeader]))), false);
});

test('witnesses of each fix: a pre-vote to its own follower, a reply naming the requester, a reply naming the known leader', () => {
  const toFollower = voteRequest('r1', 'r2', 1, true, 1, 2);
  const s = established().set('net', Set([toFollower]));
  assert.equal(holds('PreVoteToOwnFollower', s), true);
  assert.equal(holds('PreVoteToOwnFollower', edit(s, 'r2', (r) => r.merge({ role: 'Unattached', leader: null, epoch: 2, fetched: false }))), false);
  assert.equal(holds('PreVoteToOwnFollower', established().set('net', Set([voteRequest('r3', 'r2', 1, true, 1, 2)]))), false);

  const namesRequester = voteResponse(toFollower, 1, 'r1', false);
  assert.equal(holds('PreVoteReplyNamesRequester', established().set('net', Set([namesRequester]))), true);
  const namesOther = voteResponse(voteRequest('r2', 'r3', 1, true, 1, 2), 1, 'r1', false);
  assert.equal(holds('PreVoteReplyNamesRequester', established().set('net', Set([namesOther]))), false);

  const prospective = edit(established(), 'r2', (r) => r.merge({ role: 'Prospective', leader: 'r1', votes: Set(['r2']), fetched: false }));
  assert.equal(holds('PreVoteReplyNamesKnownLeader', prospective.set('net', Set([namesOther]))), true);
  const toR3 = voteResponse(voteRequest('r3', 'r2', 1, true, 1, 2), 1, 'r1', false);
  assert.equal(holds('PreVoteReplyNamesKnownLeader', prospective.set('net', Set([toR3]))), false, 'r3 is not Prospective');
  const otherLeader = voteResponse(voteRequest('r2', 'r3', 1, true, 1, 2), 1, 'r3', false);
  assert.equal(holds('PreVoteReplyNamesKnownLeader', prospective.set('net', Set([otherLeader]))), false, 'not the leader r2 knows');
});

test('fault witnesses: a new leader while a voter lost its disk, after a lost message, while a link is cut', () => {
  const elected = edit(established(), 'r2', (r) => r.merge({ role: 'Leader', leader: 'r2', epoch: 2, fetched: false }));
  assert.equal(holds('LeaderElectedAfterDiskLoss', elected), false);
  assert.equal(holds('LeaderElectedAfterDiskLoss', edit(elected, 'r3', () => Replica({ role: 'Dead' }))), true);
  assert.equal(holds('LeaderElectedAfterLoss', elected.set('losses', 1)), true);
  assert.equal(holds('LeaderElectedAfterLoss', established().set('losses', 1)), false);
  assert.equal(holds('LeaderElectedWhileLinkCut', elected.set('cut', Set([Set(['r1', 'r3'])]))), true);
});

test('ValidRolesAndStates: a Prospective may know a leader, and keep rejections, only under the shipped KIP-996 rules', () => {
  const knows = edit(established(), 'r2', (r) => r.merge({ role: 'Prospective', leader: 'r1', votes: Set(['r2']), rejections: Set(['r3']), fetched: false }));
  assert.equal(validRolesAndStates(knows, true), true);
  assert.equal(validRolesAndStates(knows, false), false);
  assert.equal(validRolesAndStates(edit(knows, 'r2', (r) => r.set('leader', 'r2')), true), false, 'never itself');
  assert.equal(validRolesAndStates(edit(knows, 'r2', (r) => r.set('rejections', Set(['r2']))), true), false, 'a voter both granted and rejected');
  const ownVote = edit(established(), 'r2', (r) => r.merge({ role: 'Unattached', leader: null, votedFor: 'r2', epoch: 2, fetched: false }));
  assert.equal(validRolesAndStates(ownVote, true), true);
  assert.equal(validRolesAndStates(ownVote, false), false);
});
