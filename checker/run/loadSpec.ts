/**
 * Finds a spec by bundled name or by path to the user's own `.ts`/`.js` module (TypeScript is loaded
 * directly, no build step), and checks that the module really exports a spec.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Module, createRequire, register } from 'node:module';
import { isMainThread } from 'node:worker_threads';
import { spawnSync } from 'node:child_process';
import type { SpecDefinition } from '../../spec/spec.ts';
import { BUNDLED_NAMES, BUNDLED_SPECS } from './registry.ts';
import { UserError, choices } from './userError.ts';
import { requireOwnPackagesFromKmc } from './ownPackages.ts';

export interface LoadedSpec {
  readonly definition: SpecDefinition<unknown>;
  /** Absolute path of the module, so worker threads can load the same spec. */
  readonly modulePath: string;
}

const SPEC_FILE = /\.(ts|mts|cts|js|mjs|cjs)$/;

export async function loadSpec(nameOrPath: string): Promise<LoadedSpec> {
  const bundled = BUNDLED_SPECS[nameOrPath];
  let modulePath: string;
  if (bundled !== undefined) {
    modulePath = bundled;
  } else if (SPEC_FILE.test(nameOrPath) || nameOrPath.includes('/')) {
    modulePath = isAbsolute(nameOrPath) ? nameOrPath : resolve(process.cwd(), nameOrPath);
    if (!existsSync(modulePath)) {
      throw new UserError(`No spec file at ${nameOrPath} (looked for ${modulePath}). Give a bundled spec name (${choices(BUNDLED_NAMES)}) or the path of a .ts or .js module that exports a spec.`);
    }
  } else {
    throw new UserError(`Unknown spec '${nameOrPath}'. The bundled specs are ${choices(BUNDLED_NAMES)}; to check your own spec, give the path of its .ts or .js module (for example ./my-spec.ts).`);
  }
  return { definition: await importDefinition(modulePath, nameOrPath), modulePath };
}

/** Imports a module and returns its spec (default export, or an export named `spec`). */
export async function importDefinition(modulePath: string, shownAs = modulePath): Promise<SpecDefinition<unknown>> {
  let mod: Record<string, unknown>;
  try {
    mod = (await importModule(modulePath)) as Record<string, unknown>;
  } catch (e) {
    throw new UserError(`Could not load the spec module ${shownAs}: ${describeLoadError(e, modulePath)}. Fix the module so that it imports cleanly.`);
  }
  // A CommonJS module (a .ts file under a package.json without "type": "module") arrives with its
  // exports object as the default export.
  const cjs = typeof mod.default === 'object' && mod.default !== null ? (mod.default as Record<string, unknown>) : {};
  const candidate = [mod.default, mod.spec, cjs.default, cjs.spec].find(isSpecDefinition);
  if (!isSpecDefinition(candidate)) {
    // An object that is almost a spec (defineSpec without one of its fields) is told what it lacks.
    const near = [['default', mod.default], ['spec', mod.spec], ['default', cjs.default], ['spec', cjs.spec]].find(([, x]) => looksLikeSpec(x));
    const lacks = near === undefined ? '' : ` Its ${near[0]} export is not one: ${specFieldProblems(near[1]).join('; ')}.`;
    throw new UserError(
      `${shownAs} does not export a spec.${lacks} A spec module exports, as default or as \`spec\`, an object with name, description, params, presets and build (see the README's 'Writing your own spec' and the package's dist/examples/mutex.ts); this module exports: ${choices(Object.keys(mod)) }.`,
    );
  }
  return candidate;
}

const TYPESCRIPT = /\.(ts|mts|cts)$/;

/**
 * Imports a spec module. kmc itself runs compiled; a user's TypeScript loads through tsx's hooks, which
 * follow the module type the user's package.json declares (ESM, CommonJS, or none). What the spec
 * imports of kmc must be the very modules this process runs: the engine knows a packed state by its
 * class (`instanceof View`). So the hooks are registered for the whole thread, not scoped to the spec
 * (tsx's scoped import loads a second copy of every module the spec imports, kmc's own included), and
 * kmc's entry points are put in the CommonJS cache as the ES modules they are (tsx compiles a required
 * ES module into a CommonJS copy of its own). In a source checkout run through tsx, TypeScript already loads.
 * In a source checkout run compiled, kmc's own sources resolve to their compiled twins (ownSourcesHooks.ts).
 * A spec outside any project imports kmc's packages from kmc itself (ownPackages.ts).
 */
async function importModule(modulePath: string): Promise<unknown> {
  const url = pathToFileURL(modulePath).href;
  if (modulePath.endsWith('.cts')) {
    // CommonJS whatever package.json says: required through tsx's CommonJS hook, as Node requires a .cjs
    // module; its exports object is its default export.
    if (!import.meta.url.endsWith('.ts')) {
      if (!startedWithTsx() || !isMainThread) await registerTsx();
      useKmcResolution();
      await shareOwnEntryPoints();
    }
    return { default: createRequire(import.meta.url)(modulePath) as unknown };
  }
  if (import.meta.url.endsWith('.ts')) return import(url);
  if (!TYPESCRIPT.test(modulePath)) {
    // A bundled spec is kmc's own compiled module; a user's JavaScript needs no tsx, only kmc's packages.
    if (!modulePath.startsWith(OWN_COMPILED_TREE)) {
      useKmcResolution();
      await shareOwnEntryPoints();
    }
    return import(url);
  }
  // tsx's --import takes effect in the main thread only: a worker thread registers it itself.
  if (!startedWithTsx() || !isMainThread) await registerTsx();
  useKmcResolution();
  await shareOwnEntryPoints();
  return import(url);
}

