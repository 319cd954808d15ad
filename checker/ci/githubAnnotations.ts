/**
 * GitHub Actions workflow commands (`::error file=…,line=…::…`), printed when GITHUB_ACTIONS=true so
 * each failing check is annotated on its line of the suite file in the pull request.
 */
import { checkFails, type CiResult } from './gate.ts';
import { driftText } from './format.ts';
import { shownPath } from './sourceFile.ts';

export function githubAnnotations(r: CiResult): string[] {
  const file = shownPath(r.run.suite.path);
  const out: string[] = [];
  const at = (line: number) => ({ file, line: String(line) });
  for (const o of r.run.outcomes) {
    if (o.kind === 'skipped') continue;
    if (o.kind !== 'pass') {
      out.push(command('error', { ...at(o.check.line), title: `kmc ci: ${o.check.name}: expected ${o.expected}, got ${o.got}` }, o.message));
      continue;
    }
    const drifts = r.drift.drifts.filter((d) => d.check === o.check.name);
    if (drifts.length > 0) {
      const level = checkFails(o, r) ? 'error' : 'warning';
      out.push(command(level, { ...at(o.check.line), title: `kmc ci: ${o.check.name}: state space drifted from the baseline` }, drifts.map(driftText).join('\n')));
    }
  }
  for (const d of r.diffs ?? []) {
    if (!d.pass) out.push(command('error', { ...at(d.diff.line), title: `kmc ci: design diff ${d.diff.name}: B ${d.got}` }, d.message));
  }
  const m = r.mutation;
  if (m) {
    const lineOf = new Map(r.run.outcomes.map((o) => [o.check.name, o.check.line]));
    for (const inv of m.invariants.filter((i) => i.killedBy.length === 0)) {
      out.push(
        command(
          'warning',
          { ...at(lineOf.get(inv.check) ?? 1), title: `kmc ci --mutate: ${inv.invariant} may be vacuous` },
          `No mutant of ${inv.check} (one action disabled or one guard dropped) violates ${inv.invariant} (${inv.description}).`,
        ),
      );
    }
  }
  return out;
}

/** `::level key=value,…::message`, escaped as the runner expects. */
export function command(level: 'error' | 'warning' | 'notice', props: Record<string, string>, message: string): string {
  const p = Object.entries(props)
    .map(([k, v]) => `${k}=${escapeProperty(v)}`)
    .join(',');
  return `::${level} ${p}::${escapeData(message)}`;
}

function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}
