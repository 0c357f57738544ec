import type { FastifyInstance } from 'fastify';
import { AGENT_OWNER_ROLE } from '../../../contracts/constants.ts';
import type { TConditionDraftNotUnderstood } from '../../../contracts/condition-draft.ts';
import type { DraftService } from './draft.service.ts';

export async function conditionDraftRoutes(app: FastifyInstance, { drafts }: { drafts: DraftService }): Promise<void> {
  // Whoever may create agents may draft their conditions (docs/decisions/0075); nothing is saved.
  app.post('/api/agents/conditions/draft', { config: { access: AGENT_OWNER_ROLE } }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const outcome = await drafts.draft(request.user!, request.body, request.log);
    if (outcome.ok) return outcome.draft;
    const body: TConditionDraftNotUnderstood = { error: 'Not understood', message: outcome.message, notUnderstood: outcome.notUnderstood };
    return reply.status(422).send(body);
  });
}
