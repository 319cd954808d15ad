/**
 * Module resolve hook (node:module `register`) for kmc run compiled from a source checkout: one of kmc's
 * own TypeScript sources (a bundled spec by its path, or the layout library a spec in the checkout
 * imports by a relative path) resolves to its compiled twin in dist/, the very module kmc runs. Loaded
 * from the source, it would be a second copy of kmc's classes, and the engine would not know the spec's
 * packed states for its own (`instanceof View`). A source changed since the last build is refused: the
 * twin would check the rules as they were. (The test runner, which builds before its tests start, has
 * them use that build whatever is saved meanwhile: KMC_NO_BUILD=1, scripts/distFirst.mjs.)
 * A spec outside any project gets kmc's packages from kmc itself (ownPackages.ts).
 */
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type NextResolve, type Resolved, resolveOrFromKmc } from './ownPackages.ts';

/**
 * The resolve hook for a checkout whose compiled tree is `dist` (a file URL ending in `/`), built when
 * `builtAt` (ms; Infinity: no record of the build, its twins are taken as they are).
 */
export function twinResolver(dist: string, builtAt: number): (specifier: string, context: unknown, next: NextResolve) => Promise<Resolved> {
  const root = new URL('../', dist).href;
  return async (specifier, context, next) => {
    const resolved = await resolveOrFromKmc(specifier, context, next);
    const url = resolved.url;
    if (!url.startsWith(root) || url.startsWith(dist) || !url.endsWith('.ts') || url.includes('/node_modules/')) return resolved;
    const relative = url.slice(root.length);
    const twin = fileURLToPath(`${dist}${relative.slice(0, -'.ts'.length)}.js`);
    if (!existsSync(twin)) return resolved;
    if (statSync(fileURLToPath(url)).mtimeMs > builtAt) {
      throw new Error(
        `${relative} changed after kmc was last built: run \`npm run build\` and check again (kmc runs compiled, from dist/, and a spec must use the very modules kmc runs)`,
      );
    }
    return { ...resolved, url: pathToFileURL(twin).href, format: 'module' };
  };
}

/** dist/, beside this file's folder checker/run/. */
const dist = new URL('../../', import.meta.url).href;

/** Dated when the last build started (scripts/build.mjs): a source saved after it is not in dist/. */
function lastBuildStart(): number {
  try {
    return statSync(fileURLToPath(new URL('.built', dist))).mtimeMs;
  } catch {
    return Infinity;
  }
}

export const resolve = twinResolver(dist, process.env.KMC_NO_BUILD === '1' ? Infinity : lastBuildStart());
