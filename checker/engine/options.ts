/** Options of a check, as the API takes them. The CLI validates user input before it gets here. */
import type { Progress } from './result.ts';

export interface CheckOptions {
  /** Breadth-first (default; shortest counterexamples) or depth-first with a depth bound. */
  readonly strategy?: 'bfs' | 'dfs';
  readonly maxStates?: number;
  readonly maxDepth?: number;
  readonly timeLimitSeconds?: number;
  /**
   * The checker's memory budget. Packed states that do not fit spill to files in `spillDirectory`
   * and the search goes on; it stops `incomplete` only if the fingerprint tables alone outgrow it.
   */
  readonly memoryBudgetBytes?: number;
  /** Most frontier bytes kept in memory before chunks spill to disk (default: what the memory budget leaves). */
  readonly frontierMemoryBytes?: number;
  /** Size of the frontier's chunks, the unit of spilling (default 4 MiB, or a 64th of the memory budget; smaller in tests). */
  readonly frontierChunkBytes?: number;
  /** Write a checkpoint to this folder at level boundaries (packed specs), at most every `checkpointEverySeconds` (default 600). */
  readonly checkpointDirectory?: string;
  readonly checkpointEverySeconds?: number;
  /** Continue the search saved in this folder's checkpoint instead of starting from the initial states. */
  readonly resumeDirectory?: string;
  /** Where a frontier spills (default: a `kmc-spill` folder in the system's temporary directory). */
  readonly spillDirectory?: string;
  /** Report a state with no enabled action as a violation (default true, as in TLC). */
  readonly deadlock?: boolean;
  /** Reduce by the model's declared symmetry sets (default false). */
  readonly symmetry?: boolean;
  /**
   * Worker threads: the search is partitioned among this many owners, one a thread (owners/ownedSearch.ts);
   * results are identical for every count (default 1). A search under
   * `memoryBudgetBytes` runs in one thread whatever this says: only one thread spills its frontier. So
   * does a search of states that are not bytes (a spec without a layout): `onWarning` is told.
   */
  readonly workers?: number;
  /**
   * Owner threads (`workers`, or `owners` with a model module): from the level of this depth on, the search
   * waits for every thread still loading the model to take its part. By default it never waits: the driver's thread
   * owns a part until its thread is ready (threadOwners.ts).
   */
  readonly ownerThreadsFromDepth?: number;
  /**
   * `workers` is the default, not asked for (defaultWorkers.ts): a search that would lose by worker
   * threads something one thread has stays in one thread: only one thread records the liveness graph as it
   * goes (temporal properties).
   */
  readonly workersByDefault?: boolean;
  /**
   * Partition the seen set and the frontier among this many owners by fingerprint (owners/ownedSearch.ts):
   * worker threads (objects in this thread for a model built in code, which no thread can load), or with
   * `cluster`, worker processes reached through NATS JetStream. Results are those of one thread for every
   * count. Specs with a layout; breadth-first; safety properties.
   */
  readonly owners?: number;
  /** A NATS server (`nats://host:4222`) through which `owners` worker processes (`kmc worker`) own the search. */
  readonly cluster?: string;
  /** How long the driver waits for `owners` workers to join (default 30 s). */
  readonly clusterWaitSeconds?: number;
  /** How long a worker (or the driver, to a worker) may stay silent before the run stops (default 15 s). */
  readonly clusterSilenceSeconds?: number;
  /** Go on with this cluster run from its last commit (its driver was stopped). */
  readonly clusterResumeRun?: string;
  /**
   * Where a cluster run keeps its checkpoints and commits: `s3://bucket/prefix` (cluster/checkpointStore.ts),
   * reached by the driver and each worker with its own environment's AWS credentials; by default, the
   * run's object store in NATS.
   */
  readonly clusterCheckpointStore?: string;
  /** Told what happens on the cluster: the run's id, a lost worker, a resumption. */
  readonly onClusterNote?: (line: string) => void;
  /** Told, before the search, of an option the search cannot use as asked (`workers` for states that are not bytes). */
  readonly onWarning?: (line: string) => void;
  readonly onProgress?: (progress: Progress) => void;
  readonly progressIntervalMs?: number;
  /**
   * Polled between batches; returning true ends the run as `incomplete` (`interrupted`). A search that
   * writes checkpoints first finishes its level and writes one, so that the stop loses nothing.
   */
  readonly shouldStop?: () => boolean;
  /** Called once when a stop is deferred to the end of the level, for its last checkpoint. */
  readonly onFinishingLevel?: () => void;
  /**
   * Called once when the search has its verdict (a violation, a deadlock, the spec's error) and before
   * its counterexample is rebuilt, which runs the spec's steps again and may take long past a limit.
   */
  readonly onVerdict?: (verdict: FoundVerdict) => void;
}

/**
 * How long past a limit a search that has its verdict may take to rebuild its counterexample (the spec's
 * steps run again, and may be slow) before it is ended and the verdict reported without a trace.
 * (checker/cli/launcher.mjs, which cannot import this module, keeps the same figure.)
 */
export const VERDICT_GRACE_MS = 60_000;

/** A verdict found, as it is worded before its counterexample is rebuilt. */
export interface FoundVerdict {
  readonly status: 'violation' | 'error';
  /** The property violated ('Deadlock' for a deadlock), or 'Error'. */
  readonly property: string;
  /** How a report words it: "Invariant TCConsistent violated", "Deadlock", "The spec threw: …". */
  readonly headline: string;
}
