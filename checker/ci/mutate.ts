/**
 * Mutants of a model, for the mutation self-test of a suite: one action disabled (its guard made false)
 * or one guard dropped (made true). A property set that notices neither kind of change to an action is
 * not watching that action; an invariant that no mutant can violate is probably vacuous.
 */
import type { Model } from '../../spec/spec.ts';

export interface Mutation {
  readonly kind: 'disable' | 'dropGuard';
  /** Index in `model.actions` (names are shown, indexes are applied). */
  readonly index: number;
  readonly action: string;
}

export function describeMutation(m: Mutation): string {
  return m.kind === 'disable' ? `disable ${m.action}` : `drop guard of ${m.action}`;
}

/** Every mutant of a model: each action disabled, and each guard dropped (actions without a guard have none to drop). */
export function mutationsOf(model: Model<unknown>): Mutation[] {
  const out: Mutation[] = [];
  model.actions.forEach((a, index) => {
    // An action the parameters rule out is never run, so neither mutant could differ from the model.
    if (a.disabledBy !== undefined) return;
    out.push({ kind: 'disable', index, action: a.name });
    if (a.enabled) out.push({ kind: 'dropGuard', index, action: a.name });
  });
  return out;
}

/**
 * The model with one action changed. A dropped guard lets the effect run on states it was never meant
 * for; when it throws there, the checker reports an error, which the self-test counts as killing the mutant.
 */
export function mutateModel<S>(model: Model<S>, m: Mutation): Model<S> {
  const target = model.actions[m.index];
  if (!target || target.name !== m.action) {
    throw new Error(`mutation ${describeMutation(m)} does not match action ${m.index} (${target?.name ?? 'none'}) of the model`);
  }
  const changed = m.kind === 'disable' ? { ...target, enabled: () => false } : { ...target, enabled: () => true };
  return { ...model, actions: model.actions.map((a, i) => (i === m.index ? changed : a)) };
}
