import { test } from 'node:test';
import assert from 'node:assert/strict';
import { List, Map, Set, is } from 'immutable';
import spec, { configOf, initialState } from './kraft.ts';
import { settle } from './actions.ts';
import { type Msg, beginQuorumEpoch, fetchRequest, label, voteRequest } from './messages.ts';
import { Entry, type KraftState, Replica } from './state.ts';
import type { ParamValues } from '../spec.ts';
import { isPacked } from '../layout/index.ts';

const defaults = Object.fromEntries(spec.params.map((d) => [d.name, d.default])) as ParamValues;

/** A model of the spec with these parameters, and a way to take one named step in it. */
function modelOf(extra: ParamValues = {}) {
  const params = { ...defaults, maxResigns: 1, maxRestarts: 1, maxCrashes: 1, maxLosses: 1, maxConnectivityChanges: 2, ...extra };
  const model = spec.build(params);
  const init = [...model.init()][0]!;
  const enabled = (s: KraftState, name: string, p: object = {}) => {
    const a = model.actions.find((x) => x.name === name)!;
    return (a.enabled?.(s, p) ?? true) && (a.params === undefined || [...a.params(s)].some((q) => ('m' in q && 'm' in p ? is(q.m, p.m) : JSON.stringify(q) === JSON.stringify(p))));
  };
  const step = (s: KraftState, name: string, p: object = {}) => {
    assert.ok(enabled(s, name, p), `${name} ${JSON.stringify(p, (_k, v: unknown) => (isPacked(v) ? v.toJS() : v))} is enabled`);
    return model.actions.find((x) => x.name === name)!.next(s, p);
  };
  return { model, init, enabled, step };
}

const r = (s: KraftState, id: string) => s.replicas.get(id)!;
const net = (s: KraftState) => [...s.net].map((m) => `${m.from}->${m.to} ${label(m)}`).sort();
const only = (s: KraftState, type: Msg['type'], from: string, to: string) => [...s.net].find((m) => m.type === type && m.from === from && m.to === to)!;

test('the established initial state: the followers poll r1, whose caught-up fetches wait in the purgatory', () => {
  const { init, enabled } = modelOf();
  assert.deepEqual(net(init), ['r2->r1 Fetch e1 offset=2 lastEpoch=1', 'r3->r1 Fetch e1 offset=2 lastEpoch=1']);
  assert.equal(enabled(init, 'HandleFetchRequest', { s: 'r1', m: only(init, 'FetchRequest', 'r2', 'r1') }), false);
});

test('a client write is replicated by fetches, committed by the majority and then acknowledged', () => {
  const { init, step, enabled } = modelOf({ maxValues: 1 });
  let s = step(init, 'ClientRequest', { s: 'r1' });
  assert.ok(is(r(s, 'r1').log.last(), Entry({ epoch: 1, value: 'v1' })), `the leader appends (1, v1), got ${String(r(s, 'r1').log.last())}`);
  s = step(s, 'HandleFetchRequest', { s: 'r1', m: only(s, 'FetchRequest', 'r2', 'r1') });
  assert.deepEqual(net(s).filter((x) => x.startsWith('r1->r2')), ['r1->r2 FetchResp e1 hwm=2 entry=(1,v1)']);
  s = step(s, 'HandleFetchResponse', { s: 'r2', m: only(s, 'FetchResponse', 'r1', 'r2') });
  assert.equal(r(s, 'r2').log.size, 3);
  assert.ok(net(s).includes('r2->r1 Fetch e1 offset=3 lastEpoch=1'), 'the follower polls again at its new log end');
  s = step(s, 'HandleFetchRequest', { s: 'r1', m: only(s, 'FetchRequest', 'r2', 'r1') });
  assert.equal(r(s, 'r1').hwm, 3);
  assert.deepEqual([...s.acked].sort(), ['v0', 'v1']);
  s = step(s, 'HandleFetchResponse', { s: 'r2', m: only(s, 'FetchResponse', 'r1', 'r2') });
  assert.equal(r(s, 'r2').hwm, 3);
  assert.equal(enabled(s, 'ClientRequest', { s: 'r1' }), false, 'the value budget is spent');
});

