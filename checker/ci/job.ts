/**
 * One unit of CI work: check one spec instance (optionally mutated) and return its report. Jobs and
 * their results are plain data, so a job runs the same in this thread or in a worker thread.
 */
import { checkModel, ConfigError } from '../engine/check.ts';
import type { CheckOptions, FoundVerdict } from '../engine/options.ts';
import { toReport, type CheckReport } from '../run/report.ts';
import { prepareCheck } from '../run/runCheck.ts';
import { UserError } from '../run/userError.ts';
import { mutateModel, type Mutation } from './mutate.ts';

export interface Job {
  readonly specRef: string;
  readonly preset?: string;
  /** `NAME=VALUE` overrides. */
  readonly params: readonly string[];
  /** Only serialisable options: no callbacks. */
  readonly options: Omit<CheckOptions, 'onProgress' | 'shouldStop'>;
  readonly mutation?: Mutation;
  /** Check only this property (and no deadlock): does this mutant violate this invariant at all? */
  readonly onlyProperty?: string;
}

export type JobResult =
  | { readonly ok: true; readonly report: CheckReport; readonly descriptions: Readonly<Record<string, string>> }
  /**
   * The job could not run: a user mistake the suite validation could not foresee, or a thread that died.
   * `pastBudget`: the check's thread was ended at its time budget, a step of its spec never returning.
   */
  | { readonly ok: false; readonly message: string; readonly pastBudget?: true };

/** Runs one check; `onVerdict` hears of a verdict before its counterexample is rebuilt (CheckOptions). */
export async function executeJob(job: Job, shouldStop?: () => boolean, onVerdict?: (verdict: FoundVerdict) => void): Promise<JobResult> {
  try {
    const p = await prepareCheck({
      spec: job.specRef,
      ...(job.preset !== undefined ? { preset: job.preset } : {}),
      params: job.params,
      options: job.options,
    });
    let model = p.model;
    let options: CheckOptions = { ...p.options, ...(shouldStop ? { shouldStop } : {}), ...(onVerdict ? { onVerdict } : {}) };
    if (job.mutation) model = mutateModel(model, job.mutation);
    if (job.onlyProperty !== undefined) {
      model = { ...model, properties: model.properties.filter((x) => x.name === job.onlyProperty) };
      options = { ...options, deadlock: false };
    }
    const descriptions = Object.fromEntries(p.model.properties.map((x) => [x.name, x.description]));
    // A mutated model exists only in this thread: worker threads would rebuild the original.
    const source = job.mutation || job.onlyProperty !== undefined ? undefined : { modulePath: p.loaded.modulePath, params: p.label.params };
    const result = await checkModel(model, options, p.label, source);
    return { ok: true, report: toReport(result, p.label), descriptions };
  } catch (e) {
    if (e instanceof UserError || e instanceof ConfigError) return { ok: false, message: e.message };
    // A crash inside the checker fails this check, not the whole suite.
    const cause = e instanceof Error && e.cause instanceof Error ? ` (${e.cause.message})` : '';
    return { ok: false, message: `kmc failed while checking: ${e instanceof Error ? e.message : String(e)}${cause}` };
  }
}
