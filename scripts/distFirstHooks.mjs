// Resolve hook of scripts/distFirst.mjs: a kmc source module (`.ts` under the project, not a test, not a
// fixture) resolves to its compiled `.js` in dist/ where that exists. Only scripts/test.mjs, which has
// just built dist/, uses it.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = new URL('../', import.meta.url).href;
const dist = new URL('../dist/', import.meta.url).href;

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  const url = resolved.url;
  if (!url.startsWith(root) || url.startsWith(dist) || !url.endsWith('.ts') || url.includes('/node_modules/')) return resolved;
  if (/\.test\.ts$|\/fixtures\/|\/testSupport\.ts$/.test(url)) return resolved;
  const compiled = `${dist}${url.slice(root.length, -'.ts'.length)}.js`;
  const compiledPath = fileURLToPath(compiled);
  if (!existsSync(compiledPath)) return resolved;
  return { ...resolved, url: pathToFileURL(compiledPath).href, format: 'module' };
}
