/** The terminal form of a CI run: one table row per check, then what failed and why, then the headline. */
import chalk from 'chalk';
import { relative } from 'node:path';
import { shownPath } from './sourceFile.ts';
import { checkFails, headline, plural, type CiResult } from './gate.ts';
import { driftText, OUTCOME_LABEL, rowCells, seconds, toleranceText } from './format.ts';
import { describeFate, type InvariantResult, type MutationReport } from './mutationTest.ts';
import type { CheckOutcome } from './outcome.ts';

export function summaryText(r: CiResult): string {
  const rows = r.run.outcomes.map((o) => {
    const cells = rowCells(o);
    const drifted = r.drift.drifts.some((d) => d.check === o.check.name);
    const result = o.kind === 'pass' && drifted ? 'DRIFT' : OUTCOME_LABEL[o.kind];
    return [result, o.check.name, o.expected, o.got, cells.distinct, cells.depth, cells.time];
  });
  const header = ['result', 'check', 'expected', 'got', 'distinct', 'depth', 'time'];
  const right = new Set([4, 5, 6]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (right.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
  const colour = (o: CheckOutcome, text: string) =>
    o.kind === 'skipped' ? chalk.dim(text) : checkFails(o, r) ? chalk.red(text) : o.kind === 'pass' && text.startsWith('DRIFT') ? chalk.yellow(text) : chalk.green(text);
  const out: string[] = [chalk.bold(line(header))];
  r.run.outcomes.forEach((o, i) => {
    const text = line(rows[i]!);
    const cut = widths[0]!;
    out.push(colour(o, text.slice(0, cut)) + text.slice(cut));
  });

  const where = (o: CheckOutcome) => `${o.check.name} (${shownPath(r.run.suite.path)}:${o.check.line})`;
  const section = (title: string, lines: string[]) => {
    if (lines.length > 0) out.push('', chalk.bold(title), ...lines.map((l) => `  ${l}`));
  };
  const files = (o: CheckOutcome) => {
    const f = r.files[o.check.name]?.find((p) => p.endsWith('.itf.json'));
    return f ? `\n    counterexample: ${relative(process.cwd(), f) || f}` : '';
  };
  section(
    'Verdicts that differ from the suite:',
    r.run.outcomes.filter((o) => ['broken', 'fixed', 'changed'].includes(o.kind)).map((o) => `${where(o)}: ${o.message}${files(o)}`),
  );
  section('Spec errors:', r.run.outcomes.filter((o) => o.kind === 'error').map((o) => `${where(o)}: ${o.message}${files(o)}`));
  section('Out of budget:', r.run.outcomes.filter((o) => o.kind === 'budget').map((o) => `${where(o)}: ${o.message}`));
  const baseline = shownPath(r.run.suite.baselinePath);
  section(
    `State-space drift from ${baseline}${r.baselineUpdated ? ' (the new baseline records it)' : r.driftAllowed ? ' (reported, not failing)' : ''}:`,
    r.drift.drifts.map((d) => `${d.check}: ${driftText(d)}, beyond the ${toleranceText(d.tolerance)} tolerance`),
  );
  if (r.drift.drifts.length > 0 && !r.baselineUpdated) {
    out.push(chalk.dim('  If the change is intended, record it with kmc ci --update-baseline and commit the baseline file.'));
  }
  const notes: string[] = [];
  if (!r.drift.baselineFound && !r.baselineUpdated) notes.push(`No baseline at ${baseline}: state-space drift is not checked (create it with kmc ci --update-baseline).`);
  if (r.drift.missing.length > 0 && !r.baselineUpdated) notes.push(`No baseline entry yet for ${r.drift.missing.join(', ')}.`);
  if (r.drift.stale.length > 0 && !r.baselineUpdated) notes.push(`The baseline has entries for checks no longer in the suite: ${r.drift.stale.join(', ')}.`);
  if (r.baselineUpdated) notes.push(`Baseline written to ${baseline}.`);
  if (notes.length > 0) out.push('', ...notes.map((n) => chalk.dim(n)));
  if (r.mutation) out.push('', mutationText(r.mutation));
  const ok = r.exitCode === 0;
  out.push('', `${ok ? chalk.green.bold('kmc ci: passed') : chalk.red.bold('kmc ci: FAILED')} — ${headline(r)} (${seconds(r.run.seconds)}, ${plural(r.run.lanes, 'lane')})`);
  return out.join('\n');
}

/** Why an invariant no mutant violates deserves a look. */
export function vacuityText(inv: InvariantResult): string {
  return inv.bounded
    ? `no mutant violates it within the check's bound: it may be vacuous (${inv.description})`
    : `no mutant can violate it: it is probably vacuous (${inv.description})`;
}

export function mutationText(m: MutationReport): string {
  const out: string[] = [chalk.bold(`Mutation self-test (${plural(m.mutants.length, 'mutant')}, ${seconds(m.seconds)}):`)];
  let current = '';
  for (const x of m.mutants) {
    if (x.check !== current) {
      current = x.check;
      out.push(`  ${x.check}`);
    }
    const fate = describeFate(x.fate);
    out.push(`    ${x.label.padEnd(40)} ${x.fate.kind === 'survived' ? chalk.yellow(fate) : fate}`);
  }
  if (m.invariants.length > 0) {
    out.push('', chalk.bold('  Per invariant:'));
    for (const inv of m.invariants) {
      const total = inv.killedBy.length + inv.survivors.length + inv.unknown.length;
      const head = `    ${inv.check} ${inv.invariant}${inv.step ? ' (step property)' : ''}: violated by ${inv.killedBy.length} of ${total} mutants`;
      if (inv.killedBy.length === 0) out.push(chalk.yellow(`${head} — ${vacuityText(inv)}`));
      else out.push(head);
      if (inv.survivors.length > 0) out.push(`      survive it: ${inv.survivors.join(', ')}`);
      if (inv.unknown.length > 0) out.push(chalk.dim(`      unknown: ${inv.unknown.join(', ')}`));
    }
  }
  const survivors = m.mutants.filter((x) => x.fate.kind === 'survived');
  if (survivors.length > 0) {
    out.push('', chalk.yellow(`  ${plural(survivors.length, 'mutant')} survived every property: no property notices the change (add an invariant or a sometimes witness):`));
    for (const s of survivors) out.push(`    ${s.check}: ${s.label}`);
  }
  for (const s of m.skipped) out.push(chalk.dim(`  not mutated: ${s.check} (${s.reason})`));
  if (m.truncated) out.push(chalk.yellow(`  The total budget (${m.budget.totalSeconds} s) ran out: some mutants were not checked (raise --mutate-seconds).`));
  return out.join('\n');
}
