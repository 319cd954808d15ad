// Load hook of the test processes (scripts/testTypeScriptLoader.mjs): a TypeScript module of the checkout
// loads from its compiled copy in out/test-js/ (scripts/testTypeScript.mjs), compiled here first if the
// copy is missing or older than the source. Its URL stays the source's, so `import.meta.url` and the paths
// a test finds its fixtures by are unchanged. Anything else is left to the next hook: a spec a test writes
// to a temporary folder is a user's, which kmc loads through tsx (checker/run/loadSpec.ts), as CommonJS
// where no package.json says otherwise.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { compile, compiledPath, upToDate } from './testTypeScript.mjs';

const root = new URL('..', import.meta.url).href;

export async function load(url, context, nextLoad) {
  if (!url.startsWith(root) || !/\.m?ts$/.test(url) || url.includes('/node_modules/')) return nextLoad(url, context);
  const file = fileURLToPath(url);
  const source = upToDate(file) ? readFileSync(compiledPath(file), 'utf8') : await compile(file, await readFile(file, 'utf8'), (await import('esbuild')).transform);
  return { format: 'module', source, shortCircuit: true };
}
