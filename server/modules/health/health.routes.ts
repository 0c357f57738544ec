import type { FastifyInstance } from 'fastify';
import type { HealthService } from './health.service.ts';

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
}
