// `node --import tsx --import ./scripts/distFirst.mjs x.test.ts`: the test file itself runs through tsx,
// and every module of kmc it imports comes from the compiled dist/ that `npm test` has just built. So
// the tests check the code that ships, and kmc's modules are neither transformed nor slowed by the
// helpers tsx adds (esbuild's __name, about a tenth of a search's time). Test helpers and fixtures,
// which are not compiled, still load through tsx. Only for a dist/ built from the sources just now.
import { register } from 'node:module';

register('./distFirstHooks.mjs', import.meta.url);
