import type { FastifyInstance } from 'fastify';
import { ZProposalParams, ZProposalsQuery } from '../../../contracts/assistant-tools.ts';
import { AGENT_OWNER_ROLE } from '../../../contracts/constants.ts';
import { parseInput } from '../../lib/validate.ts';
import type { ProposalsService } from './proposals.service.ts';

/** The owner's proposals (docs/decisions/0076): read, Create paused / Apply, Discard. Admin only, as the agents are. */
export async function proposalsRoutes(app: FastifyInstance, { proposals }: { proposals: ProposalsService }): Promise<void> {
  // One user's private data: no shared cache may keep it.
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
  });

  app.get('/api/agents/proposals', { config: { access: AGENT_OWNER_ROLE } }, async (request) => {
    const { status } = parseInput(ZProposalsQuery, request.query);
    return proposals.list(request.user!.id, status);
  });

  app.get('/api/agents/proposals/:id', { config: { access: AGENT_OWNER_ROLE } }, async (request) => {
    const { id } = parseInput(ZProposalParams, request.params);
    return proposals.get(request.user!.id, id);
  });

  app.post('/api/agents/proposals/:id/apply', { config: { access: AGENT_OWNER_ROLE } }, async (request) => {
    const { id } = parseInput(ZProposalParams, request.params);
    return proposals.apply({ user: request.user!, googleIds: [] }, id);
  });

  app.post('/api/agents/proposals/:id/discard', { config: { access: AGENT_OWNER_ROLE } }, async (request) => {
    const { id } = parseInput(ZProposalParams, request.params);
    return proposals.discard(request.user!.id, id);
  });
}
