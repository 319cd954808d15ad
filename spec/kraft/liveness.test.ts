/**
 * KAFKA-16281's second half, which no invariant catches: with the "not Prospective" fourth condition and
 * no nudge, a voter can stay Prospective for ever beside a stable leader. The liveness presets tell the
 * fixes apart; outcomes and the lasso are pinned here and through the CLI's --json.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import spec from './kraft.ts';
import { checkModel } from '../../checker/engine/check.ts';
import type { ParamValues } from '../spec.ts';
import type { ItfTrace } from '../../traces/itf/write.ts';

process.env.FORCE_COLOR = '0';
/** `kmc ARGS` through the CLI's main function in this process: its exit code and output, as a kmc process gives them. */
const { kmcInProcess: kmc } = await import('../../checker/cli/testSupport.ts');
/** Liveness searches of over 25,000 states run in the slow tier (`npm run test:slow`, CI). */
const SLOW = !process.env.KMC_SLOW && 'set KMC_SLOW=1 (npm run test:slow): a liveness search of over 25,000 states';

async function check(preset: string, overrides: ParamValues = {}) {
  const p = spec.presets.find((x) => x.name === preset)!;
  const params = { ...Object.fromEntries(spec.params.map((d) => [d.name, d.default])), ...p.params, ...overrides } as ParamValues;
  return checkModel(spec.build(params), { deadlock: false }, { spec: 'kraft', preset, params });
}

test('kraft-stuck-prospective (CLI --json): NotStuckInProspective fails with a lasso: r2 Prospective for ever beside leader r1', async () => {
  const r = await kmc('check', 'kraft', '--preset', 'kraft-stuck-prospective', '--json', '--workers', '1');
  assert.equal(r.code, 1, r.stderr);
  const report = JSON.parse(r.stdout) as { status: string; kind: string; property: string; distinct: number; trace: ItfTrace };
  assert.deepEqual([report.status, report.kind, report.property, report.distinct], ['violation', 'liveness', 'NotStuckInProspective', 7484]);
  const trace = report.trace;
  assert.equal(trace.states.length, 8);
  // The last state repeats for ever: nothing fair is left to do.
  assert.equal(trace.loop, 7);
  assert.equal(trace['#meta'].loopStep, undefined);
  assert.deepEqual(
    trace.states.map((s) => s['#meta'].action),
    ['Init', 'FetchTimeout', 'ElectionTimeout', 'HandleVoteRequest', 'HandleVoteRequest', 'HandleVoteResponse', 'HandleVoteResponse', 'HandleFetchRequest'],
  );
  const last = trace.states[7]! as unknown as { replicas: { '#map': [string, { role: string }][] } };
  assert.deepEqual(
    last.replicas['#map'].map(([id, r]) => [id, r.role]),
    [['r1', 'Leader'], ['r2', 'Prospective'], ['r3', 'Follower']],
  );
});

test('kraft-nudge-live: with the leader nudge NotStuckInProspective holds (27,199 states)', { skip: SLOW }, async () => {
  const r = await check('kraft-nudge-live');
  assert.equal(r.status, 'holds');
  assert.equal(r.stats.distinct, 27199);
});

test('kraft-final-live: the final fix, NotStuckInProspective holds (32,232 states)', { skip: SLOW }, async () => {
  const r = await check('kraft-final-live');
  assert.equal(r.status, 'holds');
  assert.equal(r.stats.distinct, 32232);
});

test('kraft-shipped-live: Kafka as shipped, timely timers: EventuallyLeaderElected and NotStuckInProspective hold (9,080 states)', async () => {
  const r = await check('kraft-shipped-live');
  assert.equal(r.status, 'holds');
  assert.deepEqual([r.stats.distinct, r.stats.depth], [9080, 25]);
});

test('kraft-shipped with budgeted timers: once the timer budgets are spent no timer fires again, and no leader is ever elected', { skip: SLOW }, async () => {
  const r = await check('kraft-shipped', { liveness: 'election' });
  assert.equal(r.status === 'violation' && r.kind === 'liveness' && r.property, 'EventuallyLeaderElected');
  assert.equal(r.stats.distinct, 33729);
  const trace = 'trace' in r ? r.trace! : undefined;
  assert.deepEqual(
    trace!.steps.map((s) => s.action),
    ['Init', 'CheckQuorumResign', 'ElectionTimeout', 'FetchTimeout', 'ElectionTimeout', 'HandleFetchRequest', 'HandleFetchRequest', 'HandleFetchResponse', 'HandleFetchResponse'],
  );
  // Every voter Unattached in epoch 2 with its election timer spent: the last state repeats for ever.
  assert.equal(trace!.loop?.index, 8);
});

test('liveness with --symmetry is a usage error (exit 2) that says why', async () => {
  const r = await kmc('check', 'kraft', '--preset', 'kraft-stuck-prospective', '--symmetry');
  assert.equal(r.code, 2);
  assert.match(r.stderr, /symmetry reduction cannot be used with the temporal properties NotStuckInProspective: a cycle in the reduced graph may join states that are permutations of each other/);
});
