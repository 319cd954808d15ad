/**
 * What makes the spec a worker loaded the driver's spec: the contents of its module file, and what its
 * rules do to the initial states (rulesDigest.ts). The driver sends both with every offer and keeps them
 * in the run's commit; a worker whose copy differs refuses the offer, and a run kept for another copy is
 * not resumed. Without them, a worker on another build, or one that loaded the spec before it was edited
 * (an ES module is loaded once per process), expanded with other rules than the driver's, and a resumed
 * run went on with the new rules from states the old ones reached: counts that belong to neither spec.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Model } from '../../../spec/spec.ts';
import { rulesDigest } from '../rulesDigest.ts';
import type { PackedLayout } from '../state/packed.ts';

export interface SpecIdentity {
  /** sha256 of the spec module file's contents. */
  readonly file: string;
  /** rulesDigest of the initial states. */
  readonly rules: string;
}

export function fileDigest(modulePath: string): string {
  return createHash('sha256').update(readFileSync(modulePath)).digest('hex');
}

export function specIdentity<S>(modulePath: string, model: Model<S>, symmetry: boolean, layout: PackedLayout): SpecIdentity {
  return { file: fileDigest(modulePath), rules: rulesDigest(model, symmetry, layout, new Uint8Array(0)) };
}

/**
 * The contents of each spec module when this process first loaded it: a module loaded again later is the
 * first copy, whatever the file holds by then.
 */
const firstLoaded = new Map<string, string>();

/**
 * Why the spec this worker has loaded is not the driver's, or null when it is. `modulePath` is where this
 * worker loaded it from; `driver` is the driver's identity, `mine` this worker's.
 */
export function differenceFromDriver(modulePath: string, driver: SpecIdentity, mine: SpecIdentity): string | null {
  const file = fileDifference(modulePath, driver.file, mine.file);
  if (file !== null) return file;
  if (mine.rules !== driver.rules) {
    return `its copy of the spec gives the initial states other successors than the driver's: a module the spec imports differs, or changed since this worker loaded it (restart the worker)`;
  }
  return null;
}

/**
 * Why the spec module this worker has loaded from `modulePath` is not the driver's file (`driverFile`, its
 * sha256), or null. A swarm's walks compare the file alone: a spec without a layout has no rules digest.
 */
export function fileDifference(modulePath: string, driverFile: string, mine = fileDigest(modulePath)): string | null {
  const loaded = firstLoaded.get(modulePath) ?? mine;
  firstLoaded.set(modulePath, loaded);
  if (mine !== driverFile) {
    return `its spec module ${modulePath} is not the driver's (the files differ): give every worker the driver's file, from the same kmc build`;
  }
  if (loaded !== mine) {
    return `it loaded ${modulePath} before the file changed, and a process loads a module once: restart this worker to check the spec as it is now`;
  }
  return null;
}
