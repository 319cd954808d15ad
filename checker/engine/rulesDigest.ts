/**
 * A digest of what a spec's rules do, read off a sample of states: for each, every successor (its
 * action, parameters' ordinal and fingerprint, and whether the CONSTRAINT and ACTION_CONSTRAINT admit
 * it), the first invariant it violates and the witnesses it reaches. A checkpoint records
 * the digest of the initial states and of states spread over the level it saved; a resume computes it
 * again with the spec as it is now. The spec's name, parameters, layout and action names can all stay
 * the same while an edited guard or update makes the saved search a search of another model: resuming
 * it would report counts that belong to neither. The digest tells the two apart in most such cases
 * (a change no sampled state exercises goes unseen), and covers the properties' names and kinds.
 */
import { createHash } from 'node:crypto';
import type { Model } from '../../spec/spec.ts';
import { Expander } from './expander.ts';
import type { PackedLayout } from './state/packed.ts';

/** States of the saved level sampled, spread evenly over it. */
const LEVEL_SAMPLES = 16;

export function rulesDigest<S>(model: Model<S>, symmetry: boolean, layout: PackedLayout, level: Uint8Array): string {
  // An expander of its own: the search's keeps the coverage counts, which sampling must not move.
  const expander = new Expander(model, symmetry);
  const hash = createHash('sha256');
  const words = new Int32Array(4);
  const add = (a: number, b: number, c: number, d: number) => {
    words[0] = a;
    words[1] = b;
    words[2] = c;
    words[3] = d;
    hash.update(words);
  };
  const reached = new Uint8Array(expander.witnesses.length);
  const digestOf = (s: S) => {
    try {
      add(-1, expander.firstViolation(s), expander.withinConstraint(s) ? 1 : 0, 0);
      reached.fill(0);
      expander.markWitnesses(s, reached);
      hash.update(reached);
      expander.successors(s, (next, action, _params, ordinal) => {
        expander.fingerprint(next);
        add(action, ordinal, expander.hi, expander.lo);
        if (expander.constrained) add(-2, expander.admits(s, next) ? 1 : 0, 0, 0);
      });
    } catch (e) {
      // The search will meet the same error when it gets here; what matters is that it is the same.
      hash.update(`threw: ${(e as Error).message}`);
    }
  };
  // The properties by kind and name, in order: one added to a spec a cluster's run was kept for is never
  // checked on the levels it searched (a checkpoint's identity names them too).
  hash.update(propertyList(model).join('\n'));
  for (const s of expander.initialStates()) digestOf(s);
  const width = layout.width;
  const n = width === 0 ? 0 : Math.floor(level.length / width);
  for (let i = 0; i < Math.min(n, LEVEL_SAMPLES); i++) {
    const at = Math.floor((i * n) / Math.min(n, LEVEL_SAMPLES));
    digestOf(layout.wrapAt(level, at * width) as S);
  }
  return hash.digest('hex');
}

/** Each property of the model as `kind name`, in its order: what a checkpoint's identity names. */
export function propertyList<S>(model: Model<S>): string[] {
  return model.properties.map((p) => `${p.kind} ${p.name}`);
}
