import type { FastifyInstance } from 'fastify';
import { ZChannelIdParams, ZCreateChannel } from '../../../contracts/channels.ts';
import { AGENT_OWNER_ROLE } from '../../../contracts/constants.ts';
import { parseInput } from '../../lib/validate.ts';
import type { ChannelsService } from './channels.service.ts';

/** A user's delivery channels (docs/decisions/0043): for agent owners, each scoped to its owner. */
export async function channelsRoutes(app: FastifyInstance, { channels }: { channels: ChannelsService }): Promise<void> {
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
  });

  app.get('/api/channels', { config: { access: AGENT_OWNER_ROLE } }, async (request) => channels.list(request.user!.id));

  app.post('/api/channels', { config: { access: AGENT_OWNER_ROLE } }, async (request, reply) => {
    const input = parseInput(ZCreateChannel, request.body);
    reply.code(201);
    return channels.create(request.user!.id, input);
  });

  app.delete('/api/channels/:id', { config: { access: AGENT_OWNER_ROLE } }, async (request, reply) => {
    const { id } = parseInput(ZChannelIdParams, request.params);
    await channels.remove(request.user!.id, id);
    return reply.status(204).send();
  });

  app.post('/api/channels/:id/test', { config: { access: AGENT_OWNER_ROLE } }, async (request) => {
    const { id } = parseInput(ZChannelIdParams, request.params);
    return channels.sendTest(request.user!.id, id);
  });
}
