import http from 'node:http';
import type { FastifyInstance } from 'fastify';
import { EVENTS_PATH } from '../../contracts/events.ts';
import { eventWaiter, sseParser, type SseEvent } from './sse-reader.ts';
import { TEST_ORIGIN } from './test-app.ts';

export type ReceivedEvent = SseEvent;

export type EventStreamClient = {
  status: number;
  contentType: string;
  /** Every event so far, in order. */
  events: ReceivedEvent[];
  /** Resolves with the first event (seen already or to come) that `match` accepts; fails after `timeoutMs`. */
  next(match: (e: ReceivedEvent) => boolean, timeoutMs?: number): Promise<ReceivedEvent>;
  /** Resolves when the server ends the stream. */
  closed: Promise<void>;
  close(): void;
};

/** The app listening on a free loopback port (an event stream needs a real socket, not inject()). */
export async function listenLocally(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  return `http://127.0.0.1:${address.port}`;
}

/** GET /api/events as a browser's EventSource would, parsing the stream as it arrives. */
export function openEvents(base: string, cookie: string, lastEventId?: string): Promise<EventStreamClient> {
  return openEventStream(base, EVENTS_PATH, cookie, { headers: lastEventId ? { 'last-event-id': lastEventId } : {} });
}

/** Any event stream of ours (a chat answer POSTed, or joined again with GET), parsed as it arrives. */
export function openEventStream(base: string, path: string, cookie: string, options: { method?: 'GET' | 'POST'; body?: unknown; headers?: Record<string, string> } = {}): Promise<EventStreamClient> {
  return new Promise((resolve, reject) => {
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const headers = { cookie, accept: 'text/event-stream', origin: TEST_ORIGIN, ...(body ? { 'content-type': 'application/json' } : {}), ...options.headers };
    const request = http.request(`${base}${path}`, { method: options.method ?? 'GET', headers }, (res) => {
      const events: ReceivedEvent[] = [];
      const waiter = eventWaiter(events);
      const parser = sseParser((event) => events.push(event));
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        parser.push(chunk);
        waiter.changed();
      });
      const closed = new Promise<void>((done) => res.once('close', () => done()));
      resolve({
        status: res.statusCode ?? 0,
        contentType: String(res.headers['content-type']),
        events,
        closed,
        close: () => request.destroy(),
        next: (match, timeoutMs = 10_000) => waiter.next(match, timeoutMs),
      });
      if (res.statusCode !== 200) res.resume();
    });
    request.on('error', reject);
    request.end(body);
  });
}
