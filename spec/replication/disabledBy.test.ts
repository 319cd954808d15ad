import { test } from 'node:test';
import assert from 'node:assert/strict';
import spec from './replication.ts';
import type { ParamValues } from '../spec.ts';

function disabledIn(preset: string): [string, string][] {
  const p = spec.presets.find((x) => x.name === preset)!;
  const params = { ...Object.fromEntries(spec.params.map((d) => [d.name, d.default])), ...p.params } as ParamValues;
  return spec.build(params).actions.filter((a) => a.disabledBy !== undefined).map((a) => [a.name, a.disabledBy!]);
}

test('elr: faults with a zero budget and both unclean paths are disabled by parameters (Balanced waits for the last known leader)', () => {
  assert.deepEqual(disabledIn('elr'), [
    ['PartitionNetwork', 'maxPartitions = 0'],
    ['HealNetwork', 'maxPartitions = 0'],
    ['ReplaceDisk', 'maxEmptyDisks = 0'],
    ['ElectUncleanLeader', 'strategy = Balanced waits for the last known leader (balancedFallback = waitLastKnownLeader)'],
    ['UncleanRecovery', 'recoveryManager = false'],
  ]);
});

test('no replication preset reports an action never enabled: each is disabled by parameters, declared dead with its reason, or reached', async () => {
  const { checkModel } = await import('../../checker/engine/check.ts');
  for (const p of spec.presets) {
    const params = { ...Object.fromEntries(spec.params.map((d) => [d.name, d.default])), ...p.params } as ParamValues;
    const r = await checkModel(spec.build(params), { deadlock: false, maxStates: 60_000 }, { spec: 'replication', preset: p.name, params });
    if (r.status === 'error') assert.fail(`${p.name}: ${r.message}`);
    const never = r.stats.coverage.filter((c) => c.enabled === 0 && c.disabledBy === undefined && c.deadByConstruction === undefined).map((c) => c.action);
    assert.deepEqual(never, [], p.name);
    const declaredButEnabled = r.stats.coverage.filter((c) => c.deadByConstruction !== undefined && c.enabled > 0).map((c) => c.action);
    assert.deepEqual(declaredButEnabled, [], p.name);
  }
});

test('elr-2-partitions: with no ISR-shrink budget, ShrinkIsr is disabled by parameters, not reported as never enabled', () => {
  assert.deepEqual(disabledIn('elr-2-partitions'), [
    ['PartitionNetwork', 'maxPartitions = 0'],
    ['HealNetwork', 'maxPartitions = 0'],
    ['ShrinkIsr', 'maxIsrShrinks = 0'],
    ['ReplaceDisk', 'maxEmptyDisks = 0'],
    ['ElectUncleanLeader', 'strategy = Balanced waits for the last known leader (balancedFallback = waitLastKnownLeader)'],
    ['UncleanRecovery', 'recoveryManager = false'],
  ]);
});