test('ElectionTimeout of a Resigned leader: Prospective in its epoch (the JIRA era) or Unattached in the next (the fix)', () => {
  const era = modelOf();
  const resigned = era.step(era.init, 'CheckQuorumResign', { s: 'r1' });
  const p = era.step(resigned, 'ElectionTimeout', { s: 'r1' });
  assert.deepEqual([r(p, 'r1').role, r(p, 'r1').epoch, r(p, 'r1').leader], ['Prospective', 1, null]);
  assert.deepEqual([...r(p, 'r1').inflight.keys()].sort(), ['r2', 'r3']);
  assert.ok(net(p).includes('r1->r2 PreVote e1 last=(1,2)'), `the Prospective asks r2 for a pre-vote; in flight: ${net(p).join(', ')}`);

  const fix = modelOf({ resignedTimeout: 'unattached' });
  const u = fix.step(fix.step(fix.init, 'CheckQuorumResign', { s: 'r1' }), 'ElectionTimeout', { s: 'r1' });
  assert.deepEqual([r(u, 'r1').role, r(u, 'r1').epoch], ['Unattached', 2]);
  assert.equal(net(u).filter((x) => x.startsWith('r1->')).length, 0);
  const capped = modelOf({ resignedTimeout: 'unattached', maxEpoch: 1 });
  assert.equal(capped.enabled(capped.step(capped.init, 'CheckQuorumResign', { s: 'r1' }), 'ElectionTimeout', { s: 'r1' }), false);
});

test('each fix stops the JIRA history at the reply naming r1', () => {
  for (const [fix, extra] of [
    ['leaderIdNotSelf', { fourthCondition: 'leaderIdNotSelf' }],
    ['notProspective', { fourthCondition: 'notProspective' }],
  ] as const) {
    const { init, step } = modelOf(extra);
    let s = step(step(init, 'CheckQuorumResign', { s: 'r1' }), 'ElectionTimeout', { s: 'r1' });
    s = step(s, 'HandleVoteRequest', { s: 'r2', m: voteRequest('r1', 'r2', 1, true, 1, 2) });
    s = step(s, 'HandleVoteResponse', { s: 'r1', m: only(s, 'VoteResponse', 'r2', 'r1') });
    assert.deepEqual([r(s, 'r1').role, [...r(s, 'r1').votes]], ['Prospective', ['r1']], fix);
  }
});

test('KIP-996 as shipped: a follower that times out keeps its leader; a majority of rejections sends it back to that leader', () => {
  const { init, step } = modelOf({ prospective: 'kip996' });
  let s = step(init, 'FetchTimeout', { s: 'r2' });
  assert.deepEqual([r(s, 'r2').role, r(s, 'r2').leader, r(s, 'r2').epoch], ['Prospective', 'r1', 1]);
  s = step(s, 'HandleVoteRequest', { s: 'r3', m: voteRequest('r2', 'r3', 1, true, 1, 2) });
  s = step(s, 'HandleVoteResponse', { s: 'r2', m: only(s, 'VoteResponse', 'r3', 'r2') });
  assert.deepEqual([r(s, 'r2').role, [...r(s, 'r2').rejections]], ['Prospective', ['r3']], 'one rejection: a majority is still possible');
  s = step(s, 'HandleVoteRequest', { s: 'r1', m: voteRequest('r2', 'r1', 1, true, 1, 2) });
  s = step(s, 'HandleVoteResponse', { s: 'r2', m: only(s, 'VoteResponse', 'r1', 'r2') });
  assert.deepEqual([r(s, 'r2').role, r(s, 'r2').leader, r(s, 'r2').rejections.size], ['Follower', 'r1', 0]);
  assert.ok(net(s).includes('r2->r1 Fetch e1 offset=2 lastEpoch=1'), 'and polls its leader again');
});

test('KIP-996 as shipped: an election timeout ends the pre-vote (never Prospective again); the KAFKA-16281 era starts another', () => {
  const shipped = modelOf({ prospective: 'kip996' });
  const p = shipped.step(shipped.init, 'FetchTimeout', { s: 'r2' });
  const back = shipped.step(p, 'ElectionTimeout', { s: 'r2' });
  assert.deepEqual([r(back, 'r2').role, r(back, 'r2').leader], ['Follower', 'r1']);
  const era = modelOf();
  const again = era.step(era.step(era.init, 'FetchTimeout', { s: 'r2' }), 'ElectionTimeout', { s: 'r2' });
  assert.deepEqual([r(again, 'r2').role, r(again, 'r2').leader], ['Prospective', null]);
});

