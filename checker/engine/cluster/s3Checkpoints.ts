/**
 * A cluster run's checkpoints in S3, or in a server with S3's API: the objects of run R under
 * `s3://bucket/prefix/kmc-R/`, named as in NATS's object store (`checkpoint.<owner>.<level>`, `commit`).
 *
 * Each process of the run (the driver, every worker) reaches the bucket with what its own environment gives
 * the AWS SDK: credentials and region by the SDK's usual chain (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY,
 * AWS_PROFILE and ~/.aws, a container's or an instance's role), and a server other than AWS's in
 * AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL, which is then addressed by path (http://host:port/bucket/key),
 * as S3-compatible servers expect.
 *
 * An object larger than a part (a level's delta can be gigabytes) goes up in parts, a few at a time, each
 * retried alone.
 */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  type CompletedPart,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import type { CheckpointStore, S3Location } from './checkpointStore.ts';
import { ClusterError } from './clusterError.ts';
import { names } from './subjects.ts';

/** Objects up to this size go up in one request; larger ones in parts of this size (S3 takes parts of 5 MiB to 5 GiB). */
const PART_BYTES = 64 * 2 ** 20;
/** Parts of one object sent at once. */
const PARTS_AT_ONCE = 4;
/** S3 deletes at most this many objects a request. */
const DELETE_BATCH = 1000;
/** How long a connection to the server may take (an address where nothing answers fails then, not never). */
const CONNECT_MS = 10_000;

/** What a process needs to use the bucket, said with every failure. */
const ADVICE =
  "Each process of a run (the driver and every worker) reaches the bucket with its own environment's credentials and region, found as the AWS SDK finds them (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, a container's or an instance's role), and a server other than AWS's at the address in AWS_ENDPOINT_URL_S3; the bucket must exist, and the run needs s3:ListBucket, s3:GetObject, s3:PutObject and s3:DeleteObject on it.";

export interface S3Options {
  /** The size of a part of an upload, and the largest object sent in one request. */
  readonly partBytes?: number;
}

/** The store of `run`'s checkpoints at `location`, through a client configured by this process's environment. */
export async function s3Checkpoints(location: S3Location, run: string, options: S3Options = {}): Promise<S3Checkpoints> {
  const endpoint = configuredEndpoint();
  const config: S3ClientConfig = {
    ...(endpoint !== undefined ? { endpoint, forcePathStyle: true } : {}),
    // A bucket in another region than the one configured is found there.
    followRegionRedirects: true,
    requestHandler: { connectionTimeout: CONNECT_MS },
  };
  // kmc runs on Node.js 20 (package.json's engines); the SDK's notice that its releases of 2027 will need 22 is for whoever updates the SDK.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  let client = new S3Client(config);
  try {
    await client.config.region();
  } catch {
    // No region configured (as is usual for a server of one's own): S3's first, from which a bucket elsewhere redirects.
    client.destroy();
    client = new S3Client({ ...config, region: 'us-east-1' });
  }
  return new S3Checkpoints(client, location, run, endpoint, options.partBytes ?? PART_BYTES);
}

/** The address AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL gives S3, as the SDK reads them; a ClusterError when it is no URL. */
function configuredEndpoint(): string | undefined {
  if (process.env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS === 'true') return undefined;
  const [variable, endpoint] = (['AWS_ENDPOINT_URL_S3', 'AWS_ENDPOINT_URL'] as const).map((v) => [v, process.env[v]] as const).find(([, value]) => value) ?? [];
  if (endpoint === undefined) return undefined;
  if (!/^https?:\/\/[^\s/]+\/?$/.test(endpoint)) {
    throw new ClusterError(`${variable} is '${endpoint}', not the address of a server with S3's API: give its scheme, host and port, such as http://127.0.0.1:9000 or https://s3.example.com, or unset it to use AWS's.`);
  }
  return endpoint;
}

export class S3Checkpoints implements CheckpointStore {
  readonly where: string;
  /** The run's objects are those under this key prefix. */
  private readonly folder: string;

  constructor(
    private readonly client: S3Client,
    private readonly location: S3Location,
    run: string,
    endpoint: string | undefined,
    private readonly partBytes: number,
  ) {
    this.folder = `${location.prefix === '' ? '' : `${location.prefix}/`}${names(run).objects}/`;
    this.where = `s3://${location.bucket}/${this.folder}${endpoint === undefined ? '' : ` (at ${endpoint})`}`;
  }

  private key(name: string): string {
    return `${this.folder}${name}`;
  }

