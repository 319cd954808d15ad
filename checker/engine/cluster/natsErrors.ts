/** What a failure of NATS itself looks like (a timeout, no responders, a lost connection): the cluster's, not the model's. */
export function isNatsError(e: unknown): boolean {
  return e instanceof Error && e.name === 'NatsError';
}

/** How long a stream just made may be unknown to the server asked about it next, and the pause between tries. */
const NEW_STREAM_MS = 5000;
const NEW_STREAM_PAUSE_MS = 100;

/**
 * `step` on a stream just made, tried again while the server answers that there is no such stream. On a
 * cluster of servers, a stream is made by the meta leader and placed on one of them: the server a
 * consumer or a bucket is asked of next may not know of it yet for a moment.
 */
export async function onNewStream<T>(step: () => Promise<T>): Promise<T> {
  const until = Date.now() + NEW_STREAM_MS;
  for (;;) {
    try {
      return await step();
    } catch (e) {
      if (!isStreamNotFound(e) || Date.now() >= until) throw e;
      await new Promise((resolve) => setTimeout(resolve, NEW_STREAM_PAUSE_MS));
    }
  }
}

function isStreamNotFound(e: unknown): boolean {
  const api = (e as { api_error?: { err_code?: number } }).api_error;
  return api?.err_code === 10059 || (e instanceof Error && /stream not found/i.test(e.message));
}
