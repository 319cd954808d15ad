/**
 * The packages a spec imports to be one: `kafka-model-checker` and `immutable`. A spec file on its own,
 * with no node_modules beside or above it that holds them (`kmc check /tmp/model.ts`), gets them from
 * the kmc that runs it, as a spec in a project gets them from the project's node_modules. Node's own
 * resolution comes first, so a project's installed copies are the ones its specs use; only a package
 * Node cannot find at all is taken from here. For `kafka-model-checker` that is the very modules this
 * process runs (the package refers to itself by name), which the engine needs: it knows a packed state
 * by its class.
 */
import { Module, createRequire } from 'node:module';

const OWN_PACKAGE = /^(kafka-model-checker|immutable)(\/|$)/;

export interface Resolved {
  readonly url: string;
  readonly format?: string | null;
}
export type NextResolve = (specifier: string, context: unknown) => Promise<Resolved>;

/** For an ES module resolve hook: Node's resolution, or, for a package of kmc's that it cannot find, kmc's own. */
export async function resolveOrFromKmc(specifier: string, context: unknown, next: NextResolve): Promise<Resolved> {
  try {
    return await next(specifier, context);
  } catch (e) {
    if (!OWN_PACKAGE.test(specifier) || (e as { code?: unknown }).code !== 'ERR_MODULE_NOT_FOUND') throw e;
    return next(specifier, { ...(context as object), parentURL: import.meta.url });
  }
}

let requirePatched = false;

/**
 * The same for `require` in this thread: a spec that Node loads as CommonJS (a `.ts` file with no
 * package.json saying `"type": "module"`, as a file on its own is) resolves its imports through it.
 */
export function requireOwnPackagesFromKmc(): void {
  if (requirePatched) return;
  requirePatched = true;
  const loader = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
  const nodeResolve = loader._resolveFilename;
  const fromKmc = createRequire(import.meta.url);
  loader._resolveFilename = function (this: unknown, request: string, ...rest: unknown[]): string {
    try {
      return nodeResolve.call(this, request, ...rest);
    } catch (e) {
      if (!OWN_PACKAGE.test(request) || (e as { code?: unknown }).code !== 'MODULE_NOT_FOUND') throw e;
      return fromKmc.resolve(request);
    }
  };
}
