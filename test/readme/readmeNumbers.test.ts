/**
 * The numbers the README's prose gives for its design diffs come from these runs: each sentence is
 * rebuilt from what `kmc diff --json` says and must stand in the README word for word.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

process.env.FORCE_COLOR = '0';
const { kmcInProcess: kmc } = await import('../../checker/cli/testSupport.ts');
const readme = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8').replace(/\s+/g, ' ');

interface Side {
  readonly distinct: number;
  readonly depth: number;
}
interface Row {
  readonly property: string;
  readonly a: { readonly status: string; readonly traceLength?: number };
  readonly b: { readonly status: string; readonly traceLength?: number };
}

async function diff(spec: string, a: string, b: string): Promise<{ a: Side; b: Side; properties: Row[] }> {
  const r = await kmc('diff', spec, '--a-preset', a, '--b-preset', b, '--json');
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

const n = (x: number) => x.toLocaleString('en-US');

test("the README's KAFKA-16281 fixes compared: states and depths as kmc diff finds them", async () => {
  const d = await diff('kraft', 'kraft-fixed-leaderid', 'kraft-fixed-prospective');
  const said = `A has ${n(d.a.distinct)} distinct states (depth ${d.a.depth}), B ${n(d.b.distinct)} (depth ${d.b.depth}).`;
  assert.ok(readme.includes(said), `the README says: ${said}`);
});

test("the README's unclean recovery strategies compared: the steps of each counterexample as kmc diff finds them", async () => {
  const d = await diff('replication', 'balanced-empty', 'unclean-aggressive');
  const row = d.properties.find((r) => r.property === 'NoAckedRecordLostEvenUnclean')!;
  assert.deepEqual([row.a.status, row.b.status], ['violated', 'violated']);
  // kmc diff counts a counterexample's steps as its traceLength (8 steps: \`violated (8 steps)\`).
  const said = `(\`NoAckedRecordLostEvenUnclean\`, ${row.a.traceLength} steps under Balanced, ${row.b.traceLength} under Aggressive)`;
  assert.ok(readme.includes(said), `the README says: ${said}`);
});

test("every preset's state count in the README is the one kmc ci records in its baseline", () => {
  const baseline = JSON.parse(readFileSync(fileURLToPath(new URL('../../ci/kmc.baseline.json', import.meta.url)), 'utf8')) as {
    checks: Record<string, { preset: string | null; distinct: number; depth: number }>;
  };
  const byPreset = new Map(Object.values(baseline.checks).filter((c) => c.preset !== null).map((c) => [c.preset!, c]));
  // `preset` … (N states[, depth D]) within one sentence: the tables' verdict cells and the prose alike.
  const said = [
    ...readme.matchAll(/`([a-z0-9-]+)`[^`]*?\((?:holds \()?(?:[^()`]*?, )?([\d,]+) states(?:, depth (\d+))?\)/g),
    // A table row: | `preset` | what it is | holds (N states, depth D) |
    ...readme.matchAll(/\| `([a-z0-9-]+)` \|[^|]*\| holds \(([\d,]+) states, depth (\d+)\) \|/g),
  ];
  const checked: string[] = [];
  for (const [, preset, count, depth] of said) {
    const recorded = byPreset.get(preset!);
    if (recorded === undefined) continue;
    assert.equal(count, n(recorded.distinct), `the README gives ${preset} ${count} states; kmc ci records ${n(recorded.distinct)}`);
    if (depth !== undefined) assert.equal(Number(depth), recorded.depth, `the README gives ${preset} depth ${depth}; kmc ci records ${recorded.depth}`);
    checked.push(preset!);
  }
  assert.ok(new Set(checked).size >= 8, `checked ${checked.join(', ')}`);
});
