import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger as Logger } from 'fastify';
import { OWNER_CHANGE_NOTICES, type Database } from '../../db/client.ts';
import type { InvalidationTopic, Invalidations, Sent } from '../../lib/invalidations.ts';
import { EVENTS_CHANNEL, type ChannelMessage } from './event-publisher.ts';
import { listen, type Listener } from './pg-listener.ts';

/**
 * Strict across processes (docs/decisions/0049): every process NOTIFYs a heartbeat from its
 * LISTEN connection each HEARTBEAT_MS and trusts its caches only while the echo of one sent in
 * the last TRUSTED_FOR_MS has come back. PostgreSQL delivers notifications to each listener in
 * commit order, so such an echo proves every invalidation committed before that heartbeat was
 * applied here. A writer answers once every process heard from lately has acknowledged its
 * invalidation, or after DELIVERY_WAIT_MS: a process that has not acknowledged by then cannot
 * have had an echo sent after the commit, so from then on it trusts no cache until it has
 * caught up (DELIVERY_WAIT_MS > TRUSTED_FOR_MS).
 */
const HEARTBEAT_MS = 500;
export const TRUSTED_FOR_MS = 1_500;
const DELIVERY_WAIT_MS = 2_000;
/** A process whose heartbeat has not been heard for this long is no longer waited for. */
const PEER_GONE_MS = 3_000;
const TOPICS: ReadonlySet<string> = new Set<InvalidationTopic>(['session', 'user', 'articles', 'agents', 'notifications']);

/** An invalidation on the channel: topic, key, and the sender's id for its echo and
 * acknowledgements (none when the database announced it: migration 0015's triggers). */
type InvalidationMessage = { c: InvalidationTopic; k: string; i?: string };
/** A process's heartbeat: its boot id and the heartbeat's number. */
type HeartbeatMessage = { h: string; n: number };
/** A process (`p`, its boot id) has applied invalidation `a`. */
type AckMessage = { a: string; p: string };

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

/** An invalidation sent here: back here yet, the processes to wait for, those that acknowledged. */
type Awaited = { back: boolean; peers: Set<string>; acked: Set<string>; resolve: () => void };

