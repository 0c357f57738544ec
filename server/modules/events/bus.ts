import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger as Logger } from 'fastify';
import type { Database } from '../../db/client.ts';
import type { InvalidationTopic, Invalidations, Sent } from '../../lib/invalidations.ts';
import { EVENTS_CHANNEL, type ChannelMessage } from './event-publisher.ts';
import { listen, type Listener } from './pg-listener.ts';

/** How long a writer waits for its own invalidation to come back before answering anyway. */
const DELIVERY_WAIT_MS = 2_000;
const TOPICS: ReadonlySet<string> = new Set<InvalidationTopic>(['session', 'user', 'articles']);

/** An invalidation on the channel: topic, key, and the sender's id for its echo. */
type InvalidationMessage = { c: InvalidationTopic; k: string; i: string };

/**
 * The process's one bus on the database (DESIGN 11): with PostgreSQL, one LISTEN connection on
 * the shared channel carries the live console's events (to the event hub) and the caches'
 * invalidations; with PGlite, invalidations go through the instance's own LISTEN, in-process,
 * and live events never touch it (the hub delivers them directly).
 */
export type Bus = {
  invalidations: Invalidations;
  /** PostgreSQL: each live event received (the hub delivers it to this process's streams). */
  onLiveEvent(handler: (message: ChannelMessage) => void): void;
  /** PostgreSQL: the connection listens again after a drop (events sent meanwhile are lost). */
  onRestored(handler: () => void): void;
  /** Whether events published through NOTIFY come back here (PostgreSQL and listening). */
  readonly kind: 'postgres' | 'pglite';
  close(): Promise<void>;
};

export async function createBus({ database, logger }: { database: Database; logger: Logger }): Promise<Bus> {
  const boot = randomBytes(4).toString('hex');
  let seq = 0;
  const handlers = new Map<InvalidationTopic, Array<(key: string) => void>>();
  const resetHandlers: Array<() => void> = [];
  const liveHandlers: Array<(message: ChannelMessage) => void> = [];
  const restoredHandlers: Array<() => void> = [];
  /** Sent here, not yet received back: id -> resolve. */
  const awaiting = new Map<string, () => void>();

  const reset = () => {
    for (const handler of resetHandlers) handler();
  };

  function receive(payload: string): void {
    let message: InvalidationMessage | ChannelMessage;
    try {
      message = JSON.parse(payload) as InvalidationMessage | ChannelMessage;
    } catch (err) {
      logger.warn({ err }, 'bus: a notification could not be read');
      return;
    }
    if ('c' in message) {
      if (typeof message.k !== 'string' || !TOPICS.has(message.c)) return;
      for (const handler of handlers.get(message.c) ?? []) {
        try {
          handler(message.k);
        } catch (err) {
          logger.error({ err, topic: message.c }, 'bus: an invalidation handler failed');
        }
      }
      const resolve = awaiting.get(message.i);
      if (resolve) {
        awaiting.delete(message.i);
        resolve();
      }
      return;
    }
    if (typeof message.u === 'string' && message.e && typeof message.e.type === 'string') {
      for (const handler of liveHandlers) handler(message);
    }
  }

  let listener: Listener | null = null;
  let unlisten: (() => Promise<void>) | null = null;
  if (database.kind === 'postgres' && database.url) {
    listener = await listen(database.url, EVENTS_CHANNEL, logger, receive, () => {
      reset();
      for (const handler of restoredHandlers) handler();
    }, reset);
  } else if (database.pglite) {
    // Delivered at the writer's commit, before its query resolves.
    unlisten = await database.pglite.listen(EVENTS_CHANNEL, receive);
  }

  const invalidations: Invalidations = {
    async notify(tx, topic, key) {
      const id = `${boot}-${++seq}`;
      let arrived!: () => void;
      const back = new Promise<void>((resolve) => (arrived = resolve));
      awaiting.set(id, arrived);
      // A rolled-back transaction never delivers: forget it after the wait's bound.
      setTimeout(() => awaiting.delete(id), DELIVERY_WAIT_MS * 2).unref();
      await tx.execute(sql`select pg_notify(${EVENTS_CHANNEL}, ${JSON.stringify({ c: topic, k: key, i: id } satisfies InvalidationMessage)})`);
      const sent: Sent = {
        async delivered() {
          let timer: NodeJS.Timeout | undefined;
          const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), DELIVERY_WAIT_MS)));
          const outcome = await Promise.race([back, late]);
          clearTimeout(timer);
          if (outcome === 'late') logger.warn({ topic }, 'bus: an invalidation did not come back in time; answering anyway');
        },
      };
      return sent;
    },
    on(topic, handler) {
      const list = handlers.get(topic) ?? [];
      list.push(handler);
      handlers.set(topic, list);
    },
    reliable: () => (listener ? listener.listening() : unlisten !== null),
    onReset(handler) {
      resetHandlers.push(handler);
    },
  };

  return {
    invalidations,
    kind: listener ? 'postgres' : 'pglite',
    onLiveEvent: (handler) => void liveHandlers.push(handler),
    onRestored: (handler) => void restoredHandlers.push(handler),
    async close() {
      await listener?.close();
      await unlisten?.().catch(() => {});
      unlisten = null;
      reset();
    },
  };
}
