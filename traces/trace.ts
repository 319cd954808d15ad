/** A behaviour of a model: the states it passed through and the actions that took it there. */
import type { ActionParams, ParamValues, StepEvents } from '../spec/spec.ts';

export interface TraceStep<S> {
  /** 0 for the initial state. */
  readonly index: number;
  /** The action taken to reach this state; `Init` for step 0. */
  readonly action: string;
  readonly params: ActionParams;
  readonly state: S;
  readonly events?: StepEvents;
}

/** Why a trace was kept: the property it breaks, a deadlock, or the spec throwing at its end. */
export interface TraceVerdict {
  readonly kind: 'always' | 'everyStep' | 'deadlock' | 'error' | 'liveness';
  /** The violated property's name, `Deadlock`, or `Error`. */
  readonly property: string;
  readonly description: string;
}

export interface Trace<S> {
  readonly spec: string;
  readonly preset?: string;
  readonly params: ParamValues;
  readonly steps: readonly TraceStep<S>[];
  readonly verdict?: TraceVerdict;
  /** Set for a lasso (a liveness counterexample): the behaviour goes on forever round a loop. */
  readonly loop?: TraceLoop;
}

/**
 * After the last step the behaviour returns to step `index` and repeats steps `index`.. forever. The step
 * that closes the loop (last state → step `index`) is `action` with `params`; without `action` the last
 * state repeats itself (stuttering: nothing fair is left to do), and `index` is the last step.
 */
export interface TraceLoop {
  readonly index: number;
  readonly action?: string;
  readonly params?: ActionParams;
}

export const INIT_ACTION = 'Init';
