import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger as Logger } from 'fastify';
import type { TLiveEvent } from '../../../contracts/events.ts';
import type { Database } from '../../db/client.ts';
import { NO_EVENTS, type EventPublisher } from '../../lib/live-events.ts';

/** The one PostgreSQL channel every process publishes the live console's events on. */
export const EVENTS_CHANNEL = 'app_events';

/** What travels on the channel: the user the event is for, and the event (ids only, small). */
export type ChannelMessage = { u: string; e: TLiveEvent };

/**
 * A publisher for a process that has no consoles of its own (a `npm run worker` process): with
 * PostgreSQL, NOTIFY on the shared channel, which every web process LISTENs to; with PGlite
 * there is no other process to tell (its workers run in the web process and use its hub).
 */
export function createNotifyPublisher(database: Database, logger: Logger): EventPublisher & { flush(): Promise<void> } {
  if (database.kind !== 'postgres') return { ...NO_EVENTS, flush: async () => {} };
  const inFlight = new Set<Promise<unknown>>();
  return {
    publish(userId, event) {
      const payload = JSON.stringify({ u: userId, e: event } satisfies ChannelMessage);
      const sent = database.db
        .execute(sql`select pg_notify(${EVENTS_CHANNEL}, ${payload})`)
        .catch((err: unknown) => logger.warn({ err, type: event.type }, 'could not publish a live event'))
        .finally(() => inFlight.delete(sent));
      inFlight.add(sent);
    },
    /** Waits for the notifications in flight (before the database closes). */
    async flush() {
      await Promise.allSettled([...inFlight]);
    },
  };
}
