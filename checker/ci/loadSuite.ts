/**
 * Reads a suite file and validates it twice: its shape (fields, types, ranges) and then each check
 * against its spec (the spec loads, the preset and parameters exist, the expected property is one the
 * model has). Every problem is collected, so one run of `kmc ci` lists them all with file, line and field.
 */
import { existsSync } from 'node:fs';
import { basename, dirname, extname, resolve } from 'node:path';
import type { Expectation, ParamValue, SpecDefinition } from '../../spec/spec.ts';
import { loadSpec } from '../run/loadSpec.ts';
import { closest } from '../run/closest.ts';
import { parseValue } from '../run/params.ts';
import { buildModel } from '../run/runCheck.ts';
import { BUNDLED_NAMES, BUNDLED_SPECS } from '../run/registry.ts';
import { UserError, choices } from '../run/userError.ts';
import { InputFileError, readSourceFile, type FieldPath, type Problem, type SourceFile } from './sourceFile.ts';
import { DEFAULT_TIME_SECONDS, DEFAULT_TOLERANCE, SUITE_VERSION, type Budget, type DiffVariant, type Suite, type SuiteCheck, type SuiteDiff } from './suite.ts';

const TOP_KEYS = ['$schema', 'version', 'baseline', 'tolerance', 'defaults', 'checks', 'diffs'];
const DIFF_KEYS = ['name', 'spec', 'a', 'b', 'expect'];
const VARIANT_KEYS = ['preset', 'params'];
const DIFF_EXPECT_KEYS = ['fixes', 'breaks'];
const DEFAULTS_KEYS = ['budget', 'options'];
const CHECK_KEYS = ['name', 'spec', 'preset', 'params', 'expect', 'budget', 'bounded', 'options', 'tolerance', 'skip'];
const BUDGET_KEYS = ['timeSeconds', 'maxStates', 'maxDepth'];
const OPTION_KEYS = ['deadlock', 'symmetry'];
/** The field names the validator accepts, for the schema test. */
export const SUITE_FIELDS = { top: TOP_KEYS, defaults: DEFAULTS_KEYS, check: CHECK_KEYS, budget: BUDGET_KEYS, options: OPTION_KEYS };

export async function loadSuite(path: string): Promise<Suite> {
  const abs = resolve(path);
  return validateSuite(readSourceFile(abs, 'The suite'));
}

export async function validateSuite(src: SourceFile): Promise<Suite> {
  const v = new Validator(src);
  const shaped = v.suite();
  // Checks with shape problems are already left out; the rest are checked against their specs anyway,
  // so that one run lists every problem.
  await checkAgainstSpecs(shaped, v);
  if (v.problems.length > 0) throw new InputFileError('The suite', [...v.problems].sort((a, b) => a.line - b.line || a.col - b.col));
  return shaped.suite;
}

interface Shaped {
  readonly suite: Suite;
  /** Index of each check in the file's `checks` list. */
  readonly indexes: readonly number[];
}

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);
const typeName = (x: unknown) => (x === null ? 'nothing' : Array.isArray(x) ? 'a list' : typeof x === 'object' ? 'a mapping' : `${typeof x} ${JSON.stringify(x)}`);

class Validator {
  readonly problems: Problem[] = [];
  constructor(readonly src: SourceFile) {}

  report(path: FieldPath, message: string, key = false): void {
    this.problems.push(this.src.problem(path, message, key));
  }

  /** The mapping at `path`, with unknown keys reported (with a suggestion when one is close). */
  mapping(value: unknown, path: FieldPath, allowed: readonly string[], what: string): Obj | undefined {
    if (!isObj(value)) {
      this.report(path, `${what} must be a mapping (key: value lines); got ${typeName(value)}`);
      return undefined;
    }
    for (const k of Object.keys(value)) {
      if (!allowed.includes(k)) {
        const near = closest(k, allowed);
        this.report([...path, k], `unknown field '${k}'${near ? ` (did you mean '${near}'?)` : ''}; the fields of ${what} are ${choices(allowed.filter((a) => a !== '$schema'))}`, true);
      }
    }
    return value;
  }

