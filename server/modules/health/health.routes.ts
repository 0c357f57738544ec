import type { FastifyInstance } from 'fastify';
import type { Database } from '../../db/client.ts';

const PING_TIMEOUT_MS = 2_000;

export async function healthRoutes(app: FastifyInstance, { database }: { database: Pick<Database, 'ping'> }): Promise<void> {
  app.get('/api/health', { config: { access: 'public' } }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    try {
      await withTimeout(database.ping(), PING_TIMEOUT_MS);
      return { status: 'ok' };
    } catch (err) {
      request.log.error({ err }, 'health check: database unreachable');
      return reply.status(503).send({ status: 'unavailable', error: 'Service Unavailable', message: 'The database is unreachable' });
    }
  });
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