test('KIP-996 as shipped: a Prospective that knows no leader grants a standard vote and stays Prospective', () => {
  const { init, step } = modelOf({ prospective: 'kip996' });
  const req = voteRequest('r3', 'r2', 2, false, 1, 2);
  const s = settle(
    init
      .setIn(['replicas', 'r2'], Replica({ role: 'Prospective', epoch: 2, votes: Set(['r2']), log: r(init, 'r2').log }))
      .setIn(['replicas', 'r3'], Replica({ role: 'Candidate', epoch: 2, votedFor: 'r3', votes: Set(['r3']), log: r(init, 'r3').log, inflight: Map([['r2', req]]) }))
      .set('net', Set<Msg>([req])),
  );
  const t = step(s, 'HandleVoteRequest', { s: 'r2', m: req });
  assert.ok(net(t).includes('r2->r3 VoteResp e2 granted'), `the Prospective r2 grants r3 its vote; in flight: ${net(t).join(', ')}`);
  assert.deepEqual([r(t, 'r2').role, r(t, 'r2').votedFor], ['Prospective', 'r3']);
  const era = modelOf();
  assert.ok(net(era.step(s, 'HandleVoteRequest', { s: 'r2', m: req })).includes('r2->r3 VoteResp e2 denied'), 'the KAFKA-16281 era denies');
});

test('pre-vote grants: a follower that fetched denies and names its leader; one that has not fetched grants; a leader denies', () => {
  const { init, step } = modelOf();
  let s = step(init, 'FetchTimeout', { s: 'r2' });
  s = step(s, 'HandleVoteRequest', { s: 'r3', m: voteRequest('r2', 'r3', 1, true, 1, 2) });
  s = step(s, 'HandleVoteRequest', { s: 'r1', m: voteRequest('r2', 'r1', 1, true, 1, 2) });
  assert.deepEqual(net(s).filter((x) => x.includes('PreVoteResp')), ['r1->r2 PreVoteResp e1 denied leader=r1', 'r3->r2 PreVoteResp e1 denied leader=r1']);
  const fresh = s.setIn(['replicas', 'r3', 'fetched'], false).set('net', Set<Msg>([voteRequest('r2', 'r3', 1, true, 1, 2)]));
  const granted = step(fresh, 'HandleVoteRequest', { s: 'r3', m: voteRequest('r2', 'r3', 1, true, 1, 2) });
  assert.ok(net(granted).includes('r3->r2 PreVoteResp e1 granted leader=r1'), `r3, which has not fetched, grants the pre-vote; in flight: ${net(granted).join(', ')}`);
});

test('a real vote of a newer epoch makes the voter Unattached then Voted; a stale candidate is fenced', () => {
  const { init, step } = modelOf();
  const req = voteRequest('r2', 'r3', 2, false, 1, 2);
  const s = settle(init.setIn(['replicas', 'r2'], Replica({ role: 'Candidate', epoch: 2, votedFor: 'r2', votes: Set(['r2']), log: r(init, 'r2').log, inflight: Map([['r3', req]]) })).set('net', init.net.add(req)));
  const voted = step(s, 'HandleVoteRequest', { s: 'r3', m: req });
  assert.deepEqual([r(voted, 'r3').role, r(voted, 'r3').epoch, r(voted, 'r3').votedFor], ['Voted', 2, 'r2']);
  assert.ok(net(voted).includes('r3->r2 VoteResp e2 granted'), `r3 grants r2 its vote; in flight: ${net(voted).join(', ')}`);
  const stale = voteRequest('r2', 'r3', 1, false, 1, 2);
  const fenced = step(voted.set('net', voted.net.add(stale)).setIn(['replicas', 'r2', 'inflight'], Map([['r3', stale]])), 'HandleVoteRequest', { s: 'r3', m: stale });
  assert.ok(net(fenced).includes('r3->r2 VoteResp e2 denied FENCED_LEADER_EPOCH'), `r3 fences the stale candidate; in flight: ${net(fenced).join(', ')}`);
});

/** r2 leads epoch 2 without r1's uncommitted entry (1, v1); r1 follows r2 and fetches at offset 3. */
function divergedFollower(r1hwm: number): KraftState {
  const { init } = modelOf();
  const base = List([Entry({ epoch: 1, value: null }), Entry({ epoch: 1, value: 'v0' })]);
  return settle(
    init.set(
      'replicas',
      Map([
        ['r1', Replica({ role: 'Follower', epoch: 2, leader: 'r2', log: base.push(Entry({ epoch: 1, value: 'v1' })), hwm: r1hwm })],
        ['r2', Replica({ role: 'Leader', epoch: 2, leader: 'r2', votedFor: 'r2', log: base.push(Entry({ epoch: 2, value: null })), hwm: 2 })],
        ['r3', Replica({ role: 'Follower', epoch: 2, leader: 'r2', log: base, hwm: 2 })],
      ]),
    ).set('net', Set()),
  );
}

