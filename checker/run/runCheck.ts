/**
 * Runs one check from names, as the CLI and the CI gate ask for it: load the spec, resolve the preset
 * and parameters, build the model, apply the preset's own options, check.
 */
import type { Expectation, Model } from '../../spec/spec.ts';
import { checkModel, ConfigError, type CheckLabel } from '../engine/check.ts';
import { ExitCode } from './exitCodes.ts';
import { loadSpec, type LoadedSpec } from './loadSpec.ts';
import type { CheckOptions } from '../engine/options.ts';
import { resolveParams } from './params.ts';
import type { CheckResult } from '../engine/result.ts';
import { UserError } from './userError.ts';
import { CANNOT_BE_CHECKED } from '../engine/state/packed.ts';

export interface CheckRequest {
  readonly spec: string;
  readonly preset?: string;
  /** `NAME=VALUE` overrides. */
  readonly params?: readonly string[];
  /** `NAME=VALUE` applied before `params` (a replayed trace's own parameters). */
  readonly baseParams?: readonly string[];
  /** Where warnings about the parameters go (default: standard error). */
  readonly warn?: (message: string) => void;
  readonly options?: CheckOptions;
}

export interface CheckRun {
  readonly loaded: LoadedSpec;
  readonly label: CheckLabel;
  readonly expect?: Expectation;
  readonly options: CheckOptions;
  readonly result: CheckResult<unknown>;
}

export interface PreparedCheck {
  readonly loaded: LoadedSpec;
  readonly label: CheckLabel;
  readonly model: Model<unknown>;
  readonly expect?: Expectation;
  readonly options: CheckOptions;
}

/** Everything up to the search itself; user mistakes surface here as `UserError`. */
export async function prepareCheck(req: CheckRequest): Promise<PreparedCheck> {
  const loaded = await loadSpec(req.spec);
  const { params, preset, warnings } = resolveParams(loaded.definition, req.preset, req.params ?? [], req.baseParams ?? []);
  const warn = req.warn ?? ((m: string) => process.stderr.write(`warning: ${m}\n`));
  for (const w of warnings) warn(w);
  const label: CheckLabel = { spec: loaded.definition.name, ...(preset ? { preset: preset.name } : {}), params };
  const model = buildModel(loaded, params);
  requireInitialState(model, label);
  const options: CheckOptions = { ...withoutUndefined(preset?.options ?? {}), ...withoutUndefined(req.options ?? {}) };
  return { loaded, label, model, options, ...(preset ? { expect: preset.expect } : {}) };
}

export async function runCheck(req: CheckRequest): Promise<CheckRun> {
  const p = await prepareCheck(req);
  let result: CheckResult<unknown>;
  try {
    result = await checkModel(p.model, p.options, p.label, { modulePath: p.loaded.modulePath, params: p.label.params });
  } catch (e) {
    if (e instanceof ConfigError) throw new UserError(`Cannot check ${p.label.spec}: ${e.message}`);
    if (e instanceof Error && (e.name === 'ClusterError' || e.name === 'OwnerLost')) throw new UserError(`Cannot check ${p.label.spec} on the cluster: ${e.message}`, ExitCode.Cluster);
    // The fingerprint refuses values it cannot compare by value (a plain object or array in a state).
    if (e instanceof Error && /^a state holds a plain/.test(e.message)) throw new UserError(`The spec ${p.label.spec}: ${e.message}. Build the state from Immutable values (or declare a layout).`);
    if (e instanceof Error && e.message.startsWith(CANNOT_BE_CHECKED)) throw new UserError(`The spec ${p.label.spec} cannot be checked: ${e.message.slice(CANNOT_BE_CHECKED.length)}.`);
    throw e;
  }
  return { loaded: p.loaded, label: p.label, options: p.options, result, ...(p.expect ? { expect: p.expect } : {}) };
}

export function buildModel(loaded: LoadedSpec, params: CheckLabel['params']): Model<unknown> {
  try {
    return loaded.definition.build(params);
  } catch (e) {
    throw new UserError(
      `The spec ${loaded.definition.name} threw while building its model for ${JSON.stringify(params)}: ${e instanceof Error ? e.message : String(e)}`,
      ExitCode.SpecError,
    );
  }
}

/** A model whose init gives no state would "hold" vacuously: refuse it. */
function requireInitialState(model: Model<unknown>, label: CheckLabel): void {
  let first: IteratorResult<unknown>;
  try {
    first = model.init()[Symbol.iterator]().next();
  } catch (e) {
    throw new UserError(`The spec ${label.spec} threw in init for ${JSON.stringify(label.params)}: ${e instanceof Error ? e.message : String(e)}`, ExitCode.SpecError);
  }
  if (first.done) throw new UserError(`The spec ${label.spec}'s init returned no state for ${JSON.stringify(label.params)}: there is nothing to check. init must return at least one initial state.`);
}

function withoutUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