export async function createBus({ database, logger }: { database: Database; logger: Logger }): Promise<Bus> {
  const boot = randomBytes(4).toString('hex');
  let seq = 0;
  const handlers = new Map<InvalidationTopic, Array<(key: string) => void>>();
  const resetHandlers: Array<() => void> = [];
  const liveHandlers: Array<(message: ChannelMessage) => void> = [];
  const restoredHandlers: Array<() => void> = [];
  /** Sent here, not yet delivered everywhere: id -> what it waits for. */
  const awaiting = new Map<string, Awaited>();
  /** Other processes heard lately: boot id -> when (performance.now()). */
  const peers = new Map<string, number>();
  /** Own heartbeats sent, not yet echoed: number -> when sent. */
  const heartbeatsOut = new Map<number, number>();
  let heartbeatSeq = 0;
  /** When the newest own heartbeat that came back was sent (-Infinity: none yet). */
  let echoedSentAt = Number.NEGATIVE_INFINITY;

  const reset = () => {
    for (const handler of resetHandlers) handler();
  };

  function receive(payload: string): void {
    let message: InvalidationMessage | HeartbeatMessage | AckMessage | ChannelMessage;
    try {
      message = JSON.parse(payload) as InvalidationMessage | HeartbeatMessage | AckMessage | ChannelMessage;
    } catch (err) {
      logger.warn({ err }, 'bus: a notification could not be read');
      return;
    }
    if ('h' in message) {
      if (message.h !== boot) peers.set(message.h, performance.now());
      else receiveEcho(message.n);
      return;
    }
    if ('a' in message) {
      const waiting = awaiting.get(message.a);
      if (waiting) {
        waiting.acked.add(message.p);
        settle(message.a, waiting);
      }
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
      // The database's own notices (owner data) have no sender to answer.
      if (typeof message.i !== 'string') return;
      const waiting = awaiting.get(message.i);
      if (waiting) {
        // Back here: everything committed before it has been heard, so every process that was
        // heartbeating then is known. Those are the ones to wait for.
        waiting.back = true;
        const now = performance.now();
        for (const [peer, heardAt] of peers) {
          if (now - heardAt > PEER_GONE_MS) peers.delete(peer);
          else waiting.peers.add(peer);
        }
        settle(message.i, waiting);
      } else if (listener && !message.i.startsWith(`${boot}-`)) {
        void listener.send(JSON.stringify({ a: message.i, p: boot } satisfies AckMessage));
      }
      return;
    }
    if (typeof message.u === 'string' && message.e && typeof message.e.type === 'string') {
      for (const handler of liveHandlers) handler(message);
    }
  }

  function receiveEcho(n: number): void {
    const sentAt = heartbeatsOut.get(n);
    if (sentAt === undefined) return;
    for (const k of heartbeatsOut.keys()) if (k <= n) heartbeatsOut.delete(k);
    echoedSentAt = Math.max(echoedSentAt, sentAt);
  }

  /** Delivered when back here and acknowledged by every process waited for. */
  function settle(id: string, waiting: Awaited): void {
    if (!waiting.back) return;
    for (const peer of waiting.peers) if (!waiting.acked.has(peer)) return;
    awaiting.delete(id);
    waiting.resolve();
  }

  let listener: Listener | null = null;
  let unlisten: (() => Promise<void>) | null = null;
  /** PGlite with migration 0015's notices on: every owner's change is heard here at its commit. */
  let ownerChangesAnnounced = false;
  let heartbeat: NodeJS.Timeout | undefined;
  if (database.kind === 'postgres' && database.url) {
    listener = await listen(database.url, EVENTS_CHANNEL, logger, receive, () => {
      reset();
      for (const handler of restoredHandlers) handler();
    }, () => {
      echoedSentAt = Number.NEGATIVE_INFINITY;
      reset();
    });
    const beat = () => {
      const n = ++heartbeatSeq;
      heartbeatsOut.set(n, performance.now());
      // Unanswered ones are dropped after their window: they can no longer make the cache trusted.
      for (const [k, sentAt] of heartbeatsOut) if (performance.now() - sentAt > TRUSTED_FOR_MS) heartbeatsOut.delete(k);
      void listener?.send(JSON.stringify({ h: boot, n } satisfies HeartbeatMessage));
    };
    beat();
    heartbeat = setInterval(beat, HEARTBEAT_MS);
    heartbeat.unref();
  } else if (database.pglite) {
    // Delivered at the writer's commit, before its query resolves.
    unlisten = await database.pglite.listen(EVENTS_CHANNEL, receive);
    ownerChangesAnnounced = (await database.pglite.query<{ value: string | null }>(`select current_setting('${OWNER_CHANGE_NOTICES}', true) as value`)).rows[0]?.value === 'on';
    if (!ownerChangesAnnounced) logger.warn(`bus: PGlite does not announce owners' changes (${OWNER_CHANGE_NOTICES}): agents and notifications are read from the database each time`);
  }

  const invalidations: Invalidations = {
    async notify(tx, topic, key) {
      const id = `${boot}-${++seq}`;
      let arrived!: () => void;
      const back = new Promise<void>((resolve) => (arrived = resolve));
      awaiting.set(id, { back: false, peers: new Set(), acked: new Set(), resolve: arrived });
      // A rolled-back transaction never delivers: forget it after the wait's bound.
      setTimeout(() => awaiting.delete(id), DELIVERY_WAIT_MS * 2).unref();
      await tx.execute(sql`select pg_notify(${EVENTS_CHANNEL}, ${JSON.stringify({ c: topic, k: key, i: id } satisfies InvalidationMessage)})`);
      const sent: Sent = {
        async delivered() {
          let timer: NodeJS.Timeout | undefined;
          const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), DELIVERY_WAIT_MS)));
          const outcome = await Promise.race([back, late]);
          clearTimeout(timer);
          // Late: a process that has not acknowledged by now trusts no cache until it catches up.
          if (outcome === 'late') logger.warn({ topic }, 'bus: an invalidation was not acknowledged by every process in time; answering anyway');
        },
      };
      return sent;
    },
    on(topic, handler) {
      const list = handlers.get(topic) ?? [];
      list.push(handler);
      handlers.set(topic, list);
    },
    // PostgreSQL: listening, and caught up with what was committed up to TRUSTED_FOR_MS ago.
    reliable: () => (listener ? listener.listening() && performance.now() - echoedSentAt <= TRUSTED_FOR_MS : unlisten !== null),
    onReset(handler) {
      resetHandlers.push(handler);
    },
    // In-process only: on PostgreSQL the notices would reach other processes later than the
    // writer's commit, with nobody waiting for them (and the triggers are off there).
    announced: () => ownerChangesAnnounced && unlisten !== null,
  };

  return {
    invalidations,
    kind: listener ? 'postgres' : 'pglite',
    onLiveEvent: (handler) => void liveHandlers.push(handler),
    onRestored: (handler) => void restoredHandlers.push(handler),
    async close() {
      clearInterval(heartbeat);
      await listener?.close();
      await unlisten?.().catch(() => {});
      unlisten = null;
      reset();
    },
  };
}
