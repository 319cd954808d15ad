/**
 * Long traces for the picture tests: a seeded random walk through a bundled model, taken through the
 * model's public interface (init, params, enabled, next, describe), so the charts are tried at lengths no
 * counterexample reaches.
 */
import type { Model } from '../../spec/spec.ts';
import { INIT_ACTION, type TraceStep } from '../../traces/trace.ts';
import { toItf, type ItfTrace } from '../../traces/itf/write.ts';
import { prepareCheck } from '../../checker/run/runCheck.ts';

/** xorshift32: the same walk on every machine. */
function random(seed: number): () => number {
  let x = seed | 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x100000000;
  };
}

export function randomWalk<S>(model: Model<S>, length: number, seed: number): TraceStep<S>[] {
  const next = random(seed);
  let state: S = [...model.init()][0]!;
  const steps: TraceStep<S>[] = [{ index: 0, action: INIT_ACTION, params: {}, state }];
  for (let i = 1; i <= length; i++) {
    const choices: { action: (typeof model.actions)[number]; params: Record<string, unknown> }[] = [];
    for (const action of model.actions) {
      for (const params of action.params ? action.params(state) : [{}]) {
        if (!action.enabled || action.enabled(state, params)) choices.push({ action, params });
      }
    }
    if (choices.length === 0) break;
    const { action, params } = choices[Math.floor(next() * choices.length)]!;
    const after = action.next(state, params) as S;
    const events = action.describe?.(state, params, after);
    steps.push({ index: i, action: action.name, params, state: after, ...(events ? { events } : {}) });
    state = after;
  }
  return steps;
}

/** A long walk through a bundled spec under a preset and parameters, as an ITF trace without a verdict. */
export async function longWalk(spec: string, preset: string, params: readonly string[], length: number, seed: number): Promise<ItfTrace> {
  const { model, label } = await prepareCheck({ spec, preset, params });
  return toItf({ ...label, steps: randomWalk(model, length, seed) });
}
