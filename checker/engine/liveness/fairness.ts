/**
 * Fairness keys: one per (fair action, key of its parameters). An action with `fairness` and no
 * `fairnessKey` has one key per distinct parameter value (each message its own delivery obligation); a
 * `fairnessKey` groups parameter choices (per voter, per pair of voters). Keys are interned to small ids
 * so the graph stores one int per edge. A `fairWhen` makes the key depend on the state the step is taken
 * in: outside it the step is an unfair one.
 */
import type { Action, ActionParams } from '../../../spec/spec.ts';
import { Fingerprinter } from '../fingerprint.ts';

export class FairnessKeys {
  private readonly ids = new Map<string, number>();
  private readonly strong: number[] = [];
  readonly names: string[] = [];
  private readonly fingerprinter = new Fingerprinter();

  constructor(private readonly actions: readonly Action<unknown, ActionParams>[]) {}

  get count(): number {
    return this.strong.length;
  }

  /** True when some action is fair: without fairness every behaviour may stop anywhere. */
  get any(): boolean {
    return this.actions.some((a) => a.fairness !== undefined);
  }

  /**
   * The key id of this action instance taken in state `s`, or -1 when it is unfair there: the action
   * has no fairness, or its `fairWhen` excludes `s`.
   */
  idOf(actionIndex: number, params: ActionParams, s: unknown): number {
    const action = this.actions[actionIndex]!;
    if (action.fairness === undefined) return -1;
    if (action.fairWhen !== undefined && !action.fairWhen(s, params)) return -1;
    const key = action.fairnessKey ? action.fairnessKey(params) : this.defaultKey(params);
    const full = `${actionIndex}\u0000${key}`;
    let id = this.ids.get(full);
    if (id === undefined) {
      id = this.strong.length;
      this.ids.set(full, id);
      this.strong.push(action.fairness === 'strong' ? 1 : 0);
      this.names.push(action.fairnessKey || Object.keys(params).length > 0 ? `${action.name}(${action.fairnessKey ? key : describeParams(params)})` : action.name);
    }
    return id;
  }

  strongFlags(): Uint8Array {
    return Uint8Array.from(this.strong);
  }

  /** Every distinct parameter value is its own instance: identified by the values' fingerprints. */
  private defaultKey(params: ActionParams): string {
    const parts: string[] = [];
    for (const k of Object.keys(params)) {
      this.fingerprinter.of(params[k]);
      parts.push(`${k}=${this.fingerprinter.hi}:${this.fingerprinter.lo}`);
    }
    return parts.join(',');
  }
}

function describeParams(p: ActionParams): string {
  return Object.entries(p)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(', ');
}
