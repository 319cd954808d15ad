/**
 * kmc for programs: `check('kraft', { preset: 'kraft-16281' })` runs the check `kmc check --json` runs and
 * returns the same report object, with the exit code the command would give. A mistake in the request (an
 * unknown spec, preset or parameter) rejects with a `UserError` naming it, as the command prints it.
 */
import type { CheckOptions } from '../engine/options.ts';
import type { ExitCode } from './exitCodes.ts';
import type { CheckReport } from './report.ts';

export interface CheckCall {
  readonly preset?: string;
  /** Parameter values by name (`{ voters: 4 }`), over the preset's. */
  readonly params?: Readonly<Record<string, string | number | boolean>>;
  /** The search's options: limits, workers, symmetry, deadlock detection (as `kmc check`'s flags). */
  readonly options?: Omit<CheckOptions, 'onProgress' | 'shouldStop'> & Pick<CheckOptions, 'onProgress' | 'shouldStop'>;
}

export interface CheckOutcome {
  readonly report: CheckReport;
  readonly exitCode: ExitCode;
}

/** Checks `spec` (a bundled name or a module path) and returns `kmc check --json`'s report and exit code. */
export async function check(spec: string, call: CheckCall = {}): Promise<CheckOutcome> {
  const [{ runCheck }, { toReport, exitCodeOf }] = await Promise.all([import('./runCheck.ts'), import('./report.ts')]);
  const run = await runCheck({
    spec,
    ...(call.preset !== undefined ? { preset: call.preset } : {}),
    params: Object.entries(call.params ?? {}).map(([k, v]) => `${k}=${String(v)}`),
    warn: () => {},
    ...(call.options ? { options: call.options } : {}),
  });
  return { report: toReport(run.result, run.label), exitCode: exitCodeOf(run.result) };
}
