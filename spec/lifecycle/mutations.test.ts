/**
 * The guard-mutation table: every guard mutation of `mutations.ts`, one at a time, with the preset of
 * the default suite that turns from holds into the named violation (or a witness that can no longer
 * happen), or the reason no preset can. Each preset named here holds unmutated: `lifecycle.test.ts`
 * pins that.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import spec, { buildLifecycleMutant } from './lifecycle.ts';
import { LIFECYCLE_MUTATIONS, type LifecycleMutation } from './mutations.ts';
import { checkModel } from '../../checker/engine/check.ts';
import type { ParamValues } from '../spec.ts';

interface Caught {
  readonly mutation: LifecycleMutation;
  readonly preset: string;
  /** `always`: an invariant is violated; `sometimes`: a witness no behaviour reaches any more. */
  readonly kind: 'always' | 'sometimes';
  readonly property: string;
  readonly distinct: number;
  readonly depth: number;
}

const CAUGHT: readonly Caught[] = [
  // The old incarnation's heartbeat, after a restart registered a new epoch, renews the lease.
  { mutation: 'staleEpochAccepted', preset: 'ce4-current-wins', kind: 'always', property: 'StaleHeartbeatInert', distinct: 343, depth: 11 },
  // The new active controller touched every session at activation; with `>` it fences at the end tick.
  { mutation: 'leaseStrict', preset: 'ce7-failover-extends', kind: 'always', property: 'FailoverGrace', distinct: 13, depth: 3 },
  // A restarted broker is refused for ever: no second incarnation ever registers.
  { mutation: 'duplicateIgnoresSession', preset: 'ce4-current-wins', kind: 'sometimes', property: 'BrokerRegistered', distinct: 410, depth: 17 },
  { mutation: 'unfenceWithoutCatchUp', preset: 'ce5-pending-checked', kind: 'always', property: 'UnfenceRequiresRegistration', distinct: 83, depth: 8 },
  { mutation: 'unfenceWithoutCatchUp', preset: 'ce8-catch-up', kind: 'always', property: 'UnfenceRequiresCatchUp', distinct: 36, depth: 6 },
  { mutation: 'unfenceOffByOne', preset: 'ce5-pending-checked', kind: 'always', property: 'UnfenceRequiresRegistration', distinct: 83, depth: 8 },
  { mutation: 'unfenceOffByOne', preset: 'ce8-catch-up', kind: 'always', property: 'UnfenceRequiresCatchUp', distinct: 59, depth: 7 },
  { mutation: 'shutdownWhileLeader', preset: 'controlled-shutdown-leader', kind: 'always', property: 'CleanShutdownHandsOver', distinct: 150, depth: 6 },
  { mutation: 'shutdownBeforeOffset', preset: 'controlled-shutdown-leader', kind: 'always', property: 'CleanShutdownHandsOver', distinct: 481, depth: 8 },
];

/** Mutations no preset can catch, and why. */
const NOT_CAUGHT: Readonly<Record<string, string>> = {
  duplicateIgnoresFencing:
    'availability only: a newcomer is refused while a fenced holder\'s lease lasts, at most one lease timeout, after which it ' +
    'registers as before; no safety property depends on it, and bounded waiting needs a liveness property with timers',
  shutdownOffsetOffByOne:
    'harmless by construction: a controlled shutdown\'s records are one atomic batch (ControllerResult.atomicOf) committed at once, ' +
    'so no broker has applied all of the batch but its last record, the one offset where the two comparisons differ',
};

function paramsOf(preset: string): ParamValues {
  const p = spec.presets.find((x) => x.name === preset)!;
  return { ...Object.fromEntries(spec.params.map((d) => [d.name, d.default])), ...p.params } as ParamValues;
}

test('every guard mutation is either caught by a holding preset or listed with the reason it cannot be', () => {
  const listed = new Set([...CAUGHT.map((c) => c.mutation), ...Object.keys(NOT_CAUGHT)]);
  assert.deepEqual([...listed].sort(), Object.keys(LIFECYCLE_MUTATIONS).sort());
  for (const c of CAUGHT) assert.equal(spec.presets.find((p) => p.name === c.preset)?.expect.verdict, 'holds', `${c.preset} is a holding preset`);
});

test('mutations are not spec parameters: kmc list and --param never see them', () => {
  assert.deepEqual(spec.params.filter((p) => /mutat/i.test(p.name)), []);
  const params = paramsOf('controlled-shutdown-leader');
  assert.deepEqual(
    buildLifecycleMutant(params, 'shutdownWhileLeader').actions.map((a) => a.name),
    spec.build(params).actions.map((a) => a.name),
  );
});

for (const c of CAUGHT) {
  test(`${c.mutation}: ${c.preset} turns from holds to ${c.kind === 'always' ? 'violating' : 'never reaching'} ${c.property}`, async () => {
    const params = paramsOf(c.preset);
    const r = await checkModel(buildLifecycleMutant(params, c.mutation), { deadlock: false }, { spec: 'lifecycle', preset: c.preset, params });
    assert.equal(r.status === 'violation' && `${r.kind} ${r.property}`, `${c.kind} ${c.property}`);
    assert.deepEqual([r.stats.distinct, r.stats.depth], [c.distinct, c.depth]);
  });
}
