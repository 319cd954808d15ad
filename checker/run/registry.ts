/** The specs that ship with kmc, by the name the CLI knows them by. */
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
// Compiled to `.js` in the package; `.ts` when run from a source checkout.
const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';

export const BUNDLED_SPECS: Readonly<Record<string, string>> = {
  twophase: `${root}spec/twophase/twoPhase.${ext}`,
  diehard: `${root}spec/diehard/dieHard.${ext}`,
  kraft: `${root}spec/kraft/kraft.${ext}`,
  replication: `${root}spec/replication/replication.${ext}`,
  lifecycle: `${root}spec/lifecycle/lifecycle.${ext}`,
};

export const BUNDLED_NAMES = Object.keys(BUNDLED_SPECS);
