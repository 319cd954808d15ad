import { test } from 'node:test';
import assert from 'node:assert/strict';
import { onNewStream } from './natsErrors.ts';

/** An error as the NATS client gives a JetStream API error. */
function apiError(message: string, errCode: number): Error {
  return Object.assign(new Error(message), { name: 'NatsError', code: '404', api_error: { code: 404, err_code: errCode, description: message } });
}

test('a step on a stream just made is tried again while the server does not know the stream yet, and any other error ends it at once', async () => {
  let tries = 0;
  const made = await onNewStream(async () => {
    if (++tries < 3) throw apiError('stream not found', 10059);
    return 'consumer';
  });
  assert.deepEqual([made, tries], ['consumer', 3]);

  let others = 0;
  await assert.rejects(
    onNewStream(async () => {
      others++;
      throw apiError('consumer name already in use', 10013);
    }),
    /consumer name already in use/,
  );
  assert.equal(others, 1);
});
