/**
 * What a check's result means for the gate: the verdict matched, the change broke an invariant, fixed a
 * known bug (the expected violation is gone), changed which property fails, ran out of budget, or
 * crashed the spec. Each outcome carries one sentence saying so, for the table, JUnit and annotations.
 */
import type { CheckReport } from '../run/report.ts';
import { describeExpectation, type SuiteCheck } from './suite.ts';

export type OutcomeKind = 'pass' | 'broken' | 'fixed' | 'changed' | 'budget' | 'error' | 'skipped';

export interface CheckOutcome {
  readonly check: SuiteCheck;
  readonly kind: OutcomeKind;
  readonly expected: string;
  readonly got: string;
  /** One sentence for a reader of the PR; empty for a plain pass. */
  readonly message: string;
  readonly report?: CheckReport;
  /** Property descriptions of the model, for messages. */
  readonly descriptions?: Readonly<Record<string, string>>;
}

/** A verdict that differs from the suite's expectation (as opposed to budget, error, skip). */
export const VERDICT_KINDS: readonly OutcomeKind[] = ['broken', 'fixed', 'changed'];

export function skippedOutcome(check: SuiteCheck): CheckOutcome {
  return { check, kind: 'skipped', expected: describeExpectation(check.expect), got: 'skipped', message: `skipped: ${check.skip ?? ''}` };
}

export function failedToRun(check: SuiteCheck, message: string): CheckOutcome {
  return { check, kind: 'error', expected: describeExpectation(check.expect), got: 'error', message: `could not run: ${message}` };
}

/** The check's thread was ended at its time budget: a step of its spec never returned (workerLane.ts). */
export function ranPastBudget(check: SuiteCheck, message: string): CheckOutcome {
  return { check, kind: 'budget', expected: describeExpectation(check.expect), got: 'incomplete', message };
}

export function notRun(check: SuiteCheck): CheckOutcome {
  return { check, kind: 'budget', expected: describeExpectation(check.expect), got: 'not run', message: 'not run: the run was interrupted before this check started' };
}

export function classify(check: SuiteCheck, report: CheckReport, descriptions: Readonly<Record<string, string>> = {}): CheckOutcome {
  const expected = describeExpectation(check.expect);
  const base = { check, expected, report, descriptions };
  const steps = report.traceLength !== null ? report.traceLength - 1 : null;
  const after = steps !== null ? ` after ${steps} step${steps === 1 ? '' : 's'}` : '';
  switch (report.status) {
    case 'error': {
      const where = steps === null ? '' : steps === 0 ? ' in an initial state' : ` in the state reached after ${steps} step${steps === 1 ? '' : 's'}`;
      return { ...base, kind: 'error', got: 'error', message: `the spec threw${where}: ${report.message ?? ''}` };
    }
    case 'incomplete': {
      const boundReached = report.reason === 'maxStates' || report.reason === 'maxDepth';
      if (check.bounded && boundReached && check.expect.verdict === 'holds') {
        return { ...base, kind: 'pass', got: 'holds (bounded)', message: `no violation within the bound (${boundText(check, report)})` };
      }
      return {
        ...base,
        kind: 'budget',
        got: `incomplete (${report.reason ?? 'stopped'})`,
        message:
          report.reason === 'interrupted'
            ? 'interrupted before the search finished'
            : `ran out of its ${budgetName(report.reason)} budget (${boundText(check, report)}) before the search finished; raise the budget${check.bounded ? '' : ', or mark the check bounded if exploring part of the state space is enough'}`,
      };
    }
    case 'holds':
      if (check.expect.verdict === 'holds') return { ...base, kind: 'pass', got: 'holds', message: '' };
      return {
        ...base,
        kind: 'fixed',
        got: 'holds',
        message: `no longer violates ${check.expect.property}: if the change fixes this known bug, change the check's expect to holds`,
      };
    case 'violation': {
      const property = report.property ?? '?';
      const got = `violates ${property}`;
      const what = describeViolation(report, descriptions, after);
      // A witness expected unreached passes only alone: another witness lost too is a change.
      const exactly = report.kind !== 'sometimes' || (report.unreached.length === 1 && report.unreached[0] === property);
      if (check.expect.verdict === 'violates' && check.expect.property === property && exactly) return { ...base, kind: 'pass', got, message: '' };
      if (check.expect.verdict === 'holds') return { ...base, kind: 'broken', got, message: `breaks ${property}: ${what}` };
      if (check.expect.property === property) return { ...base, kind: 'changed', got: `violates ${report.unreached.join(', ')}`, message: `${what}, not ${property} alone` };
      return { ...base, kind: 'changed', got, message: `violates ${property} instead of ${check.expect.property}: ${what}` };
    }
  }
}

function describeViolation(r: CheckReport, descriptions: Readonly<Record<string, string>>, after: string): string {
  const p = r.property ?? '?';
  if (r.kind === 'deadlock') return `a state with no enabled action is reachable${after}`;
  if (r.kind === 'liveness') return `${descriptions[p] ?? 'the temporal property'} fails on a fair behaviour that loops forever${after}`;
  if (r.kind === 'sometimes') return `no reachable state satisfies ${r.unreached.join(', ')} (${descriptions[p] ?? 'a witness'}): something the model must be able to do became impossible`;
  if (r.kind === 'everyStep') return `${descriptions[p] ?? 'the step property'} fails on the last step${after}`;
  return `${descriptions[p] ?? 'the invariant'} fails${after}`;
}

function budgetName(reason: string | null): string {
  switch (reason) {
    case 'maxStates':
      return 'state';
    case 'maxDepth':
      return 'depth';
    case 'timeLimit':
      return 'time';
    case 'memoryBudget':
      return 'memory';
    case 'diskWrite':
      return 'disk';
    default:
      return String(reason);
  }
}

function boundText(check: SuiteCheck, r: CheckReport): string {
  switch (r.reason) {
    case 'maxStates':
      return `${check.budget.maxStates?.toLocaleString('en-US')} states`;
    case 'maxDepth':
      return `depth ${check.budget.maxDepth}`;
    case 'timeLimit':
      return `${check.budget.timeSeconds} s, ${r.distinct.toLocaleString('en-US')} states explored`;
    default:
      return `${r.distinct.toLocaleString('en-US')} states explored`;
  }
}