test('a diverging fetch is answered with the end of the epoch on the leader, and the follower truncates to it', () => {
  const { step } = modelOf();
  let s = divergedFollower(2);
  assert.ok(net(s).includes('r1->r2 Fetch e2 offset=3 lastEpoch=1'), `r1 fetches from r2 past the end of its epoch; in flight: ${net(s).join(', ')}`);
  s = step(s, 'HandleFetchRequest', { s: 'r2', m: fetchRequest('r1', 'r2', 2, 3, 1) });
  assert.ok(net(s).includes('r2->r1 FetchResp e2 diverging=(1,2)'), `r2 answers with the end of epoch 1; in flight: ${net(s).join(', ')}`);
  s = step(s, 'HandleFetchResponse', { s: 'r1', m: only(s, 'FetchResponse', 'r2', 'r1') });
  assert.deepEqual(r(s, 'r1').log.map((e) => e.value).toArray(), [null, 'v0']);
  assert.ok(net(s).includes('r1->r2 Fetch e2 offset=2 lastEpoch=1'), 'and fetches again from the common point');
});

test('truncating below the high watermark is an IllegalState (ReplicatedLog.truncateTo refuses)', () => {
  const { step } = modelOf();
  let s = step(divergedFollower(3), 'HandleFetchRequest', { s: 'r2', m: fetchRequest('r1', 'r2', 2, 3, 1) });
  s = step(s, 'HandleFetchResponse', { s: 'r1', m: only(s, 'FetchResponse', 'r2', 'r1') });
  assert.deepEqual([r(s, 'r1').role, r(s, 'r1').illegal], ['IllegalState', 'truncateTo(2): below the high watermark 3']);
});

test('fetch errors: a resigned leader answers NOT_LEADER_OR_FOLLOWER naming itself, which its follower takes in stride', () => {
  const { init, step } = modelOf();
  let s = step(init, 'CheckQuorumResign', { s: 'r1' });
  s = step(s, 'HandleFetchRequest', { s: 'r1', m: only(s, 'FetchRequest', 'r2', 'r1') });
  assert.ok(net(s).includes('r1->r2 FetchResp e1 NOT_LEADER_OR_FOLLOWER leader=r1'), `the resigned leader answers naming itself; in flight: ${net(s).join(', ')}`);
  s = step(s, 'HandleFetchResponse', { s: 'r2', m: only(s, 'FetchResponse', 'r1', 'r2') });
  assert.deepEqual([r(s, 'r2').role, r(s, 'r2').leader], ['Follower', 'r1']);
});

test('RestartWithState: a leader comes back Resigned with its log, without its high watermark; connections to it break', () => {
  const { init, step } = modelOf();
  const s = step(init, 'RestartWithState', { s: 'r1' });
  assert.deepEqual([r(s, 'r1').role, r(s, 'r1').epoch, r(s, 'r1').leader, r(s, 'r1').log.size, r(s, 'r1').hwm], ['Resigned', 1, 'r1', 2, 0]);
  assert.equal(r(s, 'r1').endOffsets.size, 0);
  assert.equal(s.restarts, 1);
  const follower = step(init, 'RestartWithState', { s: 'r2' });
  assert.deepEqual([r(follower, 'r2').role, r(follower, 'r2').leader, r(follower, 'r2').fetched, r(follower, 'r2').hwm], ['Follower', 'r1', false, 0]);
});

test('CrashLoseState: the voter is gone with its disk and messages; a majority always stays up', () => {
  const { init, step, enabled } = modelOf({ maxCrashes: 2 });
  const s = step(init, 'CrashLoseState', { s: 'r3' });
  assert.equal(r(s, 'r3').role, 'Dead');
  assert.deepEqual(net(s), ['r2->r1 Fetch e1 offset=2 lastEpoch=1']);
  assert.equal(enabled(s, 'CrashLoseState', { s: 'r2' }), false);
});

test('DropMessage: a lost fetch is retried at once; a lost pre-vote is not', () => {
  const { init, step } = modelOf();
  const lostFetch = step(init, 'DropMessage', { m: only(init, 'FetchRequest', 'r2', 'r1') });
  assert.deepEqual(net(lostFetch), net(init));
  assert.equal(lostFetch.losses, 1);
  const p = step(init, 'FetchTimeout', { s: 'r2' });
  const lostVote = step(p, 'DropMessage', { m: voteRequest('r2', 'r3', 1, true, 1, 2) });
  assert.deepEqual([...r(lostVote, 'r2').inflight.keys()], ['r1']);
  assert.ok(!net(lostVote).includes('r2->r3 PreVote e1 last=(1,2)'), `the lost pre-vote is not sent again; in flight: ${net(lostVote).join(', ')}`);
});

