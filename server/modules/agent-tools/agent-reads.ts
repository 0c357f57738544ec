import { configLines, configLineText, scheduleText } from '../../../contracts/agent-config-text.ts';
import { AGENT_TEMPLATES, findTemplate, type TAgent } from '../../../contracts/agents.ts';
import type { AgentsService } from '../agents/agents.service.ts';
import { count, shortId, type Tool } from './tool-kit.ts';

/**
 * list_agents and get_agent: the caller's agents through the agents service, as the console
 * reads them (another user's agent is 'Agent not found', as a missing one).
 */

type Agents = Pick<AgentsService, 'listJson' | 'get'>;

const templateName = (id: string) => findTemplate(id)?.name ?? id;

/** An agent in a line of the list: what the console's card shows. */
const listed = (agent: TAgent) => ({
  id: agent.id,
  name: agent.name,
  template: templateName(agent.templateId),
  templateId: agent.templateId,
  status: agent.status,
  health: agent.health,
  schedule: scheduleText(agent.config.schedule),
  nextRunAt: agent.nextRunAt,
  lastRunAt: agent.lastRun,
  performance: agent.performance,
});

export function listAgentsTool(agents: Agents): Tool<'list_agents'> {
  return {
    argsText: () => 'All your agents',
    async run(_args, { owner }) {
      const list = JSON.parse(await agents.listJson(owner)) as TAgent[];
      const failing = list.filter((a) => a.health.state === 'failing').length;
      const templates = AGENT_TEMPLATES.map((t) => ({ id: t.id, name: t.name, type: t.type, description: t.description }));
      return {
        data: { agents: list.map(listed), templates },
        summary: failing > 0 ? `${count(list.length, 'agent')}, ${failing} failing` : count(list.length, 'agent'),
      };
    },
  };
}

export function getAgentTool(agents: Agents): Tool<'get_agent'> {
  return {
    argsText: ({ agentId }) => `Agent ${shortId(agentId)}`,
    async run({ agentId }, { owner }) {
      const agent = await agents.get(owner, agentId);
      const lines = configLines(agent.templateId, agent.config);
      return {
        data: { ...listed(agent), configuration: lines.map(configLineText), config: agent.config },
        summary: `${agent.name}: ${templateName(agent.templateId)}, ${agent.status}, ${count(lines.length, 'setting')}`,
        argsText: `“${agent.name}”`,
      };
    },
  };
}
