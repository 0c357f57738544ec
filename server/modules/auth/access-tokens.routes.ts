import type { FastifyInstance } from 'fastify';
import { ZAccessTokenParams, ZCreateAccessToken } from '../../../contracts/assistant-tools.ts';
import { parseInput } from '../../lib/validate.ts';
import type { AccessTokensService } from './access-tokens.service.ts';

/**
 * Settings → Access tokens (docs/decisions/0078): any signed-in user's own tokens for the MCP
 * server. What a token reaches is decided on each MCP request by its scope and the user's role
 * then, so a user who is not an admin may hold one that reaches no agent tools.
 */
export async function accessTokensRoutes(app: FastifyInstance, { accessTokens }: { accessTokens: AccessTokensService }): Promise<void> {
  // The create answer carries the secret: no shared cache may keep any of these.
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
  });

  app.get('/api/settings/access-tokens', { config: { access: 'signedIn' } }, async (request) => accessTokens.list(request.user!.id));

  app.post('/api/settings/access-tokens', { config: { access: 'signedIn' } }, async (request, reply) => {
    const input = parseInput(ZCreateAccessToken, request.body);
    reply.code(201);
    return accessTokens.create(request.user!.id, input);
  });

  app.delete('/api/settings/access-tokens/:id', { config: { access: 'signedIn' } }, async (request, reply) => {
    const { id } = parseInput(ZAccessTokenParams, request.params);
    await accessTokens.revoke(request.user!.id, id);
    return reply.status(204).send();
  });
}
