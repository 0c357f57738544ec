import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  AGENT_TEMPLATES,
  ZAgentIdParams,
  ZAgentQuery,
  ZRunAgent,
  ZRunsQuery,
} from '../../../contracts/agents.ts';
import { AGENT_OWNER_ROLE } from '../../../contracts/constants.ts';
import { parseInput } from '../../lib/validate.ts';
import type { AgentsService, Caller } from './agents.service.ts';

/** The session's user (the admin guard has run) with the googleIds the request carried. */
const caller = (request: FastifyRequest, ...googleIds: Array<string | undefined>): Caller => ({ user: request.user!, googleIds });

export async function agentsRoutes(app: FastifyInstance, { agents }: { agents: AgentsService }): Promise<void> {
  // Agents are one user's private data: no shared cache may keep them.
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
  });

  app.get('/api/agent-templates', { config: { access: 'signedIn' } }, async () => AGENT_TEMPLATES);

  // SPEC: the agents console is admin-only (AGENT_OWNER_ROLE); every agent is further scoped to its owner.
  app.get('/api/agents', { config: { access: AGENT_OWNER_ROLE } }, async (request, reply) => {
    const query = parseInput(ZAgentQuery, request.query);
    return reply.type('application/json; charset=utf-8').send(await agents.listJson(caller(request, query.googleId)));
  });

  app.get('/api/agents/:id', { config: { access: AGENT_OWNER_ROLE } }, async (request) => {
    const { id } = parseInput(ZAgentIdParams, request.params);
    const query = parseInput(ZAgentQuery, request.query);
    return agents.get(caller(request, query.googleId), id);
  });

  app.get('/api/agents/:id/runs', { config: { access: AGENT_OWNER_ROLE } }, async (request) => {
    const { id } = parseInput(ZAgentIdParams, request.params);
    const { googleId, limit } = parseInput(ZRunsQuery, request.query);
    return agents.runs(caller(request, googleId), id, limit);
  });

  app.post('/api/agents', { config: { access: AGENT_OWNER_ROLE } }, async (request, reply) => {
    const query = parseInput(ZAgentQuery, request.query);
    // The body is checked whole by the service: its shape, its template and the owner's channels at once.
    return reply.status(201).send(await agents.create(caller(request, query.googleId), request.body));
  });

  app.patch('/api/agents/:id', { config: { access: AGENT_OWNER_ROLE } }, async (request) => {
    const { id } = parseInput(ZAgentIdParams, request.params);
    const query = parseInput(ZAgentQuery, request.query);
    return agents.update(caller(request, query.googleId), id, request.body);
  });

  app.delete('/api/agents/:id', { config: { access: AGENT_OWNER_ROLE } }, async (request, reply) => {
    const { id } = parseInput(ZAgentIdParams, request.params);
    const query = parseInput(ZAgentQuery, request.query);
    await agents.remove(caller(request, query.googleId), id);
    return reply.status(204).send();
  });

  app.post('/api/agents/:id/run', { config: { access: AGENT_OWNER_ROLE } }, async (request, reply) => {
    const { id } = parseInput(ZAgentIdParams, request.params);
    const query = parseInput(ZAgentQuery, request.query);
    const body = parseInput(ZRunAgent, request.body ?? {});
    return reply.status(202).send(await agents.runNow(caller(request, query.googleId, body.googleId), id));
  });
}
