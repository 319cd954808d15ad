/** What a failure of NATS itself looks like (a timeout, no responders, a lost connection): the cluster's, not the model's. */
export function isNatsError(e: unknown): boolean {
  return e instanceof Error && e.name === 'NatsError';
}
