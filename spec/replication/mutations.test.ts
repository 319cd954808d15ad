/**
 * The guard-mutation table: every safety-relevant guard of the replication model, mutated one at a time,
 * must turn a preset that holds into a violation, or be listed with the reason no safety property can
 * notice it. A "holds" from a preset is worth something only if the guards it depends on are watched.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkModel } from '../../checker/engine/check.ts';
import type { ParamValues } from '../spec.ts';
import spec, { configOf, modelOf } from './replication.ts';
import { MUTATIONS, type Mutation } from './mutations.ts';

interface Caught {
  readonly preset: string;
  readonly property: string;
  /** The length of the shortest counterexample under the mutation. */
  readonly depth: number;
}

/** Each mutation that a preset catches: the preset, the property it breaks, the counterexample length. */
const CAUGHT: Readonly<Partial<Record<Mutation, Caught>>> = {
  ackIgnoresMinIsr: { preset: 'acks-all-lenient-hwm', property: 'AckImpliesMinIsrCopies', depth: 4 },
  ackBeforeHighWatermark: { preset: 'acks-all-ghost', property: 'AckImpliesMinIsrCopies', depth: 2 },
  highWatermarkIgnoresIsr: { preset: 'acks-quorum-preferred-safe', property: 'AckImpliesMinIsrCopies', depth: 2 },
  strictHwmIgnored: { preset: 'balanced-recovery-manager', property: 'ElrMembersHoldCommitted', depth: 4 },
  uncleanRestartKeepsElr: { preset: 'balanced-recovery-manager', property: 'ElrMembersHoldCommitted', depth: 7 },
  elrKeepsUncleanReplica: { preset: 'balanced-recovery-manager', property: 'ElrMembersHoldCommitted', depth: 7 },
  elrNotClearedAtMinIsr: { preset: 'balanced-recovery-manager', property: 'ElrMembersHoldCommitted', depth: 5 },
  electFencedReplica: { preset: 'elr', property: 'LeaderInIsr', depth: 4 },
  lastKnownLeaderWithElr: { preset: 'elr', property: 'UncleanOnlyWhenStrategyAllows', depth: 5 },
  expandBeforeCaughtUp: { preset: 'acks-all-ghost', property: 'AckImpliesMinIsrCopies', depth: 6 },
  balancedIgnoresElr: { preset: 'balanced-recovery-manager', property: 'UncleanOnlyWhenStrategyAllows', depth: 5 },
  preferredSkipsCatchUp: { preset: 'acks-quorum-preferred-safe', property: 'NoAckedRecordLost', depth: 12 },
  longestLogIgnored: { preset: 'acks-quorum-leo', property: 'NoAckedRecordLost', depth: 8 },
  brokerEventOnePartition: { preset: 'elr-2-partitions', property: 'ElrMembersHoldCommitted', depth: 6 },
  uncleanElectionKeepsIsr: { preset: 'balanced-recovery-manager', property: 'LeaderInIsr', depth: 7 },
  expandFromEarlierIncarnation: { preset: 'diverging-logs', property: 'ElrMembersHoldCommitted', depth: 8 },
  fetchStateKeptAcrossLeaderships: { preset: 'elr', property: 'ElrMembersHoldCommitted', depth: 11 },
  fetchOffsetBeforeTruncation: { preset: 'diverging-pre-elr', property: 'IsrHoldsCommitted', depth: 6 },
  fetchWithoutEpochValidation: { preset: 'diverging-pre-elr', property: 'IsrHoldsCommitted', depth: 6 },
};

