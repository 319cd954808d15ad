// `node --import ./scripts/testTypeScriptLoader.mjs x.test.ts`: the checkout's TypeScript loads compiled
// (scripts/testTypeScriptHooks.mjs), and a stack trace names the source's lines, as under tsx.
import { register } from 'node:module';

register('./testTypeScriptHooks.mjs', import.meta.url);
process.setSourceMapsEnabled(true);
