/**
 * Finds a spec by bundled name or by path to the user's own `.ts`/`.js` module (TypeScript is loaded
 * directly, no build step), and checks that the module really exports a spec.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { SpecDefinition } from '../../spec/spec.ts';
import { BUNDLED_NAMES, BUNDLED_SPECS } from './registry.ts';
import { UserError, choices } from './userError.ts';

export interface LoadedSpec {
  readonly definition: SpecDefinition<unknown>;
  /** Absolute path of the module, so worker threads can load the same spec. */
  readonly modulePath: string;
}

const SPEC_FILE = /\.(ts|mts|js|mjs)$/;

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
    mod = (await import(pathToFileURL(modulePath).href)) as Record<string, unknown>;
  } catch (e) {
    throw new UserError(`Could not load the spec module ${shownAs}: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}. Fix the module so that it imports cleanly.`);
  }
  const candidate = isSpecDefinition(mod.default) ? mod.default : mod.spec;
  if (!isSpecDefinition(candidate)) {
    throw new UserError(
      `${shownAs} does not export a spec. A spec module exports, as default or as \`spec\`, an object with name, description, params, presets and build (see defineSpec in spec/spec.ts); this module exports: ${choices(Object.keys(mod)) }.`,
    );
  }
  return candidate;
}

function isSpecDefinition(x: unknown): x is SpecDefinition<unknown> {
  if (typeof x !== 'object' || x === null) return false;
  const s = x as Record<string, unknown>;
  return typeof s.name === 'string' && Array.isArray(s.params) && Array.isArray(s.presets) && typeof s.build === 'function';
}
