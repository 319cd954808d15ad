/**
 * Whether a model can be checked for liveness, and what its constraints do to the check: the search asks
 * before anything else, so this stays apart from the liveness check itself, which is loaded only for a
 * model with temporal properties.
 */
import type { Model } from '../../../spec/spec.ts';
import { isTemporal } from '../../../invariants/property.ts';

/** Why a model cannot be checked for liveness, or null. */
export function livenessRefusal<S>(model: Model<S>, symmetry: boolean): string | null {
  const temporal = model.properties.filter(isTemporal).map((p) => p.name);
  if (temporal.length === 0) return null;
  const names = temporal.join(', ');
  if (symmetry) {
    return (
      `symmetry reduction cannot be used with the temporal properties ${names}: a cycle in the reduced graph may join states ` +
      'that are permutations of each other, which is not a cycle of the model, so the fair cycles found would not be real. Run without --symmetry'
    );
  }
  if (model.view) {
    return (
      `this model declares a VIEW, which cannot be used with the temporal properties ${names}: states the view merges may differ in ` +
      'what is enabled, so fairness and the loops found would not be the model\'s. Drop the view (or the temporal properties) for this check'
    );
  }
  return null;
}

/**
 * What a CONSTRAINT or an ACTION_CONSTRAINT does to the temporal properties, as TLC warns: the behaviours
 * checked are the model's, so one the constraints cut short is not, and a state whose steps all leave the
 * model may stutter for ever where no fair action is enabled. Null without temporal properties or constraints.
 */
export function constrainedLivenessWarning<S>(model: Model<S>): string | null {
  const temporal = model.properties.filter(isTemporal).map((p) => p.name);
  if (temporal.length === 0 || (!model.constraint && !model.actionConstraint)) return null;
  const which = model.constraint && model.actionConstraint ? 'a CONSTRAINT and an ACTION_CONSTRAINT' : model.constraint ? 'a CONSTRAINT' : 'an ACTION_CONSTRAINT';
  return (
    `the temporal properties ${temporal.join(', ')} are checked on the behaviours within ${which}, as TLC checks them: a behaviour the ` +
    'constraints cut short is not one of them, and one may stop for ever in a state whose steps all leave the model, unless a fair action is enabled there (a step out of the model still counts as enabled)'
  );
}
