/**
 * A starting suite for a set of specs: one check per preset, expecting the preset's own verdict. The
 * suite is written out (`kmc ci --init`) to be committed and then owned by the project: budgets tuned,
 * slow presets marked bounded or skipped. Expectations are spelled out in the file, so a change of
 * expectation shows up in review as a change of the suite.
 */
import { Document, isMap, isSeq, visit } from 'yaml';
import type { SpecDefinition } from '../../spec/spec.ts';
import { DEFAULT_TOLERANCE, SUITE_VERSION } from './suite.ts';

export interface SpecSource {
  /** How the suite names the spec: a bundled name or a path relative to the suite file. */
  readonly ref: string;
  readonly definition: SpecDefinition<unknown>;
}

export const DEFAULT_BUDGET = { timeSeconds: 60 } as const;

export function defaultSuite(specs: readonly SpecSource[]): Record<string, unknown> {
  return {
    version: SUITE_VERSION,
    tolerance: DEFAULT_TOLERANCE,
    defaults: { budget: { ...DEFAULT_BUDGET } },
    checks: specs.flatMap(({ ref, definition }) =>
      definition.presets.map((p) => ({
        spec: ref,
        preset: p.name,
        expect: p.expect.verdict === 'holds' ? 'holds' : { violates: p.expect.property },
      })),
    ),
  };
}

export function defaultSuiteYaml(specs: readonly SpecSource[]): string {
  const header = [
    '# kmc CI suite: every check must keep its expected verdict (kmc ci; see the README, Gating design changes in CI).',
    '# expect: holds, or { violates: Property } for a known bug the design must keep exhibiting.',
    '# budget: timeSeconds / maxStates / maxDepth; bounded: true makes reaching maxStates/maxDepth a pass.',
    '',
  ].join('\n');
  const doc = new Document(defaultSuite(specs));
  // `expect: { violates: X }` and `budget: { ... }` read best on one line.
  visit(doc, {
    Pair: (_, pair) => {
      const key = String((pair.key as { value?: unknown } | null)?.value);
      if ((key === 'expect' || key === 'budget') && (isMap(pair.value) || isSeq(pair.value))) pair.value.flow = true;
    },
  });
  const body = doc.toString({ flowCollectionPadding: true, lineWidth: 120 });
  // A blank line between checks, none before the first.
  return header + body.replace(/\n {2}- spec:/g, '\n\n  - spec:').replace('checks:\n\n', 'checks:\n');
}
