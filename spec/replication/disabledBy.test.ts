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

// That no preset reports an action never enabled (each is disabled by parameters, declared dead with its
// reason, or reached) is asserted in replication.test.ts, on the search each preset's pin makes there.

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