  async put(name: string, bytes: Uint8Array): Promise<void> {
    try {
      if (bytes.length <= this.partBytes) await this.client.send(new PutObjectCommand({ Bucket: this.location.bucket, Key: this.key(name), Body: bytes }));
      else await this.putInParts(this.key(name), bytes);
    } catch (e) {
      throw this.failed(`cannot save ${name} to the checkpoint store ${this.where}`, e);
    }
  }

  /** A multipart upload, its parts with their checksums (which S3 then asks for again when the upload is completed). */
  private async putInParts(key: string, bytes: Uint8Array): Promise<void> {
    const object = { Bucket: this.location.bucket, Key: key };
    const { UploadId } = await this.client.send(new CreateMultipartUploadCommand({ ...object, ChecksumAlgorithm: 'CRC32' }));
    try {
      const count = Math.ceil(bytes.length / this.partBytes);
      const parts: CompletedPart[] = [];
      let next = 0;
      const sender = async (): Promise<void> => {
        while (next < count) {
          const i = next++;
          const body = bytes.subarray(i * this.partBytes, (i + 1) * this.partBytes);
          const r = await this.client.send(new UploadPartCommand({ ...object, UploadId, PartNumber: i + 1, Body: body, ChecksumAlgorithm: 'CRC32' }));
          parts[i] = { PartNumber: i + 1, ETag: r.ETag, ...(r.ChecksumCRC32 !== undefined ? { ChecksumCRC32: r.ChecksumCRC32 } : {}) };
        }
      };
      await Promise.all(Array.from({ length: Math.min(PARTS_AT_ONCE, count) }, sender));
      await this.client.send(new CompleteMultipartUploadCommand({ ...object, UploadId, MultipartUpload: { Parts: parts } }));
    } catch (e) {
      await this.client.send(new AbortMultipartUploadCommand({ ...object, UploadId })).catch(() => {});
      throw e;
    }
  }

  async get(name: string): Promise<Uint8Array | null> {
    try {
      const r = await this.client.send(new GetObjectCommand({ Bucket: this.location.bucket, Key: this.key(name) }));
      return r.Body === undefined ? new Uint8Array(0) : await r.Body.transformToByteArray();
    } catch (e) {
      if (e instanceof Error && (e.name === 'NoSuchKey' || (statusOf(e) === 404 && e.name !== 'NoSuchBucket'))) return null;
      throw this.failed(`cannot read ${name} from the checkpoint store ${this.where}`, e);
    }
  }

  async check(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.location.bucket }));
    } catch (e) {
      const status = statusOf(e);
      const why = status === 404 ? `there is no bucket ${this.location.bucket}` : status === 403 ? `access to the bucket ${this.location.bucket} is denied to these credentials` : undefined;
      throw this.failed(`the checkpoint store ${this.where} cannot be used`, e, why);
    }
  }

  /** Deletes every object under the run's prefix (listed first, then deleted a batch at a time). */
  async destroy(): Promise<void> {
    try {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.location.bucket, Prefix: this.folder, ...(token !== undefined ? { ContinuationToken: token } : {}) }));
        for (const o of page.Contents ?? []) if (o.Key !== undefined) keys.push(o.Key);
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token !== undefined);
      for (let i = 0; i < keys.length; i += DELETE_BATCH) {
        const batch = keys.slice(i, i + DELETE_BATCH).map((Key) => ({ Key }));
        const r = await this.client.send(new DeleteObjectsCommand({ Bucket: this.location.bucket, Delete: { Objects: batch, Quiet: true } }));
        const error = r.Errors?.[0];
        if (error) throw new Error(`${r.Errors!.length} objects were not deleted (${error.Key}: ${error.Code} ${error.Message})`);
      }
    } catch (e) {
      throw this.failed(`cannot delete the checkpoints in ${this.where}`, e);
    }
  }

  close(): void {
    this.client.destroy();
  }

  private failed(what: string, e: unknown, why = describe(e)): ClusterError {
    return new ClusterError(`${what}: ${why}. ${ADVICE}`);
  }
}

function statusOf(e: unknown): number | undefined {
  return (e as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
}

/** An SDK error in a few words: its name, the HTTP status, its message (an error of the network: its message). */
function describe(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const status = statusOf(e);
  const message = e.message === '' || e.message === 'UnknownError' || e.message === e.name ? '' : e.message;
  if (e.name === 'Error' || e.name === 'TypeError') return message;
  return `${e.name}${status !== undefined ? ` (HTTP ${status})` : ''}${message === '' ? '' : `: ${message}`}`;
}
