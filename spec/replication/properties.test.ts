import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Set } from 'immutable';
import type { ParamValues } from '../spec.ts';
import { configOf } from './replication.ts';
import { type Log, NO_LEADER, type ReplicationState } from './state.ts';
import { replicationProperties, withinTolerance } from './properties.ts';
import { uncleanElectionAllowed } from './controller.ts';

// Hand-built states spend fault budgets beyond the default ones: their layout has room for them.
const layout = configOf({ values: 2, maxUncleanShutdowns: 3, maxEmptyDisks: 2, maxPartitions: 1 }).layout;
const log = (...entries: [epoch: number, value: number][]): Log => layout.Log.from(entries.map(([epoch, value]) => ({ epoch, value })));

function state(opts: {
  logs: Log[];
  isr?: number[];
  elr?: number[];
  fenced?: number[];
  acked?: number[];
  committed?: Log;
  unclean?: boolean;
}): ReplicationState {
  return layout.State.from({
    brokers: opts.logs.map((l, b) => [b, { running: true, log: l, hw: 0, view: null, cleanShutdownFile: false }] as const),
    partition: { leader: 0, leaderEpoch: 1, isr: opts.isr ?? [0, 1, 2], elr: opts.elr ?? [] },
    fenced: opts.fenced ?? [],
    ghost: { acked: opts.acked ?? [], committed: opts.committed ?? [], uncleanElection: opts.unclean ?? false },
  });
}

function holds(name: string, s: ReplicationState, params: ParamValues = {}): boolean {
  const p = replicationProperties(configOf(params)).find((x) => x.name === name);
  assert.ok(p, `no property ${name}`);
  return p.test(s);
}

const lost = state({ logs: [log(), log(), log()], acked: [1] });
const kept = state({ logs: [log(), log([1, 1]), log()], acked: [1] });

test('NoAckedRecordLost: an acked record on no log breaks it, on any log (running or not) keeps it', () => {
  assert.equal(holds('NoAckedRecordLost', lost), false);
  assert.equal(holds('NoAckedRecordLost', kept), true);
  assert.equal(holds('NoAckedRecordLost', kept.setIn(['brokers', 1, 'running'], false)), true);
});

test('NoAckedRecordLost is excused by an unclean election and by min.insync.replicas data-loss failures', () => {
  assert.equal(holds('NoAckedRecordLost', lost.setIn(['ghost', 'uncleanElection'], true)), true);
  assert.equal(holds('NoAckedRecordLost', lost.setIn(['faults', 'dataLossShutdowns'], 1)), false, 'one failure is within min.isr 2');
  assert.equal(holds('NoAckedRecordLost', lost.setIn(['faults', 'dataLossShutdowns'], 1).setIn(['faults', 'emptyDisks'], 1)), true);
  assert.equal(holds('NoAckedRecordLost', lost.setIn(['faults', 'dataLossShutdowns'], 1), { minIsr: 1 }), true);
});

test('isolations count against the tolerance only in the KIP-250 reading', () => {
  const isolated = lost.setIn(['faults', 'isolations'], 2);
  assert.equal(withinTolerance(isolated, configOf({})), true);
  assert.equal(withinTolerance(isolated, configOf({ countIsolations: true })), false);
  assert.equal(holds('NoAckedRecordLost', isolated, { countIsolations: true }), true);
  assert.equal(holds('NoAckedRecordLost', lost.setIn(['faults', 'uncleanShutdowns'], 3)), false, 'lossless unclean shutdowns do not count');
});

test('NoAckedRecordLostEvenUnclean is not excused by an unclean election', () => {
  assert.equal(holds('NoAckedRecordLostEvenUnclean', lost.setIn(['ghost', 'uncleanElection'], true)), false);
  assert.equal(holds('NoAckedRecordLostEvenUnclean', kept.setIn(['ghost', 'uncleanElection'], true)), true);
  assert.equal(holds('NoAckedRecordLostEvenUnclean', lost.setIn(['faults', 'emptyDisks'], 2)), true);
});