  text(value: unknown, path: FieldPath, what: string): string | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value.trim() === '') {
      this.report(path, `${what} must be non-empty text; got ${typeName(value)}`);
      return undefined;
    }
    return value;
  }

  number(value: unknown, path: FieldPath, opts: { int?: boolean; min: number; exclusive?: boolean; what: string }): number | undefined {
    if (value === undefined) return undefined;
    const ok =
      typeof value === 'number' &&
      Number.isFinite(value) &&
      (!opts.int || Number.isSafeInteger(value)) &&
      (opts.exclusive ? value > opts.min : value >= opts.min);
    if (!ok) {
      const kind = opts.int ? 'a whole number' : 'a number';
      this.report(path, `${opts.what} must be ${kind} ${opts.exclusive ? 'above' : 'of at least'} ${opts.min}; got ${typeName(value)}`);
      return undefined;
    }
    return value as number;
  }

  flag(value: unknown, path: FieldPath, what: string): boolean | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== 'boolean') {
      this.report(path, `${what} must be true or false; got ${typeName(value)}`);
      return undefined;
    }
    return value;
  }

  budget(value: unknown, path: FieldPath): Budget {
    if (value === undefined) return {};
    const m = this.mapping(value, path, BUDGET_KEYS, 'a budget');
    if (!m) return {};
    const timeSeconds = this.number(m.timeSeconds, [...path, 'timeSeconds'], { min: 0, exclusive: true, what: 'the time budget in seconds' });
    const maxStates = this.number(m.maxStates, [...path, 'maxStates'], { int: true, min: 1, what: 'the distinct-state budget' });
    const maxDepth = this.number(m.maxDepth, [...path, 'maxDepth'], { int: true, min: 1, what: 'the depth budget' });
    return { ...(timeSeconds !== undefined ? { timeSeconds } : {}), ...(maxStates !== undefined ? { maxStates } : {}), ...(maxDepth !== undefined ? { maxDepth } : {}) };
  }

  options(value: unknown, path: FieldPath): SuiteCheck['options'] {
    if (value === undefined) return {};
    const m = this.mapping(value, path, OPTION_KEYS, 'options');
    if (!m) return {};
    const deadlock = this.flag(m.deadlock, [...path, 'deadlock'], 'options.deadlock');
    const symmetry = this.flag(m.symmetry, [...path, 'symmetry'], 'options.symmetry');
    return { ...(deadlock !== undefined ? { deadlock } : {}), ...(symmetry !== undefined ? { symmetry } : {}) };
  }

  expectation(value: unknown, path: FieldPath): Expectation | undefined {
    const usage = 'write `expect: holds`, or `expect: { violates: PropertyName }` for a known bug';
    if (value === undefined) {
      this.report(path.slice(0, -1), `missing field 'expect': every check states the verdict it must have; ${usage}`);
      return undefined;
    }
    if (value === 'holds') return { verdict: 'holds' };
    if (typeof value === 'string') {
      const m = /^violates\s*:?\s*([A-Za-z_][\w.-]*)$/.exec(value.trim());
      if (m) return { verdict: 'violates', property: m[1]! };
    }
    if (isObj(value) && Object.keys(value).length === 1 && typeof value.violates === 'string' && value.violates.trim() !== '') {
      return { verdict: 'violates', property: value.violates.trim() };
    }
    this.report(path, `expected verdict must be holds or violates: <PropertyName>; got ${typeName(value)}. ${usage[0]!.toUpperCase()}${usage.slice(1)}`);
    return undefined;
  }

  params(value: unknown, path: FieldPath): Record<string, ParamValue> {
    if (value === undefined) return {};
    if (!isObj(value)) {
      this.report(path, `params must be a mapping of parameter names to values (for example rm: 3); got ${typeName(value)}`);
      return {};
    }
    const out: Record<string, ParamValue> = {};
    for (const [k, x] of Object.entries(value)) {
      if (typeof x === 'number' || typeof x === 'boolean' || typeof x === 'string') out[k] = x;
      else this.report([...path, k], `a parameter value must be a number, true/false or text; got ${typeName(x)}`);
    }
    return out;
  }

  suite(): Shaped {
    const src = this.src;
    const empty: Shaped = { suite: { path: src.path, baselinePath: defaultBaselinePath(src.path), checks: [] }, indexes: [] };
    const top = this.mapping(src.value, [], TOP_KEYS, 'a suite');
    if (!top) return empty;
    if (top.version === undefined) this.report([], `missing field 'version': start the suite with \`version: ${SUITE_VERSION}\``);
    else if (top.version !== SUITE_VERSION) this.report(['version'], `this kmc reads suite version ${SUITE_VERSION}; got ${typeName(top.version)}`);
    const baseline = this.text(top.baseline, ['baseline'], 'baseline (the path of the baseline file)');
    const tolerance = this.number(top.tolerance, ['tolerance'], { min: 0, what: 'tolerance (a fraction, 0.1 = 10%)' }) ?? DEFAULT_TOLERANCE;
    let defaults: { budget: Budget; options: SuiteCheck['options'] } = { budget: {}, options: {} };
    if (top.defaults !== undefined) {
      const d = this.mapping(top.defaults, ['defaults'], DEFAULTS_KEYS, 'defaults');
      if (d) defaults = { budget: this.budget(d.budget, ['defaults', 'budget']), options: this.options(d.options, ['defaults', 'options']) };
    }
    const checks: SuiteCheck[] = [];
    const indexes: number[] = [];
    if (top.checks === undefined) {
      this.report([], "missing field 'checks': list the checks to run, each with spec, preset or params, and expect");
    } else if (!Array.isArray(top.checks) || top.checks.length === 0) {
      this.report(['checks'], `checks must be a non-empty list; got ${typeName(top.checks)}`);
    } else {
      const seen = new Map<string, number>();
      top.checks.forEach((raw, i) => {
        const c = this.check(raw, i, defaults, tolerance);
        if (!c) return;
        const first = seen.get(c.name);
        if (first !== undefined) {
          const path = isObj(raw) && raw.name !== undefined ? ['checks', i, 'name'] : ['checks', i];
          this.report(path, `two checks are named '${c.name}' (the other is on line ${first}); give each check a distinct name`);
          return;
        }
        seen.set(c.name, c.line);
        checks.push(c);
        indexes.push(i);
      });
    }
    const diffs: SuiteDiff[] = [];
    if (top.diffs !== undefined) {
      if (!Array.isArray(top.diffs)) this.report(['diffs'], `diffs must be a list; got ${typeName(top.diffs)}`);
      else top.diffs.forEach((raw, i) => {
        const d = this.diff(raw, i);
        if (d) diffs.push(d);
      });
    }
    const baselinePath = baseline !== undefined ? resolve(dirname(src.path), baseline) : defaultBaselinePath(src.path);
    return { suite: { path: src.path, baselinePath, checks, ...(diffs.length > 0 ? { diffs } : {}) }, indexes };
  }

  diff(raw: unknown, i: number): SuiteDiff | undefined {
    const path = ['diffs', i];
    const before = this.problems.length;
    const d = this.mapping(raw, path, DIFF_KEYS, 'a diff');
    if (!d) return undefined;
    const spec = this.text(d.spec, [...path, 'spec'], 'spec (a bundled spec name or the path of a spec module)');
    if (d.spec === undefined) this.report(path, "missing field 'spec': the spec both variants are of");
    const variant = (side: 'a' | 'b'): DiffVariant | undefined => {
      if (d[side] === undefined) {
        this.report(path, `missing field '${side}': variant ${side.toUpperCase()} as { preset: NAME, params: { NAME: VALUE } }`);
        return undefined;
      }
      const m = this.mapping(d[side], [...path, side], VARIANT_KEYS, `variant ${side.toUpperCase()}`);
      if (!m) return undefined;
      const preset = this.text(m.preset, [...path, side, 'preset'], 'preset');
      return { ...(preset !== undefined ? { preset } : {}), params: this.params(m.params, [...path, side, 'params']) };
    };
    const a = variant('a');
    const b = variant('b');
    const names = (x: unknown, field: string): string[] => {
      if (x === undefined) return [];
      if (Array.isArray(x) && x.every((n) => typeof n === 'string' && n.trim() !== '')) return x as string[];
      this.report([...path, 'expect', field], `expect.${field} must be a list of property names; got ${typeName(x)}`);
      return [];
    };
    let expect: SuiteDiff['expect'] | undefined;
    if (d.expect === undefined) this.report(path, "missing field 'expect': the properties B fixes and breaks, e.g. expect: { fixes: [NoIllegalState], breaks: [] }");
    else {
      const e = this.mapping(d.expect, [...path, 'expect'], DIFF_EXPECT_KEYS, "a diff's expectation");
      if (e) expect = { fixes: names(e.fixes, 'fixes'), breaks: names(e.breaks, 'breaks') };
    }
    const name = this.text(d.name, [...path, 'name'], 'name');
    const specRef = spec !== undefined ? this.specRef(spec, [...path, 'spec']) : undefined;
    if (this.problems.length > before || !spec || !specRef || !a || !b || !expect) return undefined;
    return { name: name ?? `diff ${specLabel(spec)}: ${variantName(a)} → ${variantName(b)}`, spec, specRef, a, b, expect, line: this.src.locate(path).line };
  }

  check(raw: unknown, i: number, defaults: { budget: Budget; options: SuiteCheck['options'] }, tolerance: number): SuiteCheck | undefined {
    const path = ['checks', i];
    const before = this.problems.length;
    const c = this.mapping(raw, path, CHECK_KEYS, 'a check');
    if (!c) return undefined;
    const spec = this.text(c.spec, [...path, 'spec'], 'spec (a bundled spec name or the path of a spec module)');
    if (c.spec === undefined) this.report(path, `missing field 'spec': name a bundled spec (${choices(BUNDLED_NAMES)}) or give the path of your spec module`);
    const preset = this.text(c.preset, [...path, 'preset'], 'preset');
    const params = this.params(c.params, [...path, 'params']);
    const expect = this.expectation(c.expect, [...path, 'expect']);
    const budget = { ...defaults.budget, ...this.budget(c.budget, [...path, 'budget']) };
    const bounded = this.flag(c.bounded, [...path, 'bounded'], 'bounded') ?? false;
    const options = { ...defaults.options, ...this.options(c.options, [...path, 'options']) };
    const checkTolerance = this.number(c.tolerance, [...path, 'tolerance'], { min: 0, what: 'tolerance (a fraction, 0.1 = 10%)' }) ?? tolerance;
    let skip: string | undefined;
    if (c.skip === true) this.report([...path, 'skip'], 'skip takes the reason as text, e.g. skip: "too large for CI"');
    else skip = this.text(c.skip, [...path, 'skip'], 'skip (the reason)');
    const name = this.text(c.name, [...path, 'name'], 'name');
    if (bounded && budget.maxStates === undefined && budget.maxDepth === undefined) {
      this.report([...path, 'bounded'], 'a bounded check needs budget.maxStates or budget.maxDepth: a time bound alone would make the verdict depend on the machine');
    }
    const specRef = spec !== undefined ? this.specRef(spec, [...path, 'spec']) : undefined;
    if (this.problems.length > before || spec === undefined || specRef === undefined || expect === undefined) return undefined;
    return {
      name: name ?? defaultName(spec, preset, params),
      spec,
      specRef,
      ...(preset !== undefined ? { preset } : {}),
      params,
      expect,
      budget: { timeSeconds: DEFAULT_TIME_SECONDS, ...budget },
      bounded,
      options,
      tolerance: checkTolerance,
      ...(skip !== undefined ? { skip } : {}),
      line: this.src.locate(path).line,
    };
  }

  specRef(spec: string, path: FieldPath): string | undefined {
    if (BUNDLED_SPECS[spec] !== undefined) return spec;
    if (/\.(ts|mts|js|mjs)$/.test(spec) || spec.includes('/')) {
      const abs = resolve(dirname(this.src.path), spec);
      if (!existsSync(abs)) {
        this.report(path, `no spec module at ${spec} (looked for ${abs}; paths are relative to the suite file)`);
        return undefined;
      }
      return abs;
    }
    this.report(path, `unknown spec '${spec}': the bundled specs are ${choices(BUNDLED_NAMES)}; for your own spec give the path of its module, e.g. ./specs/my-spec.ts`);
    return undefined;
  }
}

