/**
 * The checkpoint store in S3 against s3rver, a fake S3 server on loopback: objects of a run under its
 * prefix, read back as written (in one request or in parts), none where there is none, a run's deleted
 * without another's; and a paragraph saying why and what to do for a bucket that cannot be used.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openCheckpointStore, s3Location, s3Url } from './checkpointStore.ts';
import { ClusterError } from './clusterError.ts';
import { s3Checkpoints } from './s3Checkpoints.ts';
import { type FakeS3, startS3, withEnv } from './testS3.ts';

const BUCKET = 'kmc-unit';
let s3: FakeS3;

before(async () => {
  s3 = await startS3(BUCKET);
  Object.assign(process.env, s3.env);
});

after(async () => {
  await s3.stop();
});

test('s3Location: a bucket and a prefix, or why the URL names none', () => {
  assert.deepEqual(s3Location('s3://kmc-runs'), { bucket: 'kmc-runs', prefix: '' });
  assert.deepEqual(s3Location('s3://kmc-runs/'), { bucket: 'kmc-runs', prefix: '' });
  assert.deepEqual(s3Location('s3://kmc.runs/team/checks/'), { bucket: 'kmc.runs', prefix: 'team/checks' });
  assert.equal(s3Url({ bucket: 'kmc-runs', prefix: 'team/checks' }), 's3://kmc-runs/team/checks');
  assert.equal(s3Url({ bucket: 'kmc-runs', prefix: '' }), 's3://kmc-runs');
  assert.match(s3Location('http://kmc-runs/x') as string, /'http:\/\/kmc-runs\/x' is neither nats nor an s3:\/\/ URL/);
  assert.match(s3Location('s3:/kmc-runs') as string, /neither nats nor an s3:\/\/ URL/);
  for (const bucket of ['', 'ab', 'Kmc', 'kmc_runs', '-kmc', 'kmc..runs', 'a'.repeat(64)]) {
    assert.match(s3Location(`s3://${bucket}/p`) as string, /is not a name S3 gives a bucket \(3 to 63 lowercase letters/, bucket);
  }
  assert.match(s3Location('s3://kmc-runs/a//b') as string, /the key prefix 'a\/\/b' has an empty part/);
  assert.match(s3Location('s3://kmc-runs//a') as string, /has an empty part/);
});

test('put and get: the bytes written, under s3://bucket/prefix/kmc-<run>/, in one request or in parts; none where there is none', { timeout: 60_000 }, async () => {
  const store = await s3Checkpoints({ bucket: BUCKET, prefix: 'team/checks' }, '0123456789ab', { partBytes: 5 * 2 ** 20 });
  try {
    assert.equal(store.where, `s3://${BUCKET}/team/checks/kmc-0123456789ab/ (at ${s3.endpoint})`);
    await store.check();
    const small = new Uint8Array([1, 2, 3, 250]);
    await store.put('checkpoint.0.0', small);
    await store.put('checkpoint.1.0', new Uint8Array(0));
    // Three parts of 5 MiB, 5 MiB and 2 MiB and 3 bytes.
    const large = new Uint8Array(12 * 2 ** 20 + 3).map((_, i) => (i * 7919) & 255);
    await store.put('checkpoint.0.1', large);
    assert.deepEqual(await store.get('checkpoint.0.0'), small);
    assert.deepEqual(await store.get('checkpoint.1.0'), new Uint8Array(0));
    const back = (await store.get('checkpoint.0.1'))!;
    assert.ok(Buffer.from(back).equals(Buffer.from(large)), `the checkpoint put in parts comes back whole: ${back.length} of ${large.length} bytes`);
    assert.equal(await store.get('checkpoint.2.0'), null);
    await store.put('commit', new TextEncoder().encode('{"depth":1}'));
    await store.put('commit', new TextEncoder().encode('{"depth":2}'));
    assert.equal(new TextDecoder().decode((await store.get('commit'))!), '{"depth":2}');
    assert.deepEqual(await s3.keys('team/'), ['checkpoint.0.0', 'checkpoint.0.1', 'checkpoint.1.0', 'commit'].map((k) => `team/checks/kmc-0123456789ab/${k}`));
  } finally {
    await store.destroy();
    store.close();
  }
});

test("destroy: every object of the run, and only the run's", { timeout: 60_000 }, async () => {
  const one = await openCheckpointStore(`s3://${BUCKET}/runs`, 'aaaaaaaaaaaa');
  const other = await openCheckpointStore(`s3://${BUCKET}/runs`, 'bbbbbbbbbbbb');
  const bare = await openCheckpointStore(`s3://${BUCKET}`, 'aaaaaaaaaaaa');
  try {
    for (let i = 0; i < 5; i++) await one.put(`checkpoint.${i}.0`, new Uint8Array([i]));
    await other.put('commit', new Uint8Array([9]));
    await bare.put('commit', new Uint8Array([8]));
    assert.deepEqual(await s3.keys(), ['kmc-aaaaaaaaaaaa/commit', 'runs/kmc-aaaaaaaaaaaa/checkpoint.0.0', 'runs/kmc-aaaaaaaaaaaa/checkpoint.1.0', 'runs/kmc-aaaaaaaaaaaa/checkpoint.2.0', 'runs/kmc-aaaaaaaaaaaa/checkpoint.3.0', 'runs/kmc-aaaaaaaaaaaa/checkpoint.4.0', 'runs/kmc-bbbbbbbbbbbb/commit']);
    await one.destroy();
    assert.deepEqual(await s3.keys(), ['kmc-aaaaaaaaaaaa/commit', 'runs/kmc-bbbbbbbbbbbb/commit']);
    await one.destroy();
    assert.equal(await one.get('checkpoint.0.0'), null);
    await other.destroy();
    await bare.destroy();
    assert.deepEqual(await s3.keys(), []);
  } finally {
    for (const s of [one, other, bare]) s.close();
  }
});

test('a bucket that cannot be used: a ClusterError saying what went wrong and what each process needs', { timeout: 60_000 }, async () => {
  const missing = await openCheckpointStore('s3://no-such-bucket/p', '0123456789ab');
  await assert.rejects(missing.check(), (e: Error) => {
    assert.ok(e instanceof ClusterError, `expected a ClusterError, got ${String(e)}`);
    assert.match(e.message, /^the checkpoint store s3:\/\/no-such-bucket\/p\/kmc-0123456789ab\/ \(at http:\/\/127\.0\.0\.1:\d+\) cannot be used: there is no bucket no-such-bucket\. Each process of a run .*AWS_ACCESS_KEY_ID.*AWS_ENDPOINT_URL_S3.*s3:PutObject/);
    return true;
  });
  await assert.rejects(missing.put('commit', new Uint8Array([1])), /^ClusterError: cannot save commit to the checkpoint store s3:\/\/no-such-bucket\/p\/kmc-0123456789ab\/ .*: NoSuchBucket \(HTTP 404\)/);
  missing.close();

  await withEnv({ AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:1' }, async () => {
    const unreachable = await openCheckpointStore(`s3://${BUCKET}/p`, '0123456789ab');
    await assert.rejects(unreachable.check(), /^ClusterError: the checkpoint store s3:\/\/kmc-unit\/p\/kmc-0123456789ab\/ \(at http:\/\/127\.0\.0\.1:1\) cannot be used: connect ECONNREFUSED 127\.0\.0\.1:1\. Each process/);
    await assert.rejects(unreachable.get('commit'), /^ClusterError: cannot read commit from the checkpoint store .*ECONNREFUSED/);
    unreachable.close();
  });

  await withEnv({ AWS_ENDPOINT_URL_S3: 'localhost:9000' }, async () => {
    await assert.rejects(openCheckpointStore(`s3://${BUCKET}/p`, '0123456789ab'), /^ClusterError: AWS_ENDPOINT_URL_S3 is 'localhost:9000', not the address of a server with S3's API: give its scheme, host and port/);
  });
  await assert.rejects(openCheckpointStore('s3://Bad_Bucket', '0123456789ab'), /^ClusterError: the checkpoint store s3:\/\/Bad_Bucket is not one kmc knows: 'Bad_Bucket' is not a name S3 gives a bucket/);
});

test('the endpoint from AWS_ENDPOINT_URL when AWS_ENDPOINT_URL_S3 is unset, and a region when none is configured', { timeout: 60_000 }, async () => {
  await withEnv({ AWS_ENDPOINT_URL_S3: undefined, AWS_ENDPOINT_URL: s3.endpoint, AWS_REGION: undefined, AWS_DEFAULT_REGION: undefined, AWS_CONFIG_FILE: '/nonexistent' }, async () => {
    const store = await openCheckpointStore(`s3://${BUCKET}/env`, '0123456789ab');
    try {
      await store.check();
      await store.put('commit', new Uint8Array([7]));
      assert.deepEqual(await store.get('commit'), new Uint8Array([7]));
      await store.destroy();
    } finally {
      store.close();
    }
  });
});
