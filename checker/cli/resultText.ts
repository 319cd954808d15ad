/** The human summary of a check printed after the search: verdict, counts, coverage, how to replay. */
import { stopSignalText } from './commands/interrupt.ts';
import chalk from 'chalk';
import type { CheckReport } from '../run/report.ts';
import { fmt } from './progressDisplay.ts';
import { renderText } from '../../traces/text.ts';

/** `depthFirst`: the search was depth-first, so its counterexample is one path, not a shortest. */
export function formatReport(r: CheckReport, descriptions: ReadonlyMap<string, string>, depthFirst = false): string {
  const lines: string[] = [];
  const what = `${r.spec}${r.preset ? ` (preset ${r.preset})` : ''} ${Object.entries(r.params)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(' ')}`;
  lines.push(chalk.dim(`kmc check ${what}`));
  if (r.trace) lines.push(renderText(r.trace), '');
  const counts = `${fmt(r.distinct)} distinct states, ${fmt(r.generated)} generated, depth ${r.depth}, ${r.seconds.toFixed(1)} s (${fmt(r.seconds > 0 ? r.distinct / r.seconds : r.distinct)} distinct/s, ${r.owners !== undefined ? `${r.owners} owner${r.owners === 1 ? '' : 's'}` : `${r.workers} worker${r.workers === 1 ? '' : 's'}`})`;
  switch (r.status) {
    case 'holds':
      lines.push(`${chalk.green.bold('No violation:')} ${counts}`);
      break;
    case 'violation':
      if (r.kind === 'sometimes') {
        lines.push(`${chalk.red.bold('Vacuous:')} no reachable state satisfies ${r.unreached.join(', ')}; the model never does what ${r.unreached.length === 1 ? 'this witness' : 'these witnesses'} expect${r.unreached.length === 1 ? 's' : ''}.`);
        for (const name of r.unreached) lines.push(`  ${name}: ${descriptions.get(name) ?? ''}`);
      } else if (r.kind === 'liveness') {
        const loop = r.trace?.loop;
        lines.push(`${chalk.red.bold(`Temporal property ${r.property} violated`)}: a fair behaviour of ${r.traceLength ?? 1} states that repeats forever from step ${loop ?? '?'} (a lasso)`);
        if (r.unreached.length > 0) lines.push(`${chalk.red.bold('Vacuous as well:')} no reachable state satisfies ${r.unreached.join(', ')}.`);
      } else if (r.kind === 'deadlock') {
        lines.push(`${chalk.red.bold('Deadlock')} after ${(r.traceLength ?? 1) - 1} steps (turn detection off with --no-deadlock if the model may legitimately stop)`);
      } else {
        const what = r.kind === 'everyStep' ? `Step property ${r.property} violated` : `Invariant ${r.property} violated`;
        lines.push(`${chalk.red.bold(what)} ${r.kind === 'everyStep' ? 'by step' : 'after'} ${(r.traceLength ?? 1) - 1}${r.kind === 'everyStep' ? '' : ' steps'} (${depthFirst ? 'the path the depth-first search took, not necessarily a shortest; --strategy bfs finds one' : 'a shortest counterexample'})`);
      }
      lines.push(counts);
      break;
    case 'incomplete':
      lines.push(`${chalk.yellow.bold('Incomplete:')} stopped by ${describeReason(r.reason)}; no violation among the states explored. ${counts}`);
      if (r.message) lines.push(chalk.yellow(`Note: ${r.message}`));
      break;
    case 'error':
      lines.push(`${chalk.red.bold('The spec threw:')} ${r.message}`, counts);
      break;
  }
  if (r.witnesses.length > 0) lines.push(`Witnesses reached: ${r.witnesses.join(', ')}`);
  const disabled = r.coverage.filter((c) => c.disabledBy !== undefined).map((c) => `${c.action} (${c.disabledBy})`);
  if (disabled.length > 0) lines.push(chalk.dim(`Disabled by parameters: ${disabled.join(', ')}`));
  const name = (c: (typeof r.coverage)[number]) => c.label ?? c.action;
  const never = r.coverage.filter((c) => c.enabled === 0 && c.disabledBy === undefined && c.deadByConstruction === undefined).map(name);
  if (never.length > 0 && r.status === 'holds') lines.push(chalk.yellow(`Actions never enabled: ${never.join(', ')} (usually a modelling bug)`));
  const dead = r.coverage.filter((c) => c.deadByConstruction !== undefined);
  const declared = dead.filter((c) => c.enabled === 0).map((c) => `${name(c)} (${c.deadByConstruction})`);
  if (declared.length > 0) lines.push(chalk.dim(`Dead by construction, as declared: ${declared.join(', ')}`));
  const alive = dead.filter((c) => c.enabled > 0).map((c) => `${name(c)} (enabled in ${fmt(c.enabled)} states)`);
  if (alive.length > 0) lines.push(chalk.yellow(`Declared dead by construction but enabled: ${alive.join(', ')}`));
  const memory = r.tablesAtStartSize
    ? 'memory per state: too few states to measure (the tables are at their start size)'
    : `${fmt(r.bytesPerState)} bytes/state in the checker's tables and frontier, ${fmt(r.processBytesPerState)} of process growth`;
  lines.push(chalk.dim(`Fingerprint collision probability (optimistic): ${r.collisionProbability.toExponential(1)}; ${memory}`));
  return lines.join('\n');
}

export function formatCoverage(r: CheckReport): string {
  const name = (c: (typeof r.coverage)[number]) => c.label ?? c.action;
  const width = Math.max(6, ...r.coverage.map((c) => name(c).length));
  const rows = r.coverage.map((c) =>
    c.disabledBy !== undefined
      ? `  ${name(c).padEnd(width)}  disabled by parameters: ${c.disabledBy}`
      : `  ${name(c).padEnd(width)}  ${fmt(c.enabled).padStart(12)}  ${fmt(c.fired).padStart(12)}  ${fmt(c.newStates).padStart(12)}${c.deadByConstruction !== undefined && c.enabled === 0 ? `  dead by construction: ${c.deadByConstruction}` : ''}`,
  );
  return [`  ${'action'.padEnd(width)}  ${'enabled in'.padStart(12)}  ${'fired'.padStart(12)}  ${'new states'.padStart(12)}`, ...rows].join('\n');
}

function describeReason(reason: string | null): string {
  switch (reason) {
    case 'maxStates':
      return '--max-states';
    case 'maxDepth':
      return '--max-depth';
    case 'timeLimit':
      return '--time-limit';
    case 'memoryBudget':
      return 'the memory budget';
    case 'diskWrite':
      return 'a failed write of the frontier to the spill folder (see the note)';
    case 'interrupted':
      return stopSignalText();
    default:
      return String(reason);
  }
}
