import type { FastifyBaseLogger as Logger } from 'fastify';
import pg from 'pg';

const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 30_000;

/** The LISTEN connections' application_name, so tests and operators can find them in pg_stat_activity. */
export const LISTENER_APPLICATION_NAME = 'app-events-listener';

export type Listener = {
  /** True while LISTENing: a notification sent now will arrive. */
  listening(): boolean;
  /**
   * NOTIFYs `payload` on the channel from the listening connection itself, so it never waits
   * for a pooled connection (heartbeats and acknowledgements must not queue behind requests).
   * Resolves false when not listening or the send failed (the drop handling reconnects).
   */
  send(payload: string): Promise<boolean>;
  close(): Promise<void>;
};

/**
 * One dedicated connection per process LISTENing on `channel` (a pooled connection would lose
 * the LISTEN when returned). When it drops, it reconnects with backoff; notifications sent
 * meanwhile are lost, so `onRestored` runs once it listens again (the hub tells every stream to
 * refetch). Resolves after the first attempt, listening or not: a database that is down at
 * start is retried in the background like a later drop.
 */
export async function listen(
  url: string,
  channel: string,
  logger: Logger,
  onMessage: (payload: string) => void,
  onRestored: () => void,
  /** Runs as soon as the connection is known lost (caches stop serving until onRestored). */
  onDropped: () => void = () => {},
): Promise<Listener> {
  let client: pg.Client | null = null;
  let up = false;
  let closed = false;
  /** Set by a failed attempt or a drop: once listening again, streams must refetch. */
  let missed = false;
  let retryMs = FIRST_RETRY_MS;
  let timer: NodeJS.Timeout | undefined;

  const retry = () => {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      void connect();
    }, retryMs);
    timer.unref();
    retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
  };

  async function connect(): Promise<void> {
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000, keepAlive: true, application_name: LISTENER_APPLICATION_NAME });
    client = c;
    let lost = false;
    const drop = (err?: unknown) => {
      if (lost) return;
      lost = true;
      if (client === c) client = null;
      missed = true;
      if (up) {
        up = false;
        onDropped();
      }
      c.end().catch(() => {});
      if (closed) return;
      logger.warn({ err }, 'live events: the LISTEN connection dropped; reconnecting');
      retry();
    };
    c.on('error', drop);
    c.on('end', () => drop());
    c.on('notification', (message) => {
      if (message.channel === channel && message.payload) onMessage(message.payload);
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${channel}`);
    } catch (err) {
      drop(err);
      return;
    }
    if (closed) {
      await c.end().catch(() => {});
      return;
    }
    retryMs = FIRST_RETRY_MS;
    up = true;
    if (missed) {
      missed = false;
      logger.info('live events: listening again');
      onRestored();
    }
  }

  await connect();
  // A first attempt that failed counts as a drop: nothing was heard until it listens.
  if (!up) onDropped();
  return {
    listening: () => up && !closed,
    async send(payload) {
      const c = client;
      if (!up || closed || !c) return false;
      try {
        await c.query('select pg_notify($1, $2)', [channel, payload]);
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      closed = true;
      up = false;
      clearTimeout(timer);
      const c = client;
      client = null;
      await c?.end().catch(() => {});
    },
  };
}
