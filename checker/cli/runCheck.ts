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

export interface CheckRequest {
  readonly spec: string;
  readonly preset?: string;
  /** `NAME=VALUE` overrides. */
  readonly params?: readonly string[];
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
  const { params, preset } = resolveParams(loaded.definition, req.preset, req.params ?? []);
  const label: CheckLabel = { spec: loaded.definition.name, ...(preset ? { preset: preset.name } : {}), params };
  const model = buildModel(loaded, params);
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

function withoutUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
