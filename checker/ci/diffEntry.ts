/**
 * Runs the suite's design diffs (`diffs:` entries) and compares what variant B fixes and breaks with
 * what the suite says it does. A pull request that changes a design shows here what it changed.
 */
import type { ParamValue } from '../../spec/spec.ts';
import { designDiff, type DesignDiff } from '../run/designDiff.ts';
import type { SuiteDiff } from './suite.ts';

export interface DiffOutcome {
  readonly diff: SuiteDiff;
  readonly pass: boolean;
  /** `fixes NoIllegalState; breaks nothing`, as found. */
  readonly got: string;
  readonly expected: string;
  readonly message: string;
  readonly result?: DesignDiff;
}

const listText = (xs: readonly string[]) => (xs.length ? [...xs].sort().join(', ') : 'nothing');
const sentence = (fixes: readonly string[], breaks: readonly string[]) => `fixes ${listText(fixes)}; breaks ${listText(breaks)}`;
const asParams = (p: Readonly<Record<string, ParamValue>>) => Object.entries(p).map(([k, v]) => `${k}=${String(v)}`);

export async function runSuiteDiff(d: SuiteDiff, shouldStop?: () => boolean): Promise<DiffOutcome> {
  const expected = sentence(d.expect.fixes, d.expect.breaks);
  let result: DesignDiff;
  try {
    result = await designDiff(
      { name: 'A', spec: d.specRef, ...(d.a.preset ? { preset: d.a.preset } : {}), params: asParams(d.a.params) },
      { name: 'B', spec: d.specRef, ...(d.b.preset ? { preset: d.b.preset } : {}), params: asParams(d.b.params) },
      shouldStop ? { shouldStop } : {},
    );
  } catch (e) {
    return { diff: d, pass: false, got: 'error', expected, message: `could not run: ${e instanceof Error ? e.message : String(e)}` };
  }
  const fixes = result.rows.filter((r) => r.change === 'fixed').map((r) => r.property);
  const breaks = result.rows.filter((r) => r.change === 'broken').map((r) => r.property);
  const other = result.rows.filter((r) => r.change === 'other').map((r) => r.property);
  const got = sentence(fixes, breaks);
  const complete = result.a.complete && result.b.complete;
  const pass = complete && other.length === 0 && got === expected;
  const message = !complete
    ? 'a search was incomplete, so what B fixes and breaks is unknown'
    : pass
      ? `B ${got}, as expected`
      : `B ${got}${other.length ? `; verdicts also differ for ${other.join(', ')}` : ''}; the suite expects B to ${expected.replace('fixes', 'fix').replace('breaks', 'break')}`;
  return { diff: d, pass, got, expected, message, result };
}
