/**
 * The counterexamples the browser tests open: the two-phase commit bug (always), and every saved
 * regression trace in traces/regressions/*.itf.json (the KRaft and replication counterexamples).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import twoPhase from '../../spec/twophase/twoPhase.ts';
import { checkModel } from '../../checker/engine/check.ts';
import { toItf, type ItfTrace } from '../../traces/itf/write.ts';

/** KMC_REGRESSION_TRACES points the tests at another folder of traces. */
const REGRESSIONS = process.env.KMC_REGRESSION_TRACES ?? fileURLToPath(new URL('../../traces/regressions/', import.meta.url));

export async function twoPhaseCounterexample(): Promise<ItfTrace> {
  const params = { rm: 3, bug: 'tmCommitEarly' };
  const r = await checkModel(twoPhase.build(params), {}, { spec: 'twophase', preset: 'rm3-commit-early', params });
  if (r.status !== 'violation' || !r.trace) throw new Error(`expected the planted two-phase bug to be found, got ${r.status}`);
  return toItf(r.trace);
}

export function regressionTraces(): { name: string; itf: ItfTrace }[] {
  if (!existsSync(REGRESSIONS)) return [];
  return readdirSync(REGRESSIONS)
    .filter((f) => f.endsWith('.itf.json'))
    .sort()
    .map((f) => ({ name: f, itf: JSON.parse(readFileSync(join(REGRESSIONS, f), 'utf8')) as ItfTrace }));
}

/**
 * The regression traces a fast tier opens where the slow tier (KMC_SLOW=1) opens them all: per spec (the
 * file name up to its first '-'), the one that scores highest (the first of a tie), and every lasso.
 */
export function hardestPerSpec(traces: readonly { name: string; itf: ItfTrace }[], score: (itf: ItfTrace) => number): Set<string> {
  const best = new Map<string, { name: string; score: number }>();
  const picked = new Set<string>();
  for (const { name, itf } of traces) {
    const spec = name.split('-')[0]!;
    const n = score(itf);
    if (!best.has(spec) || n > best.get(spec)!.score) best.set(spec, { name, score: n });
    if (itf.loop !== undefined) picked.add(name);
  }
  for (const { name } of best.values()) picked.add(name);
  return picked;
}
