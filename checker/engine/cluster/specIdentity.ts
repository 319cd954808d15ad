/**
 * What makes the spec a worker loaded the driver's spec: the contents of its module file and of the
 * local modules it imports (specSources.ts), and what its rules do to the initial states (rulesDigest.ts). The driver sends both with every offer and keeps them
 * in the run's commit; a worker whose copy differs refuses the offer, and a run kept for another copy is
 * not resumed. Without them, a worker on another build, or one that loaded the spec before it was edited
 * (an ES module is loaded once per process), expanded with other rules than the driver's, and a resumed
 * run went on with the new rules from states the old ones reached: counts that belong to neither spec.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Model } from '../../../spec/spec.ts';
import { rulesDigest } from '../rulesDigest.ts';
import { type SourceFile, type SpecSources, sourcesDifference, specSources } from '../specSources.ts';
import type { PackedLayout } from '../state/packed.ts';

export interface SpecIdentity {
  /** The digest of the spec's sources: its module and the local modules it imports. */
  readonly file: string;
  /** rulesDigest of the initial states. */
  readonly rules: string;
  /** The sources one by one, to name the one that differs (absent from runs of a kmc that kept the module file alone). */
  readonly sources?: readonly SourceFile[];
}

/** What a worker's copy of the spec is held to: the digest of the driver's sources, and the sources. */
export type DriverSources = Pick<SpecIdentity, 'file' | 'sources'>;

export function fileDigest(modulePath: string): string {
  return createHash('sha256').update(readFileSync(modulePath)).digest('hex');
}

export function specIdentity<S>(modulePath: string, model: Model<S>, symmetry: boolean, layout: PackedLayout): SpecIdentity {
  const sources = specSources(modulePath);
  return { file: sources.digest, sources: sources.files, rules: rulesDigest(model, symmetry, layout, new Uint8Array(0)) };
}

/** Why a run kept for the sources `then` is not a run of `now`'s, in a few words, or null when it is. */
export function changedSources(then: DriverSources, now: DriverSources): string | null {
  if (then.file === now.file) return null;
  return (then.sources && now.sources ? sourcesDifference(then.sources, now.sources) : null) ?? 'its module file differs';
}

/**
 * The sources of each spec module when this process first loaded it: a module loaded again later is the
 * first copy, whatever the files hold by then.
 */
const firstLoaded = new Map<string, SpecSources>();

/**
 * Why the spec this worker has loaded is not the driver's, or null when it is. `modulePath` is where this
 * worker loaded it from; `driver` is the driver's identity, `mine` this worker's.
 */
export function differenceFromDriver(modulePath: string, driver: SpecIdentity, mine: SpecIdentity): string | null {
  const file = fileDifference(modulePath, driver, specSourcesOf(modulePath, mine));
  if (file !== null) return file;
  if (mine.rules !== driver.rules) {
    return `its copy of the spec gives the initial states other successors than the driver's: a module the spec imports differs, or changed since this worker loaded it (restart the worker)`;
  }
  return null;
}

/**
 * Why the spec this worker has loaded from `modulePath` is not the driver's (`driver`: the digest of its
 * sources, and the sources), or null. A swarm's walks compare the sources alone: a spec without a layout
 * has no rules digest.
 */
export function fileDifference(modulePath: string, driver: DriverSources, mine: SpecSources = specSources(modulePath)): string | null {
  const loaded = firstLoaded.get(modulePath) ?? mine;
  firstLoaded.set(modulePath, loaded);
  if (mine.digest !== driver.file) {
    const which = driver.sources ? sourcesDifference(driver.sources, mine.files) : null;
    return `its copy of the spec ${modulePath} is not the driver's (${which ?? 'the files differ'}; paths from the spec module's folder): give every worker the driver's files, from the same kmc build`;
  }
  if (loaded.digest !== mine.digest) {
    const which = sourcesDifference(loaded.files, mine.files);
    const what = which === null || which.startsWith(`${mine.files[0]!.path} `) ? 'the file changed' : `its sources changed (${which})`;
    return `it loaded ${modulePath} before ${what}, and a process loads a module once: restart this worker to check the spec as it is now`;
  }
  return null;
}

/** The sources behind an identity this process computed just now for `modulePath`. */
function specSourcesOf(modulePath: string, mine: SpecIdentity): SpecSources {
  return mine.sources ? { digest: mine.file, files: mine.sources } : specSources(modulePath);
}
