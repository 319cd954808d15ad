import { test } from 'node:test';
import assert from 'node:assert/strict';
import { check, UserError } from '../../spec/index.ts';
import { kmcInProcess as kmc } from '../cli/testSupport.ts';

test("check() returns the report kmc check --json prints, and the command's exit code", async () => {
  const { report, exitCode } = await check('twophase', { preset: 'rm3-commit-early', options: { workers: 1 } });
  assert.equal(exitCode, 1);
  const printed = JSON.parse((await kmc('check', 'twophase', '--preset', 'rm3-commit-early', '--workers', '1', '--json')).stdout);
  const timeless = (r: Record<string, unknown>) => ({ ...r, seconds: 0, cpuSeconds: 0, peakMemoryBytes: 0, processBytesPerState: 0 });
  assert.deepEqual(timeless(JSON.parse(JSON.stringify(report))), timeless(printed));
  assert.deepEqual([report.status, report.property, report.traceLength], ['violation', 'TCConsistent', 6]);
  const held = await check('twophase', { params: { rm: 4 } });
  assert.deepEqual([held.report.status, held.report.distinct, held.exitCode], ['holds', 1568, 0]);
});

test('check() rejects a mistake in the request with the UserError the command prints', async () => {
  await assert.rejects(check('twophase', { preset: 'rm4' }), (e: unknown) => e instanceof UserError && /Unknown preset 'rm4' for spec twophase/.test(e.message));
});
