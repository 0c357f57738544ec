import type { FastifyInstance } from 'fastify';
import { HEALTH_PATHS, LIVE_ANSWER, readinessAnswer, type HealthService } from './health.service.ts';

export async function healthRoutes(app: FastifyInstance, { health }: { health: HealthService }): Promise<void> {
  app.get('/api/health', { config: { access: 'public' } }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    try {
      await health.checkDatabase();
      return { status: 'ok' };
    } catch (err) {
      request.log.error({ err }, 'health check: database unreachable');
      return reply.status(503).send({ status: 'unavailable', error: 'Service Unavailable', message: 'The database is unreachable' });
    }
  });

  // Liveness: the process answers. Nothing else is asked, so an outage of the database never
  // has an orchestrator restart processes that would only wait for it again.
  app.get(HEALTH_PATHS.live, { config: { access: 'public' } }, async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    return LIVE_ANSWER;
  });

  // Readiness: send this process traffic (database, and its workers' job queue when it runs them).
  app.get(HEALTH_PATHS.ready, { config: { access: 'public' } }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const readiness = await health.readiness();
    for (const { name, err } of readiness.failures) request.log.error({ err, check: name }, 'readiness check failed');
    const { statusCode, body } = readinessAnswer(readiness);
    return reply.status(statusCode).send(body);
  });
}
