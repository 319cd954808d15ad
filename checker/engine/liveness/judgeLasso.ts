/**
 * Checks a lasso given as concrete states (a replayed trace, a looping simulation run): is its cycle
 * fair, and which temporal property fails on the behaviour it stands for? The same rules as the graph
 * search (`fairCycle.ts`), applied to one cycle: a weak key enabled in every cycle state must be taken
 * on the cycle, a strong key enabled in some cycle state must be taken on it, a step back to the same
 * state counting for neither.
 */
import type { ActionParams } from '../../../spec/spec.ts';
import { isTemporal, type Property } from '../../../invariants/property.ts';
import type { Expander } from '../expander.ts';
import { FairnessKeys } from './fairness.ts';
import { Fingerprinter } from '../fingerprint.ts';

/** One step: the action's index and the parameters it was taken with. */
export interface Move {
  readonly action: number;
  readonly params: ActionParams;
}

/** A fair action instance a cycle owes a step to, and a state of the cycle where it is enabled. */
export interface OwedMove extends Move {
  readonly state: unknown;
}

/**
 * `states[loop..]` is the cycle and `cycle` its moves (the last one leads back to `states[loop]`); an
 * empty `cycle` means the last state stutters. Returns the failing property's name, or why the lasso is
 * not a counterexample.
 */
export function judgeLasso<S>(
  expander: Expander<S>,
  wanted: string | null,
  states: readonly S[],
  loop: number,
  cycle: readonly Move[],
): { readonly fails: string } | { readonly problem: string } {
  const keys = new FairnessKeys(expander.actions as never);
  const unfair = unfairKey(expander, keys, cycle.length === 0 ? states.slice(-1) : states.slice(loop), cycle);
  if (unfair !== null) {
    const strong = keys.strongFlags()[keys.idOf(unfair.action, unfair.params, unfair.state)] === 1;
    return { problem: `the loop is not fair: ${describeKey(expander, unfair)} is never taken on it although it is ${strong ? 'enabled on it (strong fairness)' : 'enabled all along it (weak fairness)'}` };
  }
  const temporal = expander.model.properties.filter(isTemporal).filter((p) => wanted === null || p.name === wanted);
  if (temporal.length === 0) return { problem: wanted === null ? 'the spec has no temporal property' : `the spec has no temporal property ${wanted}` };
  for (const p of temporal) if (failsOn(p, states, cycle.length === 0 ? states.length - 1 : loop)) return { fails: p.name };
  return { problem: `the loop is fair but ${temporal.map((p) => p.name).join(', ')} ${temporal.length === 1 ? 'holds' : 'hold'} on it` };
}

/**
 * The first fair action instance the cycle owes a step to, or null when the cycle is fair. The move
 * `cycle[i]` is taken in `cycleStates[i]`. A step that leads back to the state it is taken in stutters:
 * it neither enables its key nor pays it (fairCycle.ts).
 */
export function unfairKey<S>(expander: Expander<S>, keys: FairnessKeys, cycleStates: readonly S[], cycle: readonly Move[]): OwedMove | null {
  const states = new Fingerprinter();
  const same = (a: S, b: S): boolean => {
    states.of(a);
    const { hi, lo } = states;
    states.of(b);
    return states.hi === hi && states.lo === lo;
  };
  const taken = new Set<number>();
  cycle.forEach((m, i) => {
    const f = keys.idOf(m.action, m.params, cycleStates[i]);
    if (f >= 0 && !same(cycleStates[i]!, cycleStates[(i + 1) % cycleStates.length]!)) taken.add(f);
  });
  const enabledCount = new Map<number, { count: number; move: OwedMove }>();
  for (const s of cycleStates) {
    const here = new Map<number, OwedMove>();
    expander.successors(s, (t, action, params) => {
      const f = keys.idOf(action, params, s);
      if (f >= 0 && !here.has(f) && !same(s, t)) here.set(f, { action, params, state: s });
    }, false);
    for (const [f, move] of here) {
      const e = enabledCount.get(f);
      enabledCount.set(f, { count: (e?.count ?? 0) + 1, move: e?.move ?? move });
    }
  }
  const strong = keys.strongFlags();
  for (const [f, { count, move }] of enabledCount) {
    if (taken.has(f)) continue;
    if (strong[f] || count === cycleStates.length) return move;
  }
  return null;
}

/** Whether the behaviour `states[0..]`, then `states[loop..]` for ever, fails `p`. */
export function failsOn<S>(p: Property<S>, states: readonly S[], loop: number): boolean {
  const q = states.map((s) => p.test(s));
  const cycleNeverQ = q.slice(loop).every((x) => !x);
  switch (p.kind) {
    case 'eventually':
      return q.every((x) => !x);
    case 'alwaysEventually':
      return cycleNeverQ;
    case 'eventuallyAlways':
      return q.slice(loop).some((x) => !x);
    case 'leadsTo': {
      if (!cycleNeverQ) return false;
      // A P-state after which Q never holds again: only ¬Q from it to the loop.
      for (let i = states.length - 1; i >= 0; i--) {
        if (q[i]) return false;
        if (p.from!(states[i]!)) return true;
      }
      return false;
    }
    default:
      return false;
  }
}

function describeKey<S>(expander: Expander<S>, m: Move): string {
  const action = expander.actions[m.action]!;
  if (action.fairnessKey) return `${action.name}[${action.fairnessKey(m.params)}]`;
  const ps = Object.entries(m.params).map(([k, v]) => `${k}=${String(v)}`);
  return ps.length ? `${action.name}(${ps.join(', ')})` : action.name;
}
