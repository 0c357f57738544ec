import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ZAgentIdParams, ZAgentQuery } from '../../../contracts/agents.ts';
import { ZConditionParams, ZSnoozeRequest } from '../../../contracts/conditions.ts';
import { AGENT_OWNER_ROLE } from '../../../contracts/constants.ts';
import { parseInput } from '../../lib/validate.ts';
import type { Caller } from './agents.service.ts';
import type { ConditionStatesService } from './condition-states.service.ts';

const caller = (request: FastifyRequest, ...googleIds: Array<string | undefined>): Caller => ({ user: request.user!, googleIds });

/** Snooze, unsnooze, re-arm and the state of an agent's conditions (issue 30, docs/decisions/0073): the agents console's, owner only. */
export async function conditionStatesRoutes(app: FastifyInstance, { conditions }: { conditions: ConditionStatesService }): Promise<void> {
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
  });

  app.get('/api/agents/:id/conditions/state', { config: { access: AGENT_OWNER_ROLE } }, async (request) => {
    const { id } = parseInput(ZAgentIdParams, request.params);
    const query = parseInput(ZAgentQuery, request.query);
    return conditions.list(caller(request, query.googleId), id);
  });

  app.post('/api/agents/:id/conditions/:conditionId/snooze', { config: { access: AGENT_OWNER_ROLE } }, async (request) => {
    const { id, conditionId } = parseInput(ZConditionParams, request.params);
    const query = parseInput(ZAgentQuery, request.query);
    const body = parseInput(ZSnoozeRequest, request.body);
    return conditions.snooze(caller(request, query.googleId), id, conditionId, body);
  });

  app.delete('/api/agents/:id/conditions/:conditionId/snooze', { config: { access: AGENT_OWNER_ROLE } }, async (request) => {
    const { id, conditionId } = parseInput(ZConditionParams, request.params);
    const query = parseInput(ZAgentQuery, request.query);
    return conditions.unsnooze(caller(request, query.googleId), id, conditionId);
  });

  app.post('/api/agents/:id/conditions/:conditionId/rearm', { config: { access: AGENT_OWNER_ROLE } }, async (request) => {
    const { id, conditionId } = parseInput(ZConditionParams, request.params);
    const query = parseInput(ZAgentQuery, request.query);
    return conditions.rearm(caller(request, query.googleId), id, conditionId);
  });
}
