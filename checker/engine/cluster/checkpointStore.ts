/**
 * Where a cluster run keeps its checkpoints: every level, each owner's delta of the level it holds
 * (`checkpoint.<owner>.<level>`), and the driver's commit of its counts (`commit`). A lost worker's run,
 * or a resumed driver's, goes back to them. By default they are in the run's object store in NATS
 * (natsCheckpoints.ts); `--checkpoint-store s3://bucket/prefix` puts them in S3 (s3Checkpoints.ts).
 */
import { ClusterError } from './clusterError.ts';

export interface CheckpointStore {
  /** Where the run's checkpoints are, for messages: `s3://bucket/prefix/kmc-<run>/`. */
  readonly where: string;
  put(name: string, bytes: Uint8Array): Promise<void>;
  /** The object's bytes, or null when there is none of that name. */
  get(name: string): Promise<Uint8Array | null>;
  /** Throws a ClusterError, saying why and what to do, when the store cannot be used (before a run starts). */
  check(): Promise<void>;
  /** Deletes every checkpoint of the run. */
  destroy(): Promise<void>;
  /** Lets go of its connections. */
  close(): void;
}

/** A bucket and key prefix in S3 (`s3://bucket/prefix`; the prefix without slashes at its ends, or empty). */
export interface S3Location {
  readonly bucket: string;
  readonly prefix: string;
}

/** What `--checkpoint-store` takes, for a message about a value it does not. */
export const CHECKPOINT_STORE_FORMS =
  "nats (the run's object store in NATS, the default) or s3://bucket/prefix (objects under the prefix of an S3 bucket, or of a server with S3's API named by AWS_ENDPOINT_URL_S3; the prefix may be left out: s3://bucket)";

/** The S3 location a `--checkpoint-store` value names; why it names none, as a string. */
export function s3Location(url: string): S3Location | string {
  const m = /^s3:\/\/([^/]*)(?:\/(.*))?$/.exec(url);
  if (m === null) return `'${url}' is neither nats nor an s3:// URL`;
  const bucket = m[1]!;
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket) || bucket.includes('..')) {
    return `'${bucket}' is not a name S3 gives a bucket (3 to 63 lowercase letters, digits, dots and hyphens, beginning and ending with a letter or digit)`;
  }
  const prefix = (m[2] ?? '').replace(/\/+$/, '');
  if (prefix !== '' && prefix.split('/').some((part) => part === '' || /[\u0000-\u001f\u007f\\]/.test(part))) {
    return `the key prefix '${prefix}' has an empty part (two slashes in a row, or one at its start), a backslash or a control character`;
  }
  return { bucket, prefix };
}

/** The canonical form of an S3 location: `s3://bucket` or `s3://bucket/prefix`. */
export function s3Url(location: S3Location): string {
  return `s3://${location.bucket}${location.prefix === '' ? '' : `/${location.prefix}`}`;
}

/**
 * The store at `url` (an s3:// URL) for the checkpoints of `run`, with what its process's environment
 * gives for credentials, region and endpoint. The store in NATS is made from the run's object store
 * instead (natsCheckpoints.ts). Throws a ClusterError for a URL that is not a store's.
 */
export async function openCheckpointStore(url: string, run: string): Promise<CheckpointStore> {
  const location = s3Location(url);
  if (typeof location === 'string') {
    throw new ClusterError(`the checkpoint store ${url} is not one kmc knows: ${location}. A cluster run keeps its checkpoints in ${CHECKPOINT_STORE_FORMS}.`);
  }
  const { s3Checkpoints } = await import('./s3Checkpoints.ts');
  return s3Checkpoints(location, run);
}
