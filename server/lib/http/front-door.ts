import { createServer, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyServerFactory } from 'fastify';
import { requestForLog } from './request-log.ts';

/** The levels at which info lines are written. */
const LOGS_INFO = new Set(['trace', 'debug', 'info']);

/** Answers a request whole and returns true, or returns false and leaves it untouched. */
export type FrontAnswer = (request: IncomingMessage, response: ServerResponse) => boolean;

/**
 * The process's HTTP server, with a door in front of Fastify (docs/decisions/0057): a request
 * the `answer` set with `use` can answer whole (a public read kept in memory) is answered before
 * Fastify builds its request, reply and logger for it; every other request, and every request
 * once closing has begun (Fastify answers those 503), goes to Fastify as it would have.
 * `app.inject()` calls Fastify's handler directly and so never meets the door. An answered request
 * is logged at info, one line, as the requests Fastify answers are (request-log.ts).
 */
export function createFrontDoor(log: FastifyBaseLogger): { serverFactory: FastifyServerFactory; use(answer: FrontAnswer): void; close(): void } {
  let answer: FrontAnswer | null = null;
  let closing = false;

  const serverFactory: FastifyServerFactory = (handler, options) => {
    const server: Server = createServer((options.http ?? {}) as ServerOptions, (request, response) => {
      if (answer !== null && !closing && answeredSafely(answer, request, response)) {
        if (LOGS_INFO.has(log.level)) {
          log.info({ req: requestForLog(request), res: { statusCode: response.statusCode } }, 'request answered from memory');
        }
        return;
      }
      handler(request, response);
    });
    // What Fastify does to the server it makes itself (lib/server.js); it skips this for ours.
    const { keepAliveTimeout, requestTimeout, connectionTimeout, maxRequestsPerSocket } = options;
    if (typeof keepAliveTimeout === 'number') server.keepAliveTimeout = keepAliveTimeout;
    if (typeof requestTimeout === 'number') server.requestTimeout = requestTimeout;
    if (typeof connectionTimeout === 'number') server.setTimeout(connectionTimeout);
    if (typeof maxRequestsPerSocket === 'number' && maxRequestsPerSocket > 0) server.maxRequestsPerSocket = maxRequestsPerSocket;
    return server;
  };

  /** An answer that throws must not take the process down: before anything was sent Fastify
   * answers instead; after, the connection is cut (the client sees a broken answer, not a wrong one). */
  function answeredSafely(front: FrontAnswer, request: IncomingMessage, response: ServerResponse): boolean {
    try {
      return front(request, response);
    } catch (err) {
      log.error({ err, url: request.url }, 'answering from memory failed');
      if (!response.headersSent) return false;
      response.destroy();
      return true;
    }
  }

  return {
    serverFactory,
    use(next) {
      answer = next;
    },
    close() {
      closing = true;
    },
  };
}
