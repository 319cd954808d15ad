/**
 * The guard-mutation table: every guard of `mutations.ts`, one at a time (or a pair that mask each
 * other), with the checked preset that must turn from holds into the named violation, or the reason it
 * cannot: a guard that only matters for liveness or availability (those wait for liveness checking),
 * or a safety guard that no preset within its bounds reaches (a known gap, said so here).
 * Each preset named here holds unmutated: `kraft.test.ts` pins that.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import spec, { buildKraftMutant } from './kraft.ts';
import { KRAFT_MUTATIONS, type KraftMutation } from './mutations.ts';
import { checkModel } from '../../checker/engine/check.ts';
import type { ParamValues } from '../spec.ts';

interface Caught {
  readonly mutations: readonly KraftMutation[];
  readonly preset: string;
  readonly property: string;
  readonly distinct: number;
  readonly depth: number;
  /** A witness no longer reached (a `sometimes` property) instead of an invariant broken. */
  readonly kind?: 'sometimes' | 'everyStep';
  /** A search of seconds: run in the slow tier (KMC_SLOW=1) only. */
  readonly slow?: true;
}

const CAUGHT: readonly Caught[] = [
  { mutations: ['voteForAnyCandidate'], preset: 'kraft-fixed-leaderid', property: 'ElectionSafety', distinct: 3074, depth: 12 },
  { mutations: ['rejectionCountsAsVote'], preset: 'kraft-fixed-leaderid', property: 'ElectionSafety', distinct: 3094, depth: 12 },
  { mutations: ['fourthConditionOff'], preset: 'kraft-fixed-leaderid', property: 'NoIllegalState', distinct: 67, depth: 5 },
  { mutations: ['fourthConditionOff'], preset: 'kraft-fixed-prospective', property: 'NoIllegalState', distinct: 107, depth: 5 },
  { mutations: ['resignedTimesOutToProspective'], preset: 'kraft-fixed-resigned-unattached', property: 'NoIllegalState', distinct: 77, depth: 5 },
  // The shipped Prospective keeps its leader, so the resigned leader is at once a Prospective naming itself.
  { mutations: ['resignedTimesOutToProspective'], preset: 'kraft-shipped', property: 'ValidRolesAndStates', distinct: 5, depth: 3 },
  // Needs the epochs the Resigned fix bumps: a Candidate reusing an epoch whose voters are still free.
  { mutations: ['candidateKeepsEpoch'], preset: 'kraft-shipped', property: 'ElectionSafety', distinct: 3229, depth: 14 },
  // CommittedOnMajority counts holders on the logs: the first commit without a majority is the violation.
  { mutations: ['hwmFromLeaderAlone'], preset: 'kraft-bench', property: 'CommittedOnMajority', distinct: 20, depth: 3 },
  { mutations: ['fetchWithoutDivergenceCheck'], preset: 'kraft-bench', property: 'CommittedOnMajority', distinct: 4285, depth: 10 },
  // Each log check masks the other: a candidate first wins pre-votes under the same test.
  { mutations: ['voteWithoutLogCheck', 'preVoteWithoutLogCheck'], preset: 'kraft-bench', property: 'LeaderCompleteness', distinct: 8235, depth: 11 },
  // The vote's log comparison, each way of getting it wrong (handleVoteRequest, OffsetAndEpoch.compareTo).
  { mutations: ['voteLogOffByOne'], preset: 'kraft-bench', property: 'LeaderCompleteness', distinct: 8235, depth: 11 },
  { mutations: ['voteLogEpochOnly'], preset: 'kraft-bench', property: 'LeaderCompleteness', distinct: 8235, depth: 11 },
  // Needs a restart: a voter whose log is longer in an older epoch elects a candidate that lacks a committed entry.
  { mutations: ['voteLogOffsetOnly'], preset: 'kraft-deep-restart', property: 'LeaderHoldsCommitted', distinct: 170675, depth: 18, slow: true },
  // Stricter, so safe; but two equal logs never elect each other and the election of kraft-shipped never completes.
  { mutations: ['voteLogStrict'], preset: 'kraft-shipped', property: 'LeaderElected', distinct: 944, depth: 14, kind: 'sometimes' },
  { mutations: ['majorityHalf'], preset: 'kraft-shipped', property: 'CommittedOnMajority', distinct: 864, depth: 10 },
  { mutations: ['restartForgetsVote'], preset: 'kraft-deep-restart', property: 'ElectionSafety', distinct: 32898, depth: 12 },
  // The step property sees the restart itself; without it, ElectionSafety sees the double leader it leads to 11 steps later (21,257 states).
  { mutations: ['restartForgetsElection'], preset: 'kraft-deep-restart', property: 'EpochNeverDecreases', distinct: 2, depth: 2, kind: 'everyStep' },
  { mutations: ['followerHwmPastLogEnd'], preset: 'kraft-bench', property: 'NoLogDivergence', distinct: 49403, depth: 17 },
  { mutations: ['leaderRecordsInvalidFetch'], preset: 'kraft-bench', property: 'CommittedOnMajority', distinct: 4285, depth: 10 },
];