/** Each mutation no safety property can notice here, and why. */
const NOT_CAUGHT: Readonly<Partial<Record<Mutation, string>>> = {
  appendIgnoresMinIsr:
    'availability: the acknowledgement check (ackIgnoresMinIsr, caught) already refuses to ack below min.insync.replicas; refusing the append early only fails the request sooner (NotEnoughReplicas instead of a timeout)',
  elrValidWithIsr:
    'leadership choice only: an ELR member holds every committed record (ElrMembersHoldCommitted), so electing one beside a live ISR loses nothing; Kafka prefers the ISR because its members are in sync now',
  lastKnownLeaderFenced:
    'availability (KAFKA-19522): a fenced last known leader elected is an offline leader; it takes over when it returns, which is when the guarded rule elects it anyway',
  expandFencedFollower:
    'unreachable here: registration and unfencing are one step and a cut-off broker cannot be caught up, so no running, connected follower is ever fenced (the KIP-841 race needs the heartbeat lease the model does not have)',
  expandShuttingDownFollower:
    'availability: a follower in controlled shutdown that rejoins the ISR has caught up, and a clean stop keeps its log and ELR place; Kafka keeps it out so the high watermark and acks=all do not wait on a broker about to leave',
  expandWhileRecovering:
    'KIP-704 protects the leader-side recovery of transactional state, which the model does not have: the uncleanly elected log is the truth either way and followers truncate to it',
  fetchAcrossEpochs:
    'unreachable here: metadata reaches every connected broker in the step that changes it, so a follower and the leader it fetches from disagree on the epoch only across a network cut, where the cut already stops the fetch',
  managerSkipsLastKnownElr:
    'not caught within a bound that fits the table: the wait binds only when a LastKnownELR member is fenced again after its unclean restart (a third fault; about 36K states and 20 s), and the loss it then causes is outside the min.insync.replicas tolerance',
};

test('every mutation is either caught by a preset or listed with the reason it is not', () => {
  const listed = [...Object.keys(CAUGHT), ...Object.keys(NOT_CAUGHT)].sort();
  assert.deepEqual(listed, Object.keys(MUTATIONS).sort());
  for (const m of Object.keys(CAUGHT)) assert.ok(!(m in NOT_CAUGHT), m);
  assert.equal(Object.keys(CAUGHT).length, 19);
});

test('mutations are hidden: no parameter of the spec names them', () => {
  const names = spec.params.map((p) => p.name);
  assert.ok(!names.includes('mutation'), `no parameter is named mutation; got ${names.join(', ')}`);
  assert.equal(configOf({ mutation: 'ackIgnoresMinIsr' }).mutation, undefined, 'a parameter cannot switch one on');
});

for (const [mutation, caught] of Object.entries(CAUGHT) as [Mutation, Caught][]) {
  test(`${mutation}: ${caught.preset} holds, and breaks ${caught.property} under the mutation`, async () => {
    const preset = spec.presets.find((p) => p.name === caught.preset)!;
    assert.equal(preset.expect.verdict, 'holds', `${caught.preset} must be a holding preset`);
    const params = preset.params as ParamValues;
    const result = await checkModel(modelOf({ ...configOf(params), mutation }), { deadlock: false }, { spec: 'replication', preset: caught.preset, params });
    assert.equal(result.status, 'violation');
    assert.equal('property' in result ? result.property : undefined, caught.property);
    assert.equal('kind' in result ? result.kind : undefined, 'always');
    assert.equal(result.stats.depth, caught.depth);
  });
}

/**
 * The properties read from the logs (not from the high watermark or election rules) each fail on their own
 * under a mutation: in the last state of the counterexample, whichever property the search reported first.
 */
const FAILS_ALONE: readonly { readonly property: string; readonly mutation: Mutation; readonly preset: string }[] = [
  { property: 'LeaderInIsr', mutation: 'uncleanElectionKeepsIsr', preset: 'balanced-recovery-manager' },
  { property: 'IsrHoldsCommitted', mutation: 'fetchWithoutEpochValidation', preset: 'diverging-pre-elr' },
  { property: 'NoDivergenceBelowHighWatermark', mutation: 'fetchWithoutEpochValidation', preset: 'diverging-pre-elr' },
];

for (const { property, mutation, preset: name } of FAILS_ALONE) {
  test(`${property} fails in the last state of ${mutation}'s counterexample on ${name}, and holds in every state of the unmutated preset`, async () => {
    const preset = spec.presets.find((p) => p.name === name)!;
    const params = preset.params as ParamValues;
    const model = modelOf({ ...configOf(params), mutation });
    const result = await checkModel(model, { deadlock: false }, { spec: 'replication', preset: name, params });
    assert.equal(result.status, 'violation');
    const trace = 'trace' in result ? result.trace! : undefined;
    const last = trace!.steps[trace!.steps.length - 1]!.state;
    const prop = model.properties.find((p) => p.name === property)!;
    assert.equal(prop.kind, 'always');
    assert.equal((prop as { test(s: unknown): boolean }).test(last), false);
    // Unmutated, the preset holds: the property is never false there.
    const clean = await checkModel(modelOf(configOf(params)), { deadlock: false }, { spec: 'replication', preset: name, params });
    assert.equal(clean.status, 'holds');
  });
}