function variantName(v: DiffVariant): string {
  const ps = Object.entries(v.params).map(([k, x]) => `${k}=${String(x)}`);
  return [v.preset, ...ps].filter(Boolean).join(' ') || '(defaults)';
}

/** `twophase/rm3`, `counter[max=4]`, `./my.ts` → `my`. */
export function defaultName(spec: string, preset: string | undefined, params: Readonly<Record<string, ParamValue>>): string {
  const label = specLabel(spec);
  const ps = Object.entries(params);
  return `${label}${preset ? `/${preset}` : ''}${ps.length ? `[${ps.map(([k, v]) => `${k}=${String(v)}`).join(',')}]` : ''}`;
}

/** A spec as short text: its bundled name, or its module's file name without extension. */
export function specLabel(spec: string): string {
  return BUNDLED_SPECS[spec] !== undefined ? spec : basename(spec, extname(spec));
}

/** `ci/kmc.suite.yaml` → `ci/kmc.baseline.json`; `nightly.yml` → `nightly.baseline.json`. */
export function defaultBaselinePath(suitePath: string): string {
  const stem = basename(suitePath).replace(/\.(ya?ml|json)$/i, '').replace(/\.suite$/, '');
  return resolve(dirname(suitePath), `${stem}.baseline.json`);
}

