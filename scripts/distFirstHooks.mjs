// Resolve hook of scripts/distFirst.mjs: a kmc source module resolves to its compiled `.js` in dist/ where
// that exists (tests, fixtures and test support have none), as it does when kmc runs compiled from this
// checkout (checker/run/ownSourcesHooks.ts). Only scripts/test.mjs, which has just built dist/, uses it.
export { resolve } from '../dist/checker/run/ownSourcesHooks.js';
