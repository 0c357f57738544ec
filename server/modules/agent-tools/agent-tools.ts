import type { FastifyBaseLogger as Logger } from 'fastify';
import { TOOL_LIMITS } from '../../../contracts/assistant-tools.ts';
import type { Db } from '../../db/client.ts';
import type { AgentsService } from '../agents/agents.service.ts';
import { findUserById } from '../users/users.repo.ts';
import { getAgentTool, listAgentsTool } from './agent-reads.ts';
import { createToolPipeline } from './pipeline.ts';
import type { AgentTools } from './types.ts';

export type AgentToolsDeps = {
  db: Db;
  agents: Pick<AgentsService, 'listJson' | 'get'>;
  logger: Logger;
  now?: () => Date;
  /** TOOL_LIMITS unless a test needs a shorter time limit or a smaller rate. */
  limits?: { toolTimeoutMs: number; callsPerMinute: number; maxResultChars: number };
};

/**
 * The assistants' tools on the user's agents (issue 31, docs/decisions/0076), built from the
 * app's own services: the chat's tool loop and the MCP server both call `run` (app.agentTools).
 */
export function createAgentTools({ db, agents, now, limits = TOOL_LIMITS }: AgentToolsDeps): AgentTools {
  return createToolPipeline({
    tools: {
      list_agents: listAgentsTool(agents),
      get_agent: getAgentTool(agents),
    },
    // Read on every call, not from the session: a demoted admin's chat and tokens lose the tools at once.
    currentRole: async (userId) => (await findUserById(db, userId))?.role ?? null,
    ...(now ? { now } : {}),
    limits,
  });
}
