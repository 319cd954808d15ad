// `node --import ./scripts/testTypeScriptLoader.mjs x.test.ts`: the checkout's TypeScript loads compiled
// (scripts/testTypeScriptHooks.mjs), and a stack trace names the source's lines, as under tsx.
//
// In the test's own thread only. A worker thread runs the --import again (Node 20), and its hooks would
// start a thread of their own for nothing, about 0.1 s of CPU in every worker a test starts: kmc's worker
// threads load only compiled modules and their spec, which checker/run/loadSpec.ts loads in each worker
// through hooks it registers there itself (as it does in every kmc process).
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

if (isMainThread) {
  register('./testTypeScriptHooks.mjs', import.meta.url);
  process.setSourceMapsEnabled(true);
}
