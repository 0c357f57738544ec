import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger as Logger } from 'fastify';
import type { TLiveEvent } from '../../../contracts/events.ts';
import type { Database } from '../../db/client.ts';
import type { EventPublisher } from '../../lib/live-events.ts';
import type { Bus } from './bus.ts';
import { createNotifyPublisher } from './event-publisher.ts';

/** The replay buffer keeps at most this many events, none older than REPLAY_MS (per process). */
export const REPLAY_MAX_EVENTS = 1_000;
export const REPLAY_MS = 5 * 60_000;

type Delivery = (id: string, event: TLiveEvent) => void;
type Entry = { seq: number; at: number; userId: string; event: TLiveEvent };

export type EventHub = EventPublisher & {
  /** Calls `deliver` with each event for the user from now on; returns the unsubscribe. */
  subscribe(userId: string, deliver: Delivery, onReset: () => void): () => void;
  /** The id of the latest event (or reset): what a `reset` carries, so the stream resumes after it. */
  currentId(): string;
  /** The user's events after `lastId`, or 'reset' when some may be gone (older than the buffer,
   * another process's id, a lost bus). */
  since(userId: string, lastId: string): Array<{ id: string; event: TLiveEvent }> | 'reset';
  close(): Promise<void>;
};

/**
 * The process's live events (docs/decisions/0042). With PostgreSQL, publishing NOTIFYs the
 * shared channel and everything delivered here comes back through this process's one LISTEN
 * connection, in one order whichever process published it; with PGlite, an in-process emitter.
 * Ids are `<process boot>-<sequence>`: increasing within a process, so a stream resumes here
 * from its Last-Event-ID, and one from another process (or before a restart) means 'reset'.
 */
export function createEventHub({ database, bus, logger, now = () => Date.now() }: { database: Database; bus: Bus; logger: Logger; now?: () => number }): EventHub {
  const boot = randomBytes(4).toString('hex');
  let seq = 0;
  /** Every sequence up to this one may be gone from the buffer. */
  let forgottenUpTo = 0;
  const buffer: Entry[] = [];
  const subscribers = new Map<string, Set<{ deliver: Delivery; onReset: () => void }>>();

  const prune = () => {
    const oldest = now() - REPLAY_MS;
    let drop = 0;
    while (drop < buffer.length && (buffer.length - drop > REPLAY_MAX_EVENTS || buffer[drop]!.at < oldest)) drop++;
    if (drop === 0) return;
    forgottenUpTo = buffer[drop - 1]!.seq;
    buffer.splice(0, drop);
  };

  function deliver(userId: string, event: TLiveEvent): void {
    const entry = { seq: ++seq, at: now(), userId, event };
    buffer.push(entry);
    prune();
    const id = `${boot}-${entry.seq}`;
    for (const s of subscribers.get(userId) ?? []) {
      // Delivery runs in the producer's call (PGlite): one broken stream must not fail it.
      try {
        s.deliver(id, event);
      } catch (err) {
        logger.warn({ err }, 'live events: could not write to a stream');
      }
    }
  }

  /** Events were lost (the LISTEN connection was down): nothing before now can be resumed. */
  function resetAll(): void {
    buffer.length = 0;
    // A sequence of its own: a stream that got this reset (its id) resumes after it.
    forgottenUpTo = ++seq;
    for (const set of subscribers.values()) for (const s of set) s.onReset();
  }

  // With PostgreSQL every event comes back through the process's one LISTEN connection.
  const viaChannel = bus.kind === 'postgres';
  const notify = createNotifyPublisher(database, logger);
  if (viaChannel) {
    bus.onLiveEvent((message) => deliver(message.u, message.e));
    bus.onRestored(resetAll);
  }

  return {
    publish(userId, event) {
      if (viaChannel) notify.publish(userId, event);
      else deliver(userId, event);
    },
    currentId: () => `${boot}-${seq}`,
    subscribe(userId, onEvent, onReset) {
      const entry = { deliver: onEvent, onReset };
      let set = subscribers.get(userId);
      if (!set) subscribers.set(userId, (set = new Set()));
      set.add(entry);
      return () => {
        set.delete(entry);
        if (set.size === 0 && subscribers.get(userId) === set) subscribers.delete(userId);
      };
    },
    since(userId, lastId) {
      const match = /^([0-9a-f]+)-(\d{1,15})$/.exec(lastId);
      if (!match || match[1] !== boot) return 'reset';
      const after = Number(match[2]);
      prune();
      if (after > seq || after < forgottenUpTo) return 'reset';
      return buffer.filter((e) => e.seq > after && e.userId === userId).map((e) => ({ id: `${boot}-${e.seq}`, event: e.event }));
    },
    async close() {
      await notify.flush();
    },
  };
}