test('ChangeConnectivity: a cut link loses what is in flight on it and carries nothing until it heals', () => {
  const { init, step } = modelOf();
  const cut = step(init, 'ChangeConnectivity', { a: 'r1', b: 'r2' });
  assert.deepEqual(net(cut), ['r3->r1 Fetch e1 offset=2 lastEpoch=1']);
  assert.equal(r(cut, 'r2').inflight.size, 0);
  const healed = step(cut, 'ChangeConnectivity', { a: 'r1', b: 'r2' });
  assert.deepEqual(net(healed), net(init));
});

test('the nudge: a leader re-sends BeginQuorumEpoch, which turns a Prospective of its epoch into its follower', () => {
  const plain = modelOf();
  assert.equal(plain.model.actions.find((a) => a.name === 'ResendBeginQuorumEpoch')?.disabledBy, 'nudge = false');
  const { init, step } = modelOf({ nudge: true, fourthCondition: 'notProspective' });
  let s = step(init, 'FetchTimeout', { s: 'r2' });
  s = step(s, 'ResendBeginQuorumEpoch', { s: 'r1', t: 'r2' });
  s = step(s, 'HandleBeginQuorumEpoch', { s: 'r2', m: beginQuorumEpoch('r1', 'r2', 1) });
  assert.deepEqual([r(s, 'r2').role, r(s, 'r2').leader], ['Follower', 'r1']);
});

test('the planted double vote: a Voted replica grants a second candidate of its epoch', () => {
  const { init, step } = modelOf({ bug: 'doubleVote' });
  const req = voteRequest('r3', 'r1', 2, false, 1, 2);
  const s = settle(
    init
      .setIn(['replicas', 'r1'], Replica({ role: 'Voted', epoch: 2, votedFor: 'r2', log: r(init, 'r1').log }))
      .setIn(['replicas', 'r3'], Replica({ role: 'Candidate', epoch: 2, votedFor: 'r3', votes: Set(['r3']), log: r(init, 'r3').log, inflight: Map([['r1', req]]) }))
      .set('net', Set<Msg>([req])),
  );
  const t = step(s, 'HandleVoteRequest', { s: 'r1', m: req });
  assert.ok(net(t).includes('r1->r3 VoteResp e2 granted'), `the Voted r1 grants r3 a second vote; in flight: ${net(t).join(', ')}`);
  assert.equal(r(t, 'r1').votedFor, 'r2');
});

test('initial states: fresh is every voter Unattached in epoch 0; symmetry covers all voters there, the followers otherwise', () => {
  const fresh = initialState(configOf({ ...defaults, init: 'fresh', voters: 5 }));
  assert.deepEqual([...fresh.replicas.values()].map((x) => [x.role, x.epoch]), Array(5).fill(['Unattached', 0]));
  assert.deepEqual(spec.build({ ...defaults, init: 'fresh' }).symmetry, [['r1', 'r2', 'r3']]);
  assert.deepEqual(spec.build(defaults).symmetry, [['r2', 'r3']]);
});

test('a fault or timer with a zero budget, and the nudge when off, are disabled by parameters (never run, reported as such)', () => {
  const disabled = (extra: ParamValues) => modelOf(extra).model.actions.filter((a) => a.disabledBy !== undefined).map((a) => [a.name, a.disabledBy]);
  const all = [
    'CheckQuorumResign',
    'RestartWithState',
    'CrashLoseState',
    'ElectionTimeout',
    'FetchTimeout',
    'HandleVoteRequest',
    'HandleVoteResponse',
    'HandleBeginQuorumEpoch',
    'ResendBeginQuorumEpoch',
    'ClientRequest',
    'HandleFetchRequest',
    'HandleFetchResponse',
    'DropMessage',
    'ChangeConnectivity',
  ];
  assert.deepEqual(modelOf().model.actions.map((a) => a.name), all, 'every instance has the same actions');
  assert.deepEqual(disabled({ maxRestarts: 0, maxCrashes: 0, maxLosses: 0, maxConnectivityChanges: 0, maxValues: 0 }), [
    ['RestartWithState', 'maxRestarts = 0'],
    ['CrashLoseState', 'maxCrashes = 0'],
    ['ResendBeginQuorumEpoch', 'nudge = false'],
    ['ClientRequest', 'maxValues = 0'],
    ['DropMessage', 'maxLosses = 0'],
    ['ChangeConnectivity', 'maxConnectivityChanges = 0'],
  ]);
  assert.deepEqual(disabled({ nudge: true }), []);
});
