/**
 * The NATS names of a run: the subjects its driver and workers talk on, its JetStream stream of successor
 * batches (one subject per owner) and its object store for large attachments.
 */

/** Where an idle worker waits to be recruited (a queue group: each offer goes to one worker). */
export const RECRUIT = 'kmc.recruit';
export const WORKERS_QUEUE = 'kmc-workers';
/** Where a worker takes offers made to it by name (a part of a run whose worker was lost). */
export const offersTo = (worker: string) => `kmc.worker.${worker}.offer`;

export const names = (run: string) => ({
  stream: `KMC_${run}`,
  batches: `kmc.${run}.batch.*`,
  batchesFor: (owner: number) => `kmc.${run}.batch.${owner}`,
  consumerFor: (owner: number) => `owner-${owner}`,
  requests: (owner: number) => `kmc.${run}.owner.${owner}`,
  /** A worker's heartbeat, and the driver's. */
  alive: (owner: number) => `kmc.${run}.alive.${owner}`,
  aliveAny: `kmc.${run}.alive.*`,
  driver: `kmc.${run}.driver`,
  /** The driver tells every owner to drop what it is doing (a level is being rolled back). */
  reset: `kmc.${run}.reset`,
  objects: `kmc-${run}`,
  /** In the object store: an owner's checkpoint of a level, an owner's keys, the driver's commit. */
  checkpoint: (owner: number, level: number) => `checkpoint.${owner}.${level}`,
  keys: (owner: number, level: number) => `keys.${owner}.${level}`,
  ranks: (owner: number, level: number) => `ranks.${owner}.${level}`,
  commit: 'commit',
});

/** How driver and workers reconnect: for ever, soon after a server comes back (a roll-back waits for them). */
export const RECONNECT = { maxReconnectAttempts: -1, reconnectTimeWait: 250, reconnectJitter: 100 } as const;

/** Seconds between heartbeats. */
export const HEARTBEAT_SECONDS = 1;

/** Attachments past this size go through the object store (a NATS message carries 1 MB by default). */
export const MAX_INLINE_BYTES = 512 * 1024;

/** The names of a work queue on the cluster (jobQueue.ts): its stream of units, where their results go, and its stop. */
export const queueNames = (run: string) => ({
  stream: `KMC_QUEUE_${run}`,
  units: `kmc.${run}.units`,
  consumer: 'takers',
  results: `kmc.${run}.results`,
  /** Results are stored, so one sent while the driver is away from the server is read when it is back. */
  resultsStream: `KMC_RESULTS_${run}`,
  stop: `kmc.${run}.stop`,
  /** Per unit, the bound the driver sets it (a swarm's walk: the first run not to start), said again every second. */
  bounds: `kmc.${run}.bounds`,
  /** What a unit says while it runs (a walk's verdict before its trace is built): heard by the driver, not stored. */
  notices: `kmc.${run}.notices`,
  /** The driver says it is alive (every HEARTBEAT_SECONDS), as a search's does: `kmc runs` tells a queue at work from one left behind. */
  driver: `kmc.${run}.driver`,
});