/** Guards no preset can catch, and why. */
const NOT_CAUGHT: Readonly<Record<string, string>> = {
  voteWithoutLogCheck: 'safety, masked by the pre-vote log check (caught together with preVoteWithoutLogCheck above)',
  preVoteWithoutLogCheck: 'liveness: a pre-vote binds no one; the standard vote checks the log again',
  followerGrantsPreVoteAfterFetch:
    'availability, not liveness: it lets a voter that timed out early depose a working leader (KIP-996 motivation), but the ' +
    'election it causes ends with a leader, so EventuallyLeaderElected and NotStuckInProspective still hold (kraft-shipped-live ' +
    'mutated holds, 7,372 states). What it breaks is a step property: no leader change while the leader keeps a majority, an ' +
    'invariant over a ghost of the last fault, not yet written',
  resignedGrantsPreVote:
    'availability, not liveness: a pre-vote binds no one and a Resigned leader never grants a standard vote; at worst it speeds ' +
    'up a pre-vote that the standard vote then decides (kraft-shipped-live mutated holds, 7,824 states)',
  followerIgnoresDivergingEpoch:
    'liveness, with no property yet: the follower fetches the same diverging offset for ever and never catches up, which no ' +
    'invariant sees (kraft-bench mutated holds, 116,325 states); it needs a "a follower eventually matches the leader\'s committed ' +
    'log" leadsTo under timely timers on a preset with a client value, which does not complete within the liveness bounds yet',
  prospectiveIgnoresRejections: 'liveness: a Prospective only falls back later, at its election timeout',
  prospectiveClearsLeader:
    'liveness: with KAFKA-17642 no Prospective is ever named as leader of its own epoch, so following a leader named in a reply is safe ' +
    '(the leaderIdNotSelf behaviour); the kept leader only decides where a lost pre-vote falls back to',
  fetchFromAnyEpoch:
    'no liveness property can catch it either: it answers more fetches, never fewer. Not safety-relevant here: a fetch reaches a leader only from its own followers, or after a re-election from followers of its earlier ' +
    'epoch, whose offsets the divergence check validates; Kafka needs the epoch check against zombie leaders across reconfiguration',
  hwmWithoutCurrentEpochEntry:
    'no liveness property can catch it (it advances the high watermark sooner, never later). Safety gap (Raft figure 8): needs an entry of an old epoch to be counted in a third epoch; an entry of epoch e counted by the leader of epoch e + 2 and then overwritten by a leader of epoch e + 1 that wins epoch e + 3 ' +
    'needs maxEpoch 4 with a client value; kraft-deep-diverge and kraft-deep-restart (epoch 3, one or two values) mutated still hold ' +
    '(129,976 and 528,711 states)',
};

function paramsOf(preset: string): ParamValues {
  const p = spec.presets.find((x) => x.name === preset)!;
  return { ...Object.fromEntries(spec.params.map((d) => [d.name, d.default])), ...p.params } as ParamValues;
}

test('every guard mutation is either caught by a preset or listed with the reason it cannot be', () => {
  const listed = new Set([...CAUGHT.flatMap((c) => (c.mutations.length === 1 ? c.mutations : [])), ...Object.keys(NOT_CAUGHT)]);
  assert.deepEqual([...listed].sort(), Object.keys(KRAFT_MUTATIONS).sort());
  for (const c of CAUGHT) assert.ok(spec.presets.find((p) => p.name === c.preset)?.expect.verdict === 'holds', `${c.preset} is a holding preset`);
});

test('mutations are not spec parameters: kmc list and --param never see them', () => {
  assert.deepEqual(spec.params.filter((p) => /mutat/i.test(p.name)), []);
  const model = spec.build(paramsOf('kraft-fixed-leaderid'));
  const mutant = buildKraftMutant(paramsOf('kraft-fixed-leaderid'), 'fourthConditionOff');
  assert.deepEqual(mutant.actions.map((a) => a.name), model.actions.map((a) => a.name));
});

for (const c of CAUGHT) {
  const title = `${c.mutations.join(' + ')}: ${c.preset} turns from holds to ${c.property}`;
  test(c.slow ? `${title} (slow; set KMC_SLOW=1)` : title, { skip: c.slow && !process.env.KMC_SLOW }, async () => {
    const params = paramsOf(c.preset);
    const r = await checkModel(buildKraftMutant(params, ...c.mutations), { deadlock: false }, { spec: 'kraft', preset: c.preset, params });
    assert.equal(r.status === 'violation' && r.kind === (c.kind ?? 'always') && r.property, c.property);
    assert.deepEqual([r.stats.distinct, r.stats.depth], [c.distinct, c.depth]);
  });
}
