/** Marks the actions a spec's parameters rule out (`Action.disabledBy`), from a rule naming the reason per action. */
import type { Action } from './spec.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function withDisabledBy<S>(actions: Action<S, any>[], reasonFor: (actionName: string) => string | undefined): Action<S, any>[] {
  return actions.map((a) => {
    const reason = reasonFor(a.name);
    return reason === undefined ? a : { ...a, disabledBy: reason };
  });
}
