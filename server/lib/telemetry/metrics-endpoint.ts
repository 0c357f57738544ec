import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenBeside, type SideListener } from '../http/side-listener.ts';
import type { FastifyBaseLogger as Logger, FastifyInstance } from 'fastify';
import { metricsText } from './metrics.ts';

export const METRICS_PATH = '/metrics';
const REQUEST_TIMEOUT_MS = 5_000;

/** METRICS_TOKEN, when set, is asked of every scrape (`Authorization: Bearer <token>`), wherever
 * the metrics are served; compared in constant time. */
export function scrapeAllowed(authorization: string | undefined, token: string | null): boolean {
  if (token === null) return true;
  const match = /^Bearer\s+(.+)$/i.exec(authorization ?? '');
  if (!match) return false;
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(match[1]!.trim()), digest(token));
}

const UNAUTHORIZED = { error: 'Unauthorized', message: 'Send the metrics token (METRICS_TOKEN) as Authorization: Bearer <token>' };

/**
 * GET /metrics on the web app, behind METRICS_TOKEN. Without a token it is not served on the
 * public port at all (a scraper uses METRICS_PORT): 404, and not the site's page for an unknown
 * path, so a misconfigured scraper says what is wrong.
 */
export function registerMetricsRoute(app: FastifyInstance, token: string | null): void {
  app.get(METRICS_PATH, { config: { access: 'public' } }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    if (token === null) return reply.status(404).send({ error: 'Not Found', message: 'Metrics are not served on this port: set METRICS_TOKEN to serve them here, or METRICS_PORT for a port of their own' });
    if (!scrapeAllowed(request.headers.authorization, token)) return reply.status(401).header('www-authenticate', 'Bearer').send(UNAUTHORIZED);
    const { contentType, body } = await metricsText();
    return reply.type(contentType).send(body);
  });
}

/** Answers GET /metrics on a plain node:http server (the worker's health port, METRICS_PORT):
 * true when the request was for it. */
export function answerMetrics(req: IncomingMessage, res: ServerResponse, token: string | null, logger: Logger): boolean {
  if ((req.url ?? '/').split('?')[0] !== METRICS_PATH) return false;
  const send = (status: number, type: string, body: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'content-length': Buffer.byteLength(body), ...headers });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    send(405, 'application/json; charset=utf-8', JSON.stringify({ error: 'Method Not Allowed' }), { allow: 'GET, HEAD' });
    return true;
  }
  if (!scrapeAllowed(req.headers.authorization, token)) {
    send(401, 'application/json; charset=utf-8', JSON.stringify(UNAUTHORIZED), { 'www-authenticate': 'Bearer' });
    return true;
  }
  metricsText()
    .then(({ contentType, body }) => send(200, contentType, body))
    .catch((err: unknown) => {
      logger.error({ err }, 'metrics could not be collected');
      send(500, 'application/json; charset=utf-8', JSON.stringify({ error: 'Internal Server Error', message: 'The metrics could not be collected; the log has the cause' }));
    });
  return true;
}

export type MetricsServer = SideListener;

/** METRICS_PORT: /metrics on a listener of its own (METRICS_HOST, loopback by default), away from
 * the public port, so a scraper reaches it and the internet does not. */
export async function startMetricsServer({ host, port, token, logger }: { host: string; port: number; token: string | null; logger: Logger }): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    if (answerMetrics(req, res, token, logger)) return;
    const body = JSON.stringify({ error: 'Not Found', message: `Ask ${METRICS_PATH}` });
    res.writeHead(404, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  return listenBeside(server, { host, port, timeoutMs: REQUEST_TIMEOUT_MS });
}
