/**
 * JUnit XML for test-report tools (GitHub test reporters, Jenkins, GitLab): one `<testcase>` per check.
 * A differing verdict or counted drift is a `<failure>` whose body is the counterexample; a spec error
 * or an exhausted budget is an `<error>`; a skipped check is `<skipped>`. Elements and attributes keep to
 * the common JUnit schema (Jenkins junit-10.xsd), so strict consumers accept it.
 */
import { renderText } from '../../traces/text.ts';
import { checkFails, type CiResult } from './gate.ts';
import { driftText } from './format.ts';
import type { CheckOutcome } from './outcome.ts';
import type { DiffOutcome } from './diffEntry.ts';
import { shownPath } from './sourceFile.ts';
import { specLabel } from './loadSuite.ts';

export function toJUnit(r: CiResult): string {
  const outcomes = r.run.outcomes;
  const diffs = r.diffs ?? [];
  const failures = outcomes.filter((o) => failureOf(o, r) !== undefined).length + diffs.filter((d) => !d.pass).length;
  const errors = outcomes.filter((o) => o.kind === 'error' || o.kind === 'budget').length;
  const skipped = outcomes.filter((o) => o.kind === 'skipped').length;
  const tests = outcomes.length + diffs.length;
  const time = r.run.seconds.toFixed(3);
  const suiteName = shownPath(r.run.suite.path);
  const cases = [...outcomes.map((o) => testcase(o, r)), ...diffs.map(diffcase)];
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="kmc ci" tests="${tests}" failures="${failures}" errors="${errors}" time="${time}">`,
    `  <testsuite name="${attr(suiteName)}" tests="${tests}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${time}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

function testcase(o: CheckOutcome, r: CiResult): string {
  const time = (o.report?.seconds ?? 0).toFixed(3);
  const open = `    <testcase name="${attr(o.check.name)}" classname="${attr(classname(o))}" time="${time}"`;
  const body: string[] = [];
  if (o.kind === 'skipped') body.push(`      <skipped message="${attr(o.check.skip ?? '')}"/>`);
  else if (o.kind === 'error' || o.kind === 'budget') {
    body.push(`      <error message="${attr(`${o.check.name}: ${o.message}`)}" type="${o.kind}">${text(counterexample(o) ?? o.message)}</error>`);
  } else {
    const f = failureOf(o, r);
    if (f) body.push(`      <failure message="${attr(f.message)}" type="${f.type}">${text(f.body)}</failure>`);
  }
  if (o.report) {
    const stats = `expected ${o.expected}; got ${o.got}; ${o.report.distinct} distinct states, ${o.report.generated} generated, depth ${o.report.depth}`;
    body.push(`      <system-out>${text(stats)}</system-out>`);
  }
  return body.length === 0 ? `${open}/>` : [`${open}>`, ...body, '    </testcase>'].join('\n');
}

/** A design diff: a failure when B does not fix and break exactly what the suite says. */
function diffcase(d: DiffOutcome): string {
  const open = `    <testcase name="${attr(d.diff.name)}" classname="${attr(`kmc.${d.diff.spec}.diff`)}" time="${((d.result?.a.seconds ?? 0) + (d.result?.b.seconds ?? 0)).toFixed(3)}"`;
  if (d.pass) return `${open}/>`;
  const message = `${d.diff.name}: ${d.message}`;
  return [`${open}>`, `      <failure message="${attr(message)}" type="diff">${text(message)}</failure>`, '    </testcase>'].join('\n');
}

function failureOf(o: CheckOutcome, r: CiResult): { type: string; message: string; body: string } | undefined {
  if (o.kind === 'broken' || o.kind === 'fixed' || o.kind === 'changed') {
    const message = `${o.check.name}: expected ${o.expected}, got ${o.got}: ${o.message}`;
    return { type: o.kind, message, body: counterexample(o) ?? message };
  }
  if (o.kind === 'pass' && checkFails(o, r)) {
    const lines = r.drift.drifts.filter((d) => d.check === o.check.name).map(driftText);
    return { type: 'drift', message: `${o.check.name}: state space drifted from the baseline: ${lines.join('; ')}`, body: lines.join('\n') };
  }
  return undefined;
}

function counterexample(o: CheckOutcome): string | undefined {
  const trace = o.report?.trace;
  if (!trace) return undefined;
  return `${o.message}\n\n${renderText(trace).replace(/\x1b\[[0-9;]*m/g, '')}`;
}

function classname(o: CheckOutcome): string {
  return `kmc.${o.report?.spec ?? specLabel(o.check.spec)}`;
}

/** XML 1.0 text: escaped, and without the control characters XML cannot carry. */
function text(s: string): string {
  return s
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

function attr(s: string): string {
  return text(s).replace(/"/g, '&quot;').replace(/\n/g, '&#10;');
}
