// `node --import ./scripts/testTypeScriptLoader.mjs --import ./scripts/distFirst.mjs x.test.ts` (one test
// file from its source, as scripts/test.mjs runs it from its runnable copy, whose imports name the files
// these hooks resolve to; `--import tsx` in place of the first works too): the test file and its
// helpers and fixtures load as TypeScript, and every module of kmc they import comes from the compiled
// dist/ that `npm test` has just built. So the tests check the code that ships, and kmc's modules are
// neither transformed nor slowed by the helpers a TypeScript loader adds (esbuild's __name, about a tenth
// of a search's time). Only for a dist/ built from the sources just now.
// In the test's own thread only, as scripts/testTypeScriptLoader.mjs says.
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

if (isMainThread) register('./distFirstHooks.mjs', import.meta.url);
