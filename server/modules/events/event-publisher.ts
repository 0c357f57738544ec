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
 * Events published in the same turn of the event loop go in one statement, so a batch of runs
 * finishing together costs one round trip, not two per run; statements are sent one after the
 * other, so the events leave in the order they were published.
 */
export function createNotifyPublisher(database: Database, logger: Logger): EventPublisher & { flush(): Promise<void> } {
  if (database.kind !== 'postgres') return { ...NO_EVENTS, flush: async () => {} };
  let pending: string[] = [];
  let scheduled: NodeJS.Immediate | null = null;
  // The statements in flight, chained: each starts once the one before has finished.
  let sending: Promise<unknown> = Promise.resolve();

  function send(): void {
    scheduled = null;
    const payloads = pending;
    pending = [];
    for (let i = 0; i < payloads.length; i += NOTIFY_BATCH) {
      const chunk = payloads.slice(i, i + NOTIFY_BATCH);
      sending = sending.then(() =>
        database.db
          .execute(sql`select pg_notify(${EVENTS_CHANNEL}, p) from jsonb_array_elements_text(${JSON.stringify(chunk)}::jsonb) with ordinality as e(p, n) order by n`)
          .catch((err: unknown) => logger.warn({ err, events: chunk.length }, 'could not publish live events')),
      );
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
      await sending;
    },
  };
}
