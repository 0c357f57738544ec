import type { FastifyInstance } from 'fastify';
import {
  ZConversationListQuery,
  ZConversationParams,
  ZCreatePreset,
  ZExportQuery,
  ZImportConversations,
  ZPresetIdParams,
  ZSaveConversation,
  ZUpdateConversation,
  ZUpdatePreset,
} from '../../../contracts/chat-history.ts';
import { parseInput } from '../../lib/validate.ts';
import type { ConversationsService } from './conversations.service.ts';

/**
 * Each user's chat history and presets (docs/decisions/0046, 0047): for anyone signed in (every
 * user may chat with some assistant), each conversation and preset scoped to its owner.
 */
export async function conversationsRoutes(app: FastifyInstance, { conversations }: { conversations: ConversationsService }): Promise<void> {
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
  });
  const access = { config: { access: 'signedIn' as const } };

  app.get('/api/chat/conversations', access, async (request) => conversations.list(request.user!.id, parseInput(ZConversationListQuery, request.query)));

  app.post('/api/chat/conversations', access, async (request, reply) => {
    const result = await conversations.save(request.user!.id, parseInput(ZSaveConversation, request.body));
    reply.code(result.created ? 201 : 200);
    return result;
  });

  app.post('/api/chat/conversations/import', access, async (request) => conversations.importMany(request.user!.id, parseInput(ZImportConversations, request.body)));

  app.get('/api/chat/conversations/:id', access, async (request) => {
    const { id } = parseInput(ZConversationParams, request.params);
    return conversations.get(request.user!.id, id);
  });

  app.patch('/api/chat/conversations/:id', access, async (request) => {
    const { id } = parseInput(ZConversationParams, request.params);
    return conversations.update(request.user!.id, id, parseInput(ZUpdateConversation, request.body));
  });

  app.delete('/api/chat/conversations/:id', access, async (request, reply) => {
    const { id } = parseInput(ZConversationParams, request.params);
    await conversations.remove(request.user!.id, id);
    return reply.status(204).send();
  });

  app.get('/api/chat/conversations/:id/export', access, async (request, reply) => {
    const { id } = parseInput(ZConversationParams, request.params);
    const { format } = parseInput(ZExportQuery, request.query);
    const file = await conversations.exportFile(request.user!.id, id, format);
    reply.header('content-type', file.contentType);
    reply.header('content-disposition', `attachment; filename="${file.fileName}"`);
    return reply.send(file.body);
  });

  app.get('/api/chat/presets', access, async (request) => conversations.presets(request.user!.id));

  app.post('/api/chat/presets', access, async (request, reply) => {
    const preset = await conversations.createPreset(request.user!.id, parseInput(ZCreatePreset, request.body));
    reply.code(201);
    return preset;
  });

  app.patch('/api/chat/presets/:id', access, async (request) => {
    const { id } = parseInput(ZPresetIdParams, request.params);
    return conversations.updatePreset(request.user!.id, id, parseInput(ZUpdatePreset, request.body));
  });

  app.delete('/api/chat/presets/:id', access, async (request, reply) => {
    const { id } = parseInput(ZPresetIdParams, request.params);
    await conversations.removePreset(request.user!.id, id);
    return reply.status(204).send();
  });
}
