/**
 * `kmc layout suggest`: explores an Immutable.js spec breadth-first for a while, widening the shape of
 * every state it builds (successors outside a CONSTRAINT included: they are built before they are
 * dropped, so the layout must hold them), and turns the shape into a layout declaration to paste.
 */
import { hash, is } from 'immutable';
import type { Model } from '../../spec/spec.ts';
import { View } from '../../spec/layout/views.ts';
import type { Key } from '../../spec/layout/types.ts';
import { NEVER, ShapeError, observe, type Shape } from './shape.ts';
import { suggestLayout, type LayoutSuggestion } from './layoutCode.ts';

export interface SuggestLimits {
  readonly maxStates: number;
  readonly timeSeconds: number;
}

export interface Suggestion extends LayoutSuggestion {
  /** Distinct states explored (within the CONSTRAINT) and states observed (all built). */
  readonly explored: number;
  readonly observed: number;
  /** True when every reachable state was explored: the bounds are then exact. */
  readonly complete: boolean;
  /** The states observed, for a test to hold the layout to. */
  readonly states: readonly unknown[];
}

export async function suggest(model: Model<unknown>, limits: SuggestLimits): Promise<Suggestion> {
  if (model.layout) throw new ShapeError('this spec already declares a layout (its model has `layout`): kmc layout suggest reads the states of a spec kept on Immutable.js');
  const deadline = Date.now() + limits.timeSeconds * 1000;
  let shape: Shape = NEVER;
  const observed = new ValueSet();
  const queued = new ValueSet();
  const look = (s: unknown): void => {
    if (s instanceof View) throw new ShapeError('this spec builds packed views although its model declares no layout');
    if (observed.add(s)) shape = observe(shape, s, 'state');
  };
  const inside = (s: unknown) => model.constraint === undefined || model.constraint(s);
  let frontier: unknown[] = [];
  let explored = 0;
  for (const s of model.init()) {
    look(s);
    if (inside(s) && queued.add(s)) frontier.push(s);
  }
  let complete = true;
  search: while (frontier.length > 0) {
    const next: unknown[] = [];
    for (const s of frontier) {
      if (explored >= limits.maxStates || Date.now() > deadline) {
        complete = false;
        break search;
      }
      explored++;
      for (const a of model.actions) {
        if (a.disabledBy !== undefined) continue;
        const choices = a.params ? [...a.params(s)] : [{}];
        for (const p of choices) {
          if (a.enabled && !a.enabled(s, p)) continue;
          const t = a.next(s, p);
          look(t);
          if (inside(t) && (model.actionConstraint === undefined || model.actionConstraint(s, t)) && queued.add(t)) next.push(t);
        }
      }
    }
    frontier = next;
    // Let a signal handler run between levels.
    await new Promise((r) => setImmediate(r));
  }
  const symmetry = (model.symmetry ?? []) as readonly (readonly Key[])[];
  const layout = suggestLayout(shape, symmetry, !complete);
  return { ...layout, explored, observed: observed.size, complete, states: observed.values };
}

/** Immutable.js values by value (`is`), bucketed by `hash`. */
class ValueSet {
  private readonly buckets = new Map<number, unknown[]>();
  readonly values: unknown[] = [];
  get size(): number {
    return this.values.length;
  }
  /** Adds `v`; false when an equal value is there already. */
  add(v: unknown): boolean {
    const h = hash(v);
    const bucket = this.buckets.get(h);
    if (bucket?.some((t) => is(t, v))) return false;
    if (bucket) bucket.push(v);
    else this.buckets.set(h, [v]);
    this.values.push(v);
    return true;
  }
}
