/** The outcome of a check, as data. Exactly one place (the CLI) maps it to an exit code. */
import type { Trace } from '../../traces/trace.ts';
import type { OwnershipFigures } from './search.ts';

export interface ActionCoverage {
  readonly action: string;
  /** How many (state, parameter) pairs had the guard true. */
  readonly enabled: number;
  /** How many successor states the action produced (enabled and effect ran). */
  readonly fired: number;
  /** How many of those were new distinct states. */
  readonly newStates: number;
  /** Why the parameters rule this action out (`Action.disabledBy`); it was never run. */
  readonly disabledBy?: string;
  /** The action with its one parameter choice (`Send(rm=r2)`), when several actions share its name. */
  readonly label?: string;
  /** Why the spec says the action is never enabled (`Action.deadByConstruction`). */
  readonly deadByConstruction?: string;
}

export interface Stats {
  readonly distinct: number;
  readonly generated: number;
  /**
   * As TLC reports it: states on the longest shortest path from an initial state (the number of BFS
   * levels). A search that stops inside a level counts the next one once it holds a state of the model,
   * such as the new state that breaks an invariant.
   */
  readonly depth: number;
  readonly queued: number;
  readonly seconds: number;
  /**
   * CPU seconds the process spent meanwhile, in all its threads: the worker threads' and V8's compiling
   * and collecting too, so beside `seconds` it shows what the cores gave the search. A process that runs
   * other work at the same time (other checks through the API, `kmc ci`'s lanes) counts that too.
   */
  readonly cpuSeconds: number;
  /** TLC's optimistic fingerprint-collision estimate n·(g−n)/2^64. */
  readonly collisionProbability: number;
  readonly coverage: readonly ActionCoverage[];
  /** Bytes of checker memory per distinct state (seen-set, parent links, queue). */
  /**
   * The checker's own memory per distinct state: its tables (fingerprints, state log) and frontier, as
   * allocated. Tables start at room for 65,536 states, so below that this says more about the start size
   * than about the model (`tablesAtStartSize`).
   */
  readonly bytesPerState: number;
  /** True while the tables have not outgrown their start size: bytesPerState is then not a per-state cost. */
  readonly tablesAtStartSize: boolean;
  /** The process's growth in resident memory per distinct state (Node.js, spec objects, garbage included). */
  readonly processBytesPerState: number;
  readonly peakMemoryBytes: number;
  readonly workers: number;
  /** Set when the search was partitioned among this many owners by --owners (then `workers` counts them too). */
  readonly owners?: number;
  /** What went between the owners: with --owners, and with --workers N (N owner threads). */
  readonly ownership?: OwnershipFigures;
  /** Frontier bytes moved to disk to stay within the memory budget (0 when everything fit). */
  readonly spilledBytes: number;
}

/** `diskWrite`: writing the frontier to the spill folder failed (a full disk, say), not the memory budget. */
export type IncompleteReason = 'maxStates' | 'maxDepth' | 'timeLimit' | 'memoryBudget' | 'interrupted' | 'diskWrite';

export type CheckResult<S> =
  | { readonly status: 'holds'; readonly stats: Stats; readonly witnesses: readonly string[] }
  /**
   * An invariant failed, a deadlock was found, a `sometimes` property was never reached (vacuous), or a
   * temporal property fails on a fair behaviour (`liveness`: the trace is a lasso, with `loop`).
   */
  | {
      readonly status: 'violation';
      readonly kind: 'always' | 'everyStep' | 'deadlock' | 'sometimes' | 'liveness';
      readonly property: string;
      readonly stats: Stats;
      /** Absent for a vacuous `sometimes`: there is no state to show. */
      readonly trace?: Trace<S>;
      /** For `sometimes`, and for `liveness` when witnesses were not reached either: every witness property never reached. */
      readonly unreached?: readonly string[];
      readonly witnesses: readonly string[];
    }
  | { readonly status: 'incomplete'; readonly reason: IncompleteReason; readonly stats: Stats; readonly witnesses: readonly string[]; readonly note?: string }
  /** The spec's own code threw; `trace` leads to the state where it did. */
  | { readonly status: 'error'; readonly message: string; readonly stats: Stats; readonly trace?: Trace<S> };

export interface Progress {
  readonly distinct: number;
  readonly generated: number;
  readonly queued: number;
  readonly depth: number;
  readonly seconds: number;
}
