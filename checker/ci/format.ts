/** Small formatters shared by the CI reports (terminal, Markdown, JUnit, annotations). */
import { METRIC_NAMES, type Drift } from './baseline.ts';
import type { CheckOutcome, OutcomeKind } from './outcome.ts';

export const int = (n: number): string => n.toLocaleString('en-US');

export const seconds = (s: number): string => (s < 10 ? `${s.toFixed(2)} s` : `${s.toFixed(1)} s`);

export const percent = (x: number): string => (x === Infinity ? 'new' : `${x > 0 ? '+' : '−'}${Math.abs(x * 100).toFixed(1)}%`);

/** The word for an outcome in the tables. */
export const OUTCOME_LABEL: Readonly<Record<OutcomeKind, string>> = {
  pass: 'ok',
  broken: 'BROKEN',
  fixed: 'FIXED?',
  changed: 'CHANGED',
  budget: 'BUDGET',
  error: 'ERROR',
  skipped: 'skipped',
};

/** `distinct states 8,832 → 4,416 (−50.0%)` */
export function driftText(d: Drift): string {
  const change = d.change !== null ? ` (${percent(d.change)})` : '';
  return `${METRIC_NAMES[d.metric]} ${driftValue(d.before)} → ${driftValue(d.after)}${change}${d.paramsChanged ? '; the parameters changed since the baseline' : ''}`;
}

export const driftValue = (x: number | string | null): string => (x === null ? 'none' : typeof x === 'number' ? int(x) : x);

/** The row cells shared by the terminal and Markdown tables. */
export function rowCells(o: CheckOutcome): { distinct: string; depth: string; time: string } {
  const r = o.report;
  return r ? { distinct: int(r.distinct), depth: String(r.depth), time: seconds(r.seconds) } : { distinct: '', depth: '', time: '' };
}

/** `±10%` */
export const toleranceText = (t: number): string => `±${Number((t * 100).toFixed(1))}%`;
