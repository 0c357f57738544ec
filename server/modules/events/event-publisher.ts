import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger as Logger } from 'fastify';
import type { TLiveEvent } from '../../../contracts/events.ts';
import type { Database } from '../../db/client.ts';
import { NO_EVENTS, type EventPublisher } from '../../lib/live-events.ts';

/** The one PostgreSQL channel every process publishes the live console's events on. */
export const EVENTS_CHANNEL = 'app_events';

/** What travels on the channel: the user the event is for, and the event (ids only, small). */
export type ChannelMessage = { u: string; e: TLiveEvent };

/** Events sent in one statement at most: a batch of runs finishes hundreds at once. */
const NOTIFY_BATCH = 500;

/**
 * A publisher for a process that has no consoles of its own (a `npm run worker` process): with
 * PostgreSQL, NOTIFY on the shared channel, which every web process LISTENs to; with PGlite
 * there is no other process to tell (its workers run in the web process and use its hub).
 * Events published in the same turn of the event loop go in one statement (in order), so a
 * batch of runs finishing together costs one round trip, not two per run.
 */
export function createNotifyPublisher(database: Database, logger: Logger): EventPublisher & { flush(): Promise<void> } {
  if (database.kind !== 'postgres') return { ...NO_EVENTS, flush: async () => {} };
  const inFlight = new Set<Promise<unknown>>();
  let pending: string[] = [];
  let scheduled: NodeJS.Immediate | null = null;

  function send(): void {
    scheduled = null;
    const payloads = pending;
    pending = [];
    for (let i = 0; i < payloads.length; i += NOTIFY_BATCH) {
      const chunk = payloads.slice(i, i + NOTIFY_BATCH);
      const sent = database.db
        .execute(sql`select pg_notify(${EVENTS_CHANNEL}, p) from jsonb_array_elements_text(${JSON.stringify(chunk)}::jsonb) with ordinality as e(p, n) order by n`)
        .catch((err: unknown) => logger.warn({ err, events: chunk.length }, 'could not publish live events'))
        .finally(() => inFlight.delete(sent));
      inFlight.add(sent);
    }
  }

  return {
    publish(userId, event) {
      pending.push(JSON.stringify({ u: userId, e: event } satisfies ChannelMessage));
      scheduled ??= setImmediate(send);
    },
    /** Sends what is pending and waits for the notifications in flight (before the database closes). */
    async flush() {
      if (scheduled) {
        clearImmediate(scheduled);
        send();
      }
      await Promise.allSettled([...inFlight]);
    },
  };
}