test('ElrMembersHoldCommitted: every unfenced ISR/ELR member holds the committed prefix; fenced ones are not candidates', () => {
  const committed = log([1, 1]);
  const s = state({ logs: [log([1, 1]), log(), log([1, 1])], isr: [0], elr: [1], committed });
  assert.equal(holds('ElrMembersHoldCommitted', s), false);
  assert.equal(holds('ElrMembersHoldCommitted', s.set('fenced', [1])), true);
  assert.equal(holds('ElrMembersHoldCommitted', s.setIn(['partition', 'elr'], Set([2]))), true);
  assert.equal(holds('ElrMembersHoldCommitted', s.setIn(['ghost', 'uncleanElection'], true)), true);
  assert.equal(
    replicationProperties(configOf({ elr: false, strictHwm: false })).some((p) => p.name === 'ElrMembersHoldCommitted'),
    false,
    'a KIP-966 claim, checked only with the ELR and the strict high watermark',
  );
});

test('the sticky ghost flags each break exactly their property', () => {
  const flags: [flag: string, property: string][] = [
    ['committedTruncated', 'TruncationKeepsCommitted'],
    ['committedRewritten', 'CommittedPrefixNeverShrinks'],
    ['cleanElectionOutside', 'CleanElectionsChooseIsrOrElr'],
    ['ackBelowMinIsr', 'AckImpliesMinIsrCopies'],
    ['uncleanOutsideStrategy', 'UncleanOnlyWhenStrategyAllows'],
  ];
  const base = state({ logs: [log(), log(), log()] });
  const always = replicationProperties(configOf({})).filter((p) => p.kind === 'always');
  assert.deepEqual(always.filter((p) => !p.test(base)).map((p) => p.name), [], 'the base state breaks no property');
  for (const [flag, property] of flags) {
    const s = base.setIn(['ghost', flag], true);
    assert.deepEqual(always.filter((p) => !p.test(s)).map((p) => p.name), [property], flag);
  }
  assert.equal(holds('CommittedPrefixNeverShrinks', base.setIn(['ghost', 'committedRewritten'], true).setIn(['ghost', 'uncleanElection'], true)), true);
});

test('uncleanElectionAllowed follows the strategy definitions (KIP-966 thread, Calvin Liu)', () => {
  const p = (isr: number[], elr: number[]) => layout.Partition.from({ leader: NO_LEADER, isr, elr });
  const fenced = 0b10;
  const allowed = (params: ParamValues, isr: number[], elr: number[]) => uncleanElectionAllowed(configOf(params), p(isr, elr), fenced);
  assert.equal(allowed({ strategy: 'None' }, [], []), false);
  assert.equal(allowed({ strategy: 'Balanced' }, [], []), true);
  assert.equal(allowed({ strategy: 'Balanced' }, [], [1]), false);
  assert.equal(allowed({ strategy: 'Aggressive' }, [], [1]), true, 'the ELR member is fenced');
  assert.equal(allowed({ strategy: 'Aggressive' }, [], [2]), false);
  assert.equal(uncleanElectionAllowed(configOf({ strategy: 'Aggressive' }), p([], [2]), 0b110), true, 'a broker in controlled shutdown cannot lead either');
  assert.equal(allowed({ elr: false, uncleanLeaderElection: true }, [1], []), true);
  assert.equal(allowed({ elr: false, uncleanLeaderElection: false }, [1], []), false);
});

test('witnesses follow the configuration, so no preset passes vacuously', () => {
  const names = (params: ParamValues) => replicationProperties(configOf(params)).filter((p) => p.kind === 'sometimes').map((p) => p.name);
  assert.deepEqual(names({}), ['RecordAcknowledged', 'LeaderChanged', 'UncleanShutdownHappened', 'ElrNonEmpty', 'AckedCopyCrashedThenLeaderChange']);
  assert.deepEqual(names({ maxCleanShutdowns: 1, strategy: 'Aggressive' }).slice(4), ['ElrElectionAfterAck', 'AckedCopyCrashedThenLeaderChange', 'UncleanElectionHappened']);
  assert.deepEqual(names({ acks: 'quorum', elr: false, election: 'longestLog', preferredElection: 'safe', maxUncleanShutdowns: 0, maxPartitions: 1 }), [
    'RecordAcknowledged',
    'LeaderChanged',
    'BrokerIsolated',
    'GhostLeaderAppended',
    'ElectionPastLaggingIsrMember',
    'PreferredLeaderElected',
  ]);
  assert.deepEqual(names({ acks: '1', elr: false, maxUncleanShutdowns: 0, maxEmptyDisks: 1, maxPartitions: 1 }), [
    'RecordCommitted',
    'LeaderChanged',
    'EmptyDiskReturned',
    'BrokerIsolated',
    'GhostLeaderAppended',
  ]);
});
