import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenBeside, type SideListener } from '../../lib/http/side-listener.ts';
import type { FastifyBaseLogger as Logger } from 'fastify';
import { answerMetrics, METRICS_PATH } from '../../lib/telemetry/metrics-endpoint.ts';
import { HEALTH_PATHS, LIVE_ANSWER, readinessAnswer, type HealthService } from './health.service.ts';

/** Generous for a probe on the same host; a client that dawdles longer is cut off. */
const REQUEST_TIMEOUT_MS = 5_000;

export type HealthServer = SideListener;

/**
 * A worker's health without a web server (WORKER_HEALTH_PORT, docs/decisions/0045): the web
 * app's two probes, GET /api/health/live and /api/health/ready, on a port of their own, and the
 * worker's Prometheus metrics at GET /metrics (docs/decisions/0091). Plain node:http: a worker has no Fastify app, and needs none for two answers.
 */
export async function startHealthServer({
  health,
  host,
  port,
  logger,
  metricsToken = null,
}: {
  health: HealthService;
  host: string;
  port: number;
  logger: Logger;
  /** METRICS_TOKEN: asked of a scrape of /metrics when set (docs/decisions/0091). */
  metricsToken?: string | null;
}): Promise<HealthServer> {
  const send = (req: IncomingMessage, res: ServerResponse, statusCode: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(statusCode, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(text) });
    res.end(req.method === 'HEAD' ? undefined : text);
  };
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (answerMetrics(req, res, metricsToken, logger)) return;
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(req, res, 405, { error: 'Method Not Allowed' });
    if (path === HEALTH_PATHS.live) return send(req, res, 200, LIVE_ANSWER);
    if (path !== HEALTH_PATHS.ready) return send(req, res, 404, { error: 'Not Found', message: `Ask ${HEALTH_PATHS.live}, ${HEALTH_PATHS.ready} or ${METRICS_PATH}` });
    health
      .readiness()
      .then((readiness) => {
        for (const { name, err } of readiness.failures) logger.error({ err, check: name }, 'readiness check failed');
        const { statusCode, body } = readinessAnswer(readiness);
        send(req, res, statusCode, body);
      })
      .catch((err: unknown) => {
        logger.error({ err }, 'readiness could not be checked');
        send(req, res, 503, { status: 'unavailable', error: 'Service Unavailable' });
      });
  });
  return listenBeside(server, { host, port, timeoutMs: REQUEST_TIMEOUT_MS });
}
