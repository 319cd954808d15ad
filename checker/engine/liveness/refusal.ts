/**
 * Whether a model can be checked for liveness: the search asks before anything else, so this stays apart
 * from the liveness check itself, which is loaded only for a model with temporal properties.
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
  if (model.constraint || model.actionConstraint) {
    const which = model.constraint ? 'a CONSTRAINT' : 'an ACTION_CONSTRAINT';
    return (
      `this model declares ${which}, which cannot be used with the temporal properties ${names}: a state it cuts off has no ` +
      'successors and would look like a behaviour that stops for ever'
    );
  }
  return null;
}
