import type { FastifyBaseLogger as Logger, FastifyReply, FastifyRequest } from 'fastify';
import { canOwnAgents } from '../../../contracts/constants.ts';
import { RESET_EVENT, type TLiveEvent } from '../../../contracts/events.ts';
import type { EventsConfig } from '../../config.ts';
import { AppError } from '../../lib/errors.ts';
import { openStream } from '../../lib/http/stream.ts';
import type { AuthService } from '../auth/auth.service.ts';
import type { EventHub } from './event-hub.ts';
import { watchEventStreams } from '../../lib/telemetry/metrics.ts';

/** A comment line this often keeps proxies and the idle timeout (IDLE_TIMEOUT_MS) from closing a quiet stream. */
export const HEARTBEAT_MS = 25_000;
/** How long the browser waits before reconnecting (the SSE `retry` field). */
const RETRY_MS = 2_000;
/** A client this far behind (it stopped reading) is dropped; it resumes from its Last-Event-ID. */
const MAX_BUFFERED_BYTES = 64 * 1024;
const TOO_MANY = 'Too many live connections are open for this account: close some tabs.';

type OpenStream = { userId: string; tokenHash: string; write(text: string): void; end(): void };

export type EventStreams = {
  /** Answers GET /api/events: the signed-in owner's events, resuming after `Last-Event-ID`. */
  open(request: FastifyRequest, reply: FastifyReply): void;
  /** Ends every stream (the app is closing; browsers reconnect to another process). */
  closeAll(): void;
  readonly size: number;
};

const frame = (id: string, event: string, data: unknown) => `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * The process's open event streams (docs/decisions/0042): a cap per user, one heartbeat and
 * one session check for all of them (not a timer each), closed at sign-out, when the session
 * expires or the role is gone, after EVENT_STREAM_MAX_MS, and when the app closes.
 */
export function createEventStreams({ hub, auth, config, logger }: { hub: EventHub; auth: AuthService; config: EventsConfig; logger: Logger }): EventStreams {
  const streams = new Set<OpenStream>();
  const perUser = new Map<string, number>();
  const unwatch = watchEventStreams(() => streams.size);

  const heartbeat = setInterval(() => {
    for (const s of streams) s.write(': ping\n\n');
  }, HEARTBEAT_MS);
  heartbeat.unref();

  let checking = false;
  const check = setInterval(() => {
    if (checking || streams.size === 0) return;
    checking = true;
    const open = [...streams];
    auth
      .checkSessions([...new Set(open.map((s) => s.tokenHash))])
      .then((live) => {
        for (const s of open) {
          const user = live.get(s.tokenHash);
          if (!user || user.id !== s.userId || !canOwnAgents(user.role)) s.end();
        }
      })
      .catch((err: unknown) => logger.warn({ err }, 'live events: could not check the sessions of open streams'))
      .finally(() => {
        checking = false;
      });
  }, config.sessionCheckMs);
  check.unref();

  // Signed out in this process: its streams end now (in another process, at the next check).
  auth.onSessionEnd((tokenHash) => {
    for (const s of streams) if (s.tokenHash === tokenHash) s.end();
  });

  function open(request: FastifyRequest, reply: FastifyReply): void {
    const user = request.user!;
    const tokenHash = request.sessionTokenHash!;
    const count = perUser.get(user.id) ?? 0;
    if (count >= config.perUser) throw new AppError('RATE_LIMITED', TOO_MANY, undefined, { retryAfterSeconds: 30 });
    perUser.set(user.id, count + 1);

    const raw = reply.raw;
    const out = openStream(reply, 'text/event-stream; charset=utf-8');
    const write = (text: string) => {
      if (raw.writableLength > MAX_BUFFERED_BYTES) return void raw.destroy();
      void out.write(text);
    };
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      out.end();
    };
    const stream: OpenStream = { userId: user.id, tokenHash, write, end };
    streams.add(stream);

    // Replay and subscription in one turn: no event can fall between them.
    const lastId = request.headers['last-event-id'];
    const missed = typeof lastId === 'string' && lastId !== '' ? hub.since(user.id, lastId) : [];
    write(`retry: ${RETRY_MS}\n\n`);
    if (missed === 'reset') write(frame(hub.currentId(), RESET_EVENT, {}));
    else for (const { id, event } of missed) write(frame(id, event.type, event));
    const unsubscribe = hub.subscribe(
      user.id,
      (id: string, event: TLiveEvent) => write(frame(id, event.type, event)),
      () => write(frame(hub.currentId(), RESET_EVENT, {})),
    );
    const lifetime = setTimeout(end, config.maxStreamMs);
    lifetime.unref();

    raw.once('close', () => {
      ended = true;
      clearTimeout(lifetime);
      unsubscribe();
      streams.delete(stream);
      const left = (perUser.get(user.id) ?? 1) - 1;
      if (left > 0) perUser.set(user.id, left);
      else perUser.delete(user.id);
    });
  }

  return {
    open,
    closeAll() {
      unwatch();
      clearInterval(heartbeat);
      clearInterval(check);
      for (const s of streams) s.end();
    },
    get size() {
      return streams.size;
    },
  };
}
