/**
 * The Markdown summary of a CI run, for a pull-request comment or `$GITHUB_STEP_SUMMARY`: the headline,
 * the table, then what failed and why, each counterexample folded in a `<details>` block.
 */
import { renderText } from '../../traces/text.ts';
import { checkFails, headline, plural, type CiResult } from './gate.ts';
import { METRIC_NAMES } from './baseline.ts';
import { driftValue, OUTCOME_LABEL, percent, rowCells, seconds, toleranceText } from './format.ts';
import { describeFate } from './mutationTest.ts';
import type { CheckOutcome } from './outcome.ts';
import { shownPath } from './sourceFile.ts';

const ICON = { pass: '✅', fail: '❌', drift: '⚠️', skipped: '⏭️' } as const;

export function toMarkdown(r: CiResult): string {
  const out: string[] = [];
  const ok = r.exitCode === 0;
  out.push(`## ${ok ? ICON.pass : ICON.fail} kmc ci: ${headline(r)}`, '');
  out.push(`Suite \`${shownPath(r.run.suite.path)}\`, ${seconds(r.run.seconds)} on ${plural(r.run.lanes, 'lane')}.`, '');
  out.push('| | Check | Expected | Got | Distinct states | Depth | Time |', '|---|---|---|---|--:|--:|--:|');
  for (const o of r.run.outcomes) {
    const c = rowCells(o);
    const drifted = r.drift.drifts.some((d) => d.check === o.check.name);
    const icon = o.kind === 'skipped' ? ICON.skipped : checkFails(o, r) ? ICON.fail : drifted ? ICON.drift : ICON.pass;
    const label = o.kind === 'pass' ? (drifted ? ' (drift)' : '') : ` **${OUTCOME_LABEL[o.kind]}**`;
    out.push(`| ${icon} | ${cell(o.check.name)} | ${cell(o.expected)} | ${cell(o.got)}${label} | ${c.distinct} | ${c.depth} | ${c.time} |`);
  }

  const diffs = r.diffs ?? [];
  if (diffs.length > 0) {
    out.push('', '| | Design diff | Expected of B | Got |', '|---|---|---|---|');
    for (const d of diffs) out.push(`| ${d.pass ? ICON.pass : ICON.fail} | ${cell(d.diff.name)} | ${cell(d.expected)} | ${cell(d.got)} |`);
    const failing = diffs.filter((d) => !d.pass);
    if (failing.length > 0) {
      out.push('', '### Design diffs not as expected', '');
      for (const d of failing) out.push(`- **${inline(d.diff.name)}**: ${inline(d.message)}`);
    }
  }
  const differing = r.run.outcomes.filter((o) => ['broken', 'fixed', 'changed'].includes(o.kind));
  if (differing.length > 0) {
    out.push('', '### Verdicts that differ from the suite', '');
    for (const o of differing) out.push(`- **${inline(o.check.name)}**: ${inline(o.message)}`);
  }
  const errors = r.run.outcomes.filter((o) => o.kind === 'error');
  if (errors.length > 0) {
    out.push('', '### Spec errors', '');
    for (const o of errors) out.push(`- **${inline(o.check.name)}**: ${inline(o.message)}`);
  }
  const budget = r.run.outcomes.filter((o) => o.kind === 'budget');
  if (budget.length > 0) {
    out.push('', '### Out of budget', '');
    for (const o of budget) out.push(`- **${inline(o.check.name)}**: ${inline(o.message)}`);
  }
  if (r.drift.drifts.length > 0) {
    out.push('', `### State-space drift from the baseline${r.driftAllowed ? ' (reported, not failing)' : ''}`, '');
    out.push('A change in the size of the search that nobody asked for usually means an action got disabled or a guard got weaker.', '');
    out.push('| Check | Metric | Baseline | Now | Change | Tolerance |', '|---|---|--:|--:|--:|--:|');
    for (const d of r.drift.drifts) {
      const change = d.change !== null ? percent(d.change) : '';
      const note = d.paramsChanged ? ' (parameters changed)' : '';
      out.push(`| ${cell(d.check)} | ${METRIC_NAMES[d.metric]}${note} | ${cell(driftValue(d.before))} | ${cell(driftValue(d.after))} | ${change} | ${toleranceText(d.tolerance)} |`);
    }
    if (!r.baselineUpdated) out.push('', 'If the change is intended, run `kmc ci --update-baseline` and commit the baseline file.');
  } else if (!r.drift.baselineFound && !r.baselineUpdated) {
    out.push('', `_No baseline file (\`${shownPath(r.run.suite.baselinePath)}\`): drift is not checked. Create it with \`kmc ci --update-baseline\`._`);
  }
  if (r.baselineUpdated) out.push('', `_Baseline written to \`${shownPath(r.run.suite.baselinePath)}\`._`);

  const withTrace = r.run.outcomes.filter((o) => o.report?.trace && (checkFails(o, r) || o.kind === 'error'));
  for (const o of withTrace) {
    const steps = (o.report!.traceLength ?? 1) - 1;
    const what = o.kind === 'error' ? 'Trace to the spec error in' : 'Counterexample for';
    out.push('', `<details><summary>${what} ${escapeHtml(o.check.name)} (${plural(steps, 'step')})</summary>`, '', '```text');
    out.push(renderText(o.report!.trace!).replace(/\x1b\[[0-9;]*m/g, '').replace(/```/g, "'''"));
    out.push('```', '', '</details>');
  }
  if (r.mutation) out.push('', ...mutationMarkdown(r));
  out.push('');
  return out.join('\n');
}

function mutationMarkdown(r: CiResult): string[] {
  const m = r.mutation!;
  const out = [`### Mutation self-test`, '', `${plural(m.mutants.length, 'mutant')} in ${seconds(m.seconds)}.`, ''];
  const vacuous = m.invariants.filter((i) => i.killedBy.length === 0);
  if (m.invariants.length > 0) {
    out.push('| Check | Invariant | Violated by | Survive it |', '|---|---|--:|---|');
    for (const i of m.invariants) {
      const killed = `${i.killedBy.length} of ${i.killedBy.length + i.survivors.length + i.unknown.length}`;
      out.push(`| ${cell(i.check)} | ${cell(i.invariant)}${i.step ? ' (step property)' : ''}${i.killedBy.length === 0 ? ' ⚠️' : ''} | ${killed} | ${cell(i.survivors.join(', ') || '—')} |`);
    }
  }
  if (vacuous.length > 0) {
    out.push('', `⚠️ No mutant violates ${vacuous.map((i) => `\`${i.invariant}\` (${inline(i.check)})`).join(', ')}: probably vacuous.`);
  }
  const survivors = m.mutants.filter((x) => x.fate.kind === 'survived');
  if (survivors.length > 0) {
    out.push('', 'Mutants no property notices (add an invariant or a `sometimes` witness):', '');
    for (const s of survivors) out.push(`- ${inline(s.check)}: ${inline(s.label)}`);
  }
  out.push('', '<details><summary>Every mutant</summary>', '', '| Check | Mutant | Fate |', '|---|---|---|');
  for (const x of m.mutants) out.push(`| ${cell(x.check)} | ${cell(x.label)} | ${cell(describeFate(x.fate))} |`);
  out.push('', '</details>');
  if (m.truncated) out.push('', `_The total budget (${m.budget.totalSeconds} s) ran out before every mutant was checked._`);
  return out;
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Text safe inside a Markdown table cell. */
function cell(s: string): string {
  return inline(s).replace(/\|/g, '\\|');
}

function inline(s: string): string {
  return escapeHtml(s).replace(/\n/g, ' ');
}