/** The second pass: every check against its spec, collecting every problem. */
async function checkAgainstSpecs(shaped: Shaped, v: Validator): Promise<void> {
  const specs = new Map<string, Promise<SpecDefinition<unknown> | Error>>();
  const load = (ref: string) => {
    let p = specs.get(ref);
    if (!p) {
      p = loadSpec(ref).then((l) => l.definition, (e: unknown) => (e instanceof Error ? e : new Error(String(e))));
      specs.set(ref, p);
    }
    return p;
  };
  for (const [n, check] of shaped.suite.checks.entries()) {
    if (check.skip !== undefined) continue;
    const path = ['checks', shaped.indexes[n]!];
    const def = await load(check.specRef);
    if (def instanceof Error) {
      v.report([...path, 'spec'], def.message);
      continue;
    }
    const problems = validateAgainstSpec(check, def, { specRef: check.specRef });
    for (const p of problems) v.report([...path, ...p.field], p.message);
  }
}

/** Problems of one check against its loaded spec, each with the field (relative to the check) it concerns. */
export function validateAgainstSpec(check: SuiteCheck, def: SpecDefinition<unknown>, loaded: { specRef: string }): { field: FieldPath; message: string }[] {
  const out: { field: FieldPath; message: string }[] = [];
  const values: Record<string, ParamValue> = {};
  for (const p of def.params) values[p.name] = p.default;
  if (check.preset !== undefined) {
    const preset = def.presets.find((p) => p.name === check.preset);
    if (!preset) out.push({ field: ['preset'], message: `spec ${def.name} has no preset '${check.preset}'; its presets are ${choices(def.presets.map((p) => p.name))}` });
    else for (const [k, x] of Object.entries(preset.params)) if (x !== undefined) values[k] = x;
  }
  for (const [k, raw] of Object.entries(check.params)) {
    const pd = def.params.find((p) => p.name === k);
    if (!pd) {
      out.push({ field: ['params', k], message: `spec ${def.name} has no parameter '${k}'; its parameters are ${choices(def.params.map((p) => p.name))}` });
      continue;
    }
    try {
      values[k] = parseValue(def.name, pd, String(raw));
    } catch (e) {
      out.push({ field: ['params', k], message: e instanceof UserError ? e.message.replace(/\.$/, '') : String(e) });
    }
  }
  if (out.length > 0) return out;
  let model;
  try {
    model = buildModel({ definition: def, modulePath: loaded.specRef }, values);
  } catch (e) {
    return [{ field: check.preset ? ['preset'] : ['params'], message: e instanceof Error ? e.message : String(e) }];
  }
  if (check.expect.verdict === 'violates') {
    const names = [...model.properties.map((p) => p.name), 'Deadlock'];
    if (!names.includes(check.expect.property)) {
      out.push({ field: ['expect'], message: `spec ${def.name} has no property '${check.expect.property}'; it can violate ${choices(names)}` });
    }
  }
  if (check.options.symmetry) {
    const unsound = model.properties.filter((p) => !p.symmetric).map((p) => p.name);
    if (!model.symmetry || model.symmetry.length === 0) out.push({ field: ['options', 'symmetry'], message: `spec ${def.name} declares no symmetry sets` });
    else if (unsound.length > 0) out.push({ field: ['options', 'symmetry'], message: `symmetry reduction is unsound for properties not declared symmetric: ${unsound.join(', ')}` });
  }
  return out;
}
