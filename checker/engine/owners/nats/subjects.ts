/**
 * The NATS names of a run: the subjects its driver and workers talk on, its JetStream stream of successor
 * batches (one subject per owner) and its object store for large attachments.
 */

/** Where an idle worker waits to be recruited (a queue group: each offer goes to one worker). */
export const RECRUIT = 'kmc.recruit';
export const WORKERS_QUEUE = 'kmc-workers';

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
  objects: `kmc-${run}`,
});

/** Seconds between heartbeats. */
export const HEARTBEAT_SECONDS = 1;

/** Attachments past this size go through the object store (a NATS message carries 1 MB by default). */
export const MAX_INLINE_BYTES = 512 * 1024;
