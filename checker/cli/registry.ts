/** The specs that ship with kmc, by the name the CLI knows them by. */
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

export const BUNDLED_SPECS: Readonly<Record<string, string>> = {
  twophase: `${root}spec/twophase/twoPhase.ts`,
  diehard: `${root}spec/diehard/dieHard.ts`,
  kraft: `${root}spec/kraft/kraft.ts`,
  replication: `${root}spec/replication/replication.ts`,
  lifecycle: `${root}spec/lifecycle/lifecycle.ts`,
};

export const BUNDLED_NAMES = Object.keys(BUNDLED_SPECS);
