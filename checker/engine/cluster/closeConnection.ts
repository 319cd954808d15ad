import type { NatsConnection } from 'nats';

/**
 * Drains a connection, then closes it. A drain while the server is away resolves without closing the
 * connection, and the client then tries to reconnect for ever (subjects.ts RECONNECT): a driver or worker
 * that had printed its error went on running.
 */
export async function closeConnection(nc: NatsConnection): Promise<void> {
  if (!nc.isClosed()) await nc.drain().catch(() => {});
  if (!nc.isClosed()) await nc.close().catch(() => {});
}
