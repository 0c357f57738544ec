import type { FastifyInstance } from 'fastify';
import { ZUpdateSettings } from '../../../contracts/settings.ts';
import { parseInput } from '../../lib/validate.ts';
import type { SettingsService } from './settings.service.ts';

export async function settingsRoutes(app: FastifyInstance, { settings }: { settings: SettingsService }): Promise<void> {
  // A user's own account data: no shared cache may keep it.
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
  });

  app.get('/api/settings', { config: { access: 'signedIn' } }, async (request) => settings.get(request.user!.id));

  app.put('/api/settings', { config: { access: 'signedIn' } }, async (request) => {
    const input = parseInput(ZUpdateSettings, request.body);
    return settings.update(request.user!.id, input);
  });
}