/** The folder of kmc's compiled modules (dist/), the bundled specs among them. */
const OWN_COMPILED_TREE = fileURLToPath(new URL('../../', import.meta.url));

/** kmc's public modules (package.json `exports`), as compiled beside this file. */
const OWN_ENTRY_POINTS = ['../../spec/index.js', '../../spec/spec.js', '../../invariants/property.js'];

/** Puts kmc's public modules in the CommonJS cache as the loaded ES modules, so a CommonJS spec's `require` gets them. */
async function shareOwnEntryPoints(): Promise<void> {
  const cache = createRequire(import.meta.url).cache;
  for (const entry of OWN_ENTRY_POINTS) {
    const url = new URL(entry, import.meta.url);
    const file = fileURLToPath(url);
    if (cache[file] !== undefined) continue;
    const shared = new Module(file);
    shared.filename = file;
    shared.loaded = true;
    shared.exports = await import(url.href);
    cache[file] = shared;
  }
}

/** node was started with tsx (`node --import tsx`): TypeScript already loads in the main thread. */
function startedWithTsx(): boolean {
  const args = process.execArgv;
  return args.some((a, i) => /^--(import|loader|experimental-loader)=tsx$/.test(a) || (/^--(import|loader|experimental-loader)$/.test(a) && args[i + 1] === 'tsx'));
}

let tsxRegistered: Promise<void> | undefined;
/** tsx's hooks for ES modules and for CommonJS, for this thread. */
function registerTsx(): Promise<void> {
  return (tsxRegistered ??= Promise.all([import('tsx/esm/api'), import('tsx/cjs/api')]).then(([esm, cjs]) => {
    esm.register();
    cjs.register();
  }));
}

let kmcResolutionUsed = false;
/**
 * In this thread, kmc's own sources resolve to their compiled twins (ownSourcesHooks.ts; registered after
 * tsx's hooks, so it runs first and maps what tsx resolved), and kmc's packages, where Node finds none,
 * to kmc's own (ownPackages.ts).
 */
function useKmcResolution(): void {
  if (kmcResolutionUsed) return;
  kmcResolutionUsed = true;
  register('./ownSourcesHooks.js', import.meta.url);
  requireOwnPackagesFromKmc();
}

/**
 * What went wrong loading a module, in one line; for a syntax error the file, line and column, the
 * problem and the offending line. esbuild (TypeScript) lists them as `FILE:LINE:COL: ERROR: TEXT` (COL from 0) after
 * "Transform failed"; Node (JavaScript) puts `FILE:LINE` and the line at the top of the stack.
 */
export function describeLoadError(e: unknown, file?: string): string {
  if (!(e instanceof Error)) return String(e);
  const lines = e.message.split('\n');
  if (/^Transform failed/.test(lines[0] ?? '')) {
    const problems = lines.slice(1).map((l) => /^(.+):(\d+):(\d+): ERROR: (.*)$/.exec(l.trim())).filter((m) => m !== null);
    if (problems.length > 0) return problems.map(([, file, line, col, text]) => `${file}:${line}:${Number(col) + 1}: ${text}${sourceLine(file!, Number(line))}`).join('; ');
  }
  if (e instanceof SyntaxError && file !== undefined) {
    // Node keeps the position of a module's syntax error to itself; `node --check` prints it.
    const checked = spawnSync(process.execPath, ['--check', file], { encoding: 'utf8' });
    const at = /^(?:file:\/\/)?(\/\S+):(\d+)\n/m.exec(checked.stderr ?? '');
    if (at) return `${file}:${at[2]}: ${e.message}${sourceLine(file, Number(at[2]))}`;
  }
  return lines[0] ?? String(e);
}

function sourceLine(file: string, line: number): string {
  try {
    const text = readFileSync(file, 'utf8').split('\n')[line - 1]?.trim();
    return text ? ` (in \`${text}\`)` : '';
  } catch {
    return '';
  }
}

function isSpecDefinition(x: unknown): x is SpecDefinition<unknown> {
  return typeof x === 'object' && x !== null && specFieldProblems(x).length === 0;
}

/** An object with a spec's name or build: meant as a spec, whatever else it lacks. */
function looksLikeSpec(x: unknown): boolean {
  return typeof x === 'object' && x !== null && ('build' in x || 'name' in x);
}

/** What keeps `x` from being a spec, field by field (none: it is one). */
function specFieldProblems(x: unknown): string[] {
  const s = x as Record<string, unknown>;
  const problems: string[] = [];
  const field = (name: string, ok: boolean, what: string) => {
    if (!ok) problems.push(s[name] === undefined ? `it has no \`${name}\` (${what})` : `its \`${name}\` is not ${what}`);
  };
  field('name', typeof s.name === 'string', 'a string');
  field('params', Array.isArray(s.params), 'an array of parameters, [] for none');
  field('presets', Array.isArray(s.presets), 'an array of presets, [] for none');
  field('build', typeof s.build === 'function', 'a function from parameters to the model');
  return problems;
}
