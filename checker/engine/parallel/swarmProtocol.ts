/**
 * Messages of a simulation swarm (swarm.ts): each worker thread runs one independent simulation from its
 * own seed and sends back how it ended, its counterexample already in ITF (plain JSON, which crosses
 * threads as it is; the states themselves would not).
 */
import type { ItfTrace } from '../../../traces/itf/write.ts';
import type { SimulationStats } from '../simulate.ts';
import type { FoundVerdict } from '../options.ts';
import type { WalkUnit } from './swarmWalk.ts';

export interface SwarmWorkerSetup extends WalkUnit {
  readonly swarm: true;
  readonly modulePath: string;
  /** One Int32: set to 1 by the coordinator when this walk must stop at once (Ctrl-C, the time limit). */
  readonly stop: SharedArrayBuffer;
  /**
   * One Int32 per walk: the first run the walk is not to start (`runsBefore`), lowered by the coordinator
   * as walks find violations, so that every walk runs exactly the runs that come before the first finding.
   */
  readonly bounds: SharedArrayBuffer;
  /** This walk's place in the swarm (its word of `bounds`). */
  readonly index: number;
}

/** How one seeded simulation ended (its `SimulationResult`, with the trace as ITF). */
export type WalkOutcome =
  | { readonly status: 'holds'; readonly stats: SimulationStats }
  | {
      readonly status: 'violation';
      readonly kind: 'always' | 'everyStep' | 'deadlock' | 'liveness';
      readonly property: string;
      readonly trace: ItfTrace;
      readonly stats: SimulationStats;
      readonly shrunkFrom: number;
      /** A limit ended shrinking before every cut was tried: the trace is the shortest found by then. */
      readonly shrinkStoppedBy?: 'timeLimit' | 'interrupted';
    }
  | { readonly status: 'incomplete'; readonly reason: 'timeLimit' | 'interrupted'; readonly stats: SimulationStats }
  | { readonly status: 'error'; readonly message: string; readonly trace?: ItfTrace; readonly stats: SimulationStats };

export type FromSwarmWorker =
  | { readonly type: 'done'; readonly outcome: WalkOutcome }
  /** The walk found a violation (or the spec threw) in run `run` (from 0) and shrinks it and builds its trace before it is done. */
  | { readonly type: 'verdict'; readonly verdict: FoundVerdict; readonly run: number }
  | { readonly type: 'failed'; readonly message: string };
