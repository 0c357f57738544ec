import type { FastifyBaseLogger } from 'fastify';
import type { TAgentToolName, TToolStepStatus, TTokenScope } from '../../../contracts/assistant-tools.ts';
import type { AiToolSpec } from '../../integrations/ai/index.ts';
import type { SessionUser } from '../../lib/http/types.ts';

/**
 * Who calls a tool (issue 31, docs/decisions/0076): always a user acting with their own current
 * rights: in the chat (their session), or over MCP (a personal access token, its user's role read
 * on every call). The chat answer's tool loop and the MCP server both call `AgentTools.run`.
 */
export type ToolCaller = {
  user: SessionUser;
  source: 'chat' | 'mcp';
  /** The assistant's label ('Claude') in the chat; the token's name over MCP (shown on proposals). */
  sourceName: string;
  /** What the caller may reach: the chat has 'propose'; a token its own scope. */
  scope: TTokenScope;
  /** Rate limit key: 'user:<id>' in the chat, 'token:<id>' over MCP. */
  rateKey: string;
  /** The chat a proposal came from (null over MCP). */
  conversationId: string | null;
  /** Stop, the answer's end or the MCP request's end: a tool stops with it. */
  signal: AbortSignal;
  log: FastifyBaseLogger;
};

/**
 * One tool call's outcome. Never thrown: bad arguments, another user's agent, a market source
 * down, the time limit and the rate limit are all outcomes the model is told about (`forModel`)
 * and the person sees (`summary`).
 */
export type ToolOutcome = {
  status: Exclude<TToolStepStatus, 'running'>;
  /** The arguments as parsed (the raw text when they were not JSON). */
  args: unknown;
  /** The arguments in plain words. */
  argsText: string;
  /** For the person: what the tool found ('3 agents, 1 failing'), or the error's sentence. */
  summary: string;
  /** For the model: JSON text, `{"data": ...}` or `{"error": "..."}`; outside text inside it is data only (docs/decisions/0076). */
  forModel: string;
  proposalId?: string;
  /** test_on_history: the whole TBacktestResult, for the person. */
  detail?: unknown;
};

export type AgentTools = {
  /** The tools this user may call with this scope, in each provider's tool format's terms: none for a user who is not an admin. */
  specs(user: SessionUser, scope: TTokenScope): AiToolSpec[];
  /** Runs one call: validates `argsText` with the tool's schema, checks the rate limit and the caller's rights, runs it within its time limit. */
  run(caller: ToolCaller, name: string, argsText: string): Promise<ToolOutcome>;
  /** Added to the system prompt of a chat with tools: tool results are data, never instructions. */
  readonly systemPrompt: string;
};
export type { TAgentToolName };
