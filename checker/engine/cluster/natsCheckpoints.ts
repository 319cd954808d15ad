/**
 * A cluster run's checkpoints in its object store in NATS (the default store): beside the keys and
 * ranks too large for a message, in the bucket `kmc-<run>` that the run's driver destroys at its end.
 */
import type { ObjectStore } from 'nats';
import type { CheckpointStore } from './checkpointStore.ts';

export class NatsCheckpoints implements CheckpointStore {
  readonly where: string;

  /** `objects`: the run's object store, named `bucket`. */
  constructor(
    private readonly objects: ObjectStore,
    bucket: string,
  ) {
    this.where = `the object store ${bucket} in NATS`;
  }

  async put(name: string, bytes: Uint8Array): Promise<void> {
    await this.objects.putBlob({ name }, bytes);
  }

  get(name: string): Promise<Uint8Array | null> {
    return this.objects.getBlob(name);
  }

  /** Nothing to check: the object store was made (or found) when the store was. */
  async check(): Promise<void> {}

  /** Destroys the run's object store: its checkpoints, and whatever else the run left in it. */
  async destroy(): Promise<void> {
    await this.objects.destroy();
  }

  close(): void {}
}
