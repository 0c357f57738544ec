import { TOOL_LIMITS } from '../../../contracts/assistant-tools.ts';
import type { Db } from '../../db/client.ts';
import type { AgentsService } from '../agents/agents.service.ts';
import type { BacktestService } from '../backtest/backtest.service.ts';
import type { MarketData } from '../market/market-data.ts';
import type { NotificationsService } from '../notifications/notifications.service.ts';
import type { ProposalsService } from '../proposals/proposals.service.ts';
import { findUserById } from '../users/users.repo.ts';
import { getAgentTool, listAgentsTool } from './agent-reads.ts';
import { testOnHistoryTool } from './history-test.ts';
import { getMarketTool } from './market-read.ts';
import { listNotificationsTool } from './notification-reads.ts';
import { proposeAgentTool, proposeChangeTool } from './proposal-tools.ts';
import { createToolPipeline } from './pipeline.ts';
import { getRunTool, listRunsTool } from './run-reads.ts';
import type { AgentTools } from './types.ts';

export type AgentToolsDeps = {
  db: Db;
  agents: Pick<AgentsService, 'listJson' | 'get' | 'runs' | 'run'>;
  backtests: Pick<BacktestService, 'forAgent' | 'forConfig'>;
  marketData: Pick<MarketData, 'getCandles'>;
  notifications: Pick<NotificationsService, 'listJson'>;
  proposals: Pick<ProposalsService, 'record'>;
  /** get_market's reads per user per minute (Test on history's rate: each may fetch history). */
  marketReadsPerMinute: number;
  now?: () => Date;
  /** TOOL_LIMITS unless a test needs a shorter time limit or a smaller rate. */
  limits?: { toolTimeoutMs: number; callsPerMinute: number; maxResultChars: number };
};

/**
 * The assistants' tools on the user's agents (issue 31, docs/decisions/0076), built from the
 * app's own services: the chat's tool loop and the MCP server both call `run` (app.agentTools).
 */
export function createAgentTools({ db, agents, backtests, marketData, notifications, proposals, marketReadsPerMinute, now, limits = TOOL_LIMITS }: AgentToolsDeps): AgentTools {
  return createToolPipeline({
    tools: {
      list_agents: listAgentsTool(agents),
      get_agent: getAgentTool(agents),
      list_runs: listRunsTool(agents),
      get_run: getRunTool(agents),
      get_market: getMarketTool({ marketData, ratePerMinute: marketReadsPerMinute, ...(now ? { now } : {}) }),
      test_on_history: testOnHistoryTool(backtests),
      list_notifications: listNotificationsTool(notifications),
      propose_agent: proposeAgentTool({ agents, backtests, proposals }),
      propose_change: proposeChangeTool({ agents, backtests, proposals }),
    },
    // Read on every call, not from the session: a demoted admin's chat and tokens lose the tools at once.
    currentRole: async (userId) => (await findUserById(db, userId))?.role ?? null,
    ...(now ? { now } : {}),
    limits,
  });
}
