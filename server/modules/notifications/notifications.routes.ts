import type { FastifyInstance } from 'fastify';
import { ZNotificationIdParams, ZNotificationsQuery } from '../../../contracts/notifications.ts';
import { parseInput } from '../../lib/validate.ts';
import type { NotificationsService } from './notifications.service.ts';

export async function notificationsRoutes(app: FastifyInstance, { notifications }: { notifications: NotificationsService }): Promise<void> {
  // One user's alerts: no shared cache may keep them, and the bell refetches them on every live event.
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
  });

  app.get('/api/notifications', { config: { access: 'signedIn' } }, async (request, reply) => {
    const { limit } = parseInput(ZNotificationsQuery, request.query);
    return reply.type('application/json; charset=utf-8').send(await notifications.listJson(request.user!.id, limit));
  });

  app.post('/api/notifications/read-all', { config: { access: 'signedIn' } }, async (request, reply) => {
    await notifications.markAllRead(request.user!.id);
    return reply.status(204).send();
  });

  app.post('/api/notifications/:id/read', { config: { access: 'signedIn' } }, async (request) => {
    const { id } = parseInput(ZNotificationIdParams, request.params);
    return notifications.markRead(request.user!.id, id);
  });
}
