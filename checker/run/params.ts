/**
 * Resolves a spec's parameters: defaults, then the preset's values, then `--param NAME=VALUE` overrides,
 * each validated against the parameter's type and range.
 */
import type { ParamDef, ParamValue, ParamValues, Preset, SpecDefinition } from '../../spec/spec.ts';
import { UserError, choices } from './userError.ts';

export interface ResolvedParams {
  readonly params: ParamValues;
  readonly preset?: Preset;
  /** A `--param` that replaced a value the preset or an earlier `--param` had given, naming both. */
  readonly warnings: readonly string[];
}

/** `base` (e.g. a replayed trace's parameters) applies before `overrides` and may be overridden silently. */
export function resolveParams(spec: SpecDefinition<unknown>, presetName: string | undefined, overrides: readonly string[], base: readonly string[] = []): ResolvedParams {
  const values: Record<string, ParamValue> = {};
  for (const p of spec.params) values[p.name] = p.default;
  let preset: Preset | undefined;
  if (presetName !== undefined) {
    preset = spec.presets.find((p) => p.name === presetName);
    if (!preset) {
      throw new UserError(`Unknown preset '${presetName}' for spec ${spec.name}. Its presets are ${choices(spec.presets.map((p) => p.name))}.`);
    }
    for (const [k, v] of Object.entries(preset.params)) if (v !== undefined) values[k] = v;
  }
  const warnings: string[] = [];
  const given = new Map<string, ParamValue>();
  for (const [index, text] of [...base, ...overrides].entries()) {
    const eq = text.indexOf('=');
    if (eq <= 0) throw new UserError(`--param takes NAME=VALUE, got '${text}'. Parameters of ${spec.name}: ${describeParams(spec.params)}.`);
    const name = text.slice(0, eq);
    const def = spec.params.find((p) => p.name === name);
    if (!def) throw new UserError(`Unknown parameter '${name}' for spec ${spec.name}. Its parameters are: ${describeParams(spec.params)}.`);
    const value = parseValue(spec.name, def, text.slice(eq + 1));
    if (index >= base.length) {
      const earlier = given.get(name);
      if (earlier !== undefined && earlier !== value) warnings.push(`--param ${name}=${String(value)} replaces --param ${name}=${String(earlier)} given before it.`);
      else if (earlier === undefined && preset && preset.params[name] !== undefined && preset.params[name] !== value) {
        warnings.push(`--param ${name}=${String(value)} overrides preset ${preset.name}'s ${name}=${String(preset.params[name])}.`);
      }
      given.set(name, value);
    }
    values[name] = value;
  }
  return preset ? { params: values, preset, warnings } : { params: values, warnings };
}

export function parseValue(specName: string, def: ParamDef, raw: string): ParamValue {
  switch (def.type) {
    case 'int': {
      const n = /^-?\d+$/.test(raw.trim()) ? Number(raw) : NaN;
      if (!Number.isSafeInteger(n) || n < def.min || n > def.max) {
        throw new UserError(`Parameter ${def.name} of ${specName} must be a whole number from ${def.min} to ${def.max} (${def.description}); got '${raw}'.`);
      }
      return n;
    }
    case 'bool':
      if (raw === 'true') return true;
      if (raw === 'false') return false;
      throw new UserError(`Parameter ${def.name} of ${specName} must be true or false (${def.description}); got '${raw}'.`);
    case 'enum':
      if (def.choices.includes(raw)) return raw;
      throw new UserError(`Parameter ${def.name} of ${specName} must be one of ${choices(def.choices)} (${def.description}); got '${raw}'.`);
  }
}

/** "rm (int 1..10, default 3), bug (none|tmCommitEarly, default none)" */
export function describeParams(params: readonly ParamDef[]): string {
  if (params.length === 0) return '(none)';
  return params.map((p) => `${p.name} (${rangeOf(p)}, default ${String(p.default)})`).join(', ');
}

export function rangeOf(p: ParamDef): string {
  switch (p.type) {
    case 'int':
      return `int ${p.min}..${p.max}`;
    case 'bool':
      return 'true|false';
    case 'enum':
      return p.choices.join('|');
  }
}
