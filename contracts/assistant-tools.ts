import { z } from 'zod';
import { ZAgentConfig, ZAgentName } from './agents.ts';
import { ZBacktestCandles } from './backtest.ts';
import { ZCondition } from './conditions.ts';
import { CANDLE_TIMEFRAMES } from './market.ts';
import { ZWatchedMarket } from './watchlist.ts';

/**
 * Assistants that work with your agents (issue 31, docs/decisions/0076): the tools an assistant
 * (in the chat hub, or an outside MCP client with a personal access token) may call. Read tools
 * run with the user's own rights and write nothing; proposal tools write only a proposal that the
 * owner approves (Create paused, Apply) or discards through the same validation as the wizard and
 * the details. Every tool's arguments are checked with its schema here, on the chat path and the
 * MCP path alike.
 */

export const READ_TOOLS = ['list_agents', 'get_agent', 'list_runs', 'get_run', 'get_market', 'test_on_history', 'list_notifications'] as const;
export const PROPOSAL_TOOLS = ['propose_agent', 'propose_change'] as const;
export const AGENT_TOOLS = [...READ_TOOLS, ...PROPOSAL_TOOLS] as const;
export type TAgentToolName = (typeof AGENT_TOOLS)[number];
export const isAgentTool = (name: string): name is TAgentToolName => (AGENT_TOOLS as readonly string[]).includes(name);

// The loop's bounds and its steps are in tool-steps.ts, which the chat's contracts read without
// reading the agents' (they import this file's neighbours, not this file: no import circle).
export { MAX_TOOL_STEPS_KEPT, TOOL_LIMITS, TOOL_STEP_STATUSES, toolLimitNote, ZToolStep, type TToolStep, type TToolStepStatus } from './tool-steps.ts';


const ZAgentId = z.uuid('Agent id must be a UUID');
const ZRunId = z.number('Run id must be a number').int('Run id must be a whole number').positive('Run id must be positive');
const limit = (max: number, fallback: number) =>
  z.number('Limit must be a number').int('Limit must be a whole number').min(1, 'Limit must be at least 1').max(max, `Limit must be at most ${max}`).default(fallback);

/** Each tool's arguments. Descriptions are what the model reads (they become its JSON Schema). */
export const TOOL_ARGUMENTS = {
  list_agents: z.object({}).strict(),
  get_agent: z.object({ agentId: ZAgentId.describe('The agent’s id, from list_agents') }).strict(),
  list_runs: z
    .object({
      agentId: ZAgentId.describe('The agent’s id, from list_agents'),
      limit: limit(50, 10).describe('How many of the latest runs, newest first (1 to 50, default 10)'),
      status: z.enum(['success', 'failure'], "Status must be 'success' or 'failure'").optional().describe('Only runs that succeeded, or only runs that failed'),
    })
    .strict(),
  get_run: z.object({ agentId: ZAgentId.describe('The agent’s id'), runId: ZRunId.describe('The run’s id, from list_runs') }).strict(),
  get_market: z
    .object({
      market: ZWatchedMarket.describe('A stock ({kind: "stock", symbol: "AAPL"}) or a crypto pair on an exchange ({kind: "crypto", symbol: "BTC/USDT", exchange: "binance"})'),
      timeframe: z.enum(CANDLE_TIMEFRAMES, `Timeframe must be one of ${CANDLE_TIMEFRAMES.join(', ')}`).describe('Candle length'),
      candles: limit(200, 30).describe('How many of the latest closed candles (1 to 200, default 30)'),
      condition: ZCondition.optional().describe('A condition whose operands are evaluated on the latest closed candle'),
    })
    .strict(),
  test_on_history: z
    .object({
      agentId: ZAgentId.optional().describe('Test this agent’s saved configuration'),
      proposal: z
        .object({ templateId: z.string().min(1).max(100), config: ZAgentConfig })
        .strict()
        .optional()
        .describe('Or test a configuration not saved yet: a template and its configuration'),
      candles: ZBacktestCandles.optional().describe('Candles per market (default 500)'),
    })
    .strict()
    .refine((a) => (a.agentId === undefined) !== (a.proposal === undefined), { path: ['agentId'], message: 'Give agentId or proposal, not both' }),
  list_notifications: z.object({ limit: limit(50, 10).describe('How many of the latest alerts (1 to 50, default 10)') }).strict(),
  propose_agent: z
    .object({
      templateId: z.string().min(1).max(100).describe('The template, from list_agents’ templates'),
      name: ZAgentName.describe('The new agent’s name'),
      config: ZAgentConfig.describe('Its whole configuration: schedule, notifications, parameters, conditions, watchlist'),
      reason: z.string().trim().min(1, 'Say why').max(500, 'The reason must be at most 500 characters').describe('One sentence: why this agent, for the owner'),
    })
    .strict(),
  propose_change: z
    .object({
      agentId: ZAgentId.describe('The agent to change'),
      name: ZAgentName.optional().describe('A new name'),
      config: ZAgentConfig.optional().describe('The whole new configuration (as get_agent answers it, changed)'),
      reason: z.string().trim().min(1, 'Say why').max(500, 'The reason must be at most 500 characters').describe('One sentence: why this change, for the owner'),
    })
    .strict()
    .refine((a) => a.name !== undefined || a.config !== undefined, { path: ['config'], message: 'Propose a new name or a new configuration' }),
} as const satisfies Record<TAgentToolName, z.ZodType>;
export type TToolArguments<N extends TAgentToolName> = z.output<(typeof TOOL_ARGUMENTS)[N]>;

/** What each tool does, for the model (and for an MCP client's tool list). */
export const TOOL_DESCRIPTIONS: Record<TAgentToolName, string> = {
  list_agents: 'List the user’s agents: name, template, status, health, schedule, next run and last performance, and the templates an agent may be made from.',
  get_agent: 'One agent’s whole configuration in plain words and as JSON.',
  list_runs: 'An agent’s recorded runs, newest first: when, status, and the numbers that decided each signal, alert and condition.',
  get_run: 'One recorded run in full: per market the candles’ latest values, indicators, rules, alerts and each condition’s clauses with their values.',
  get_market: 'Latest closed candles and indicators for a market and timeframe, and optionally the values of a condition’s operands on the latest candle.',
  test_on_history: 'Test an agent, or a proposed configuration, on past candles: how often it would have fired and what followed.',
  list_notifications: 'The user’s recent alerts with their briefs and how each was delivered.',
  propose_agent: 'Propose a new agent. Nothing is created: the user sees the proposal with its test on history and may create it paused, or discard it.',
  propose_change: 'Propose a change to one of the user’s agents. Nothing is changed: the user sees the difference and may apply it, or discard it.',
};

/** How the person sees a tool's name in a step. */
export const TOOL_LABELS: Record<TAgentToolName, string> = {
  list_agents: 'Listed your agents',
  get_agent: 'Read an agent',
  list_runs: 'Read runs',
  get_run: 'Read a run',
  get_market: 'Read market data',
  test_on_history: 'Tested on history',
  list_notifications: 'Read your alerts',
  propose_agent: 'Proposed an agent',
  propose_change: 'Proposed a change',
};

// --- Proposals -----------------------------------------------------------------------------

export const PROPOSAL_STATUSES = ['pending', 'applied', 'discarded'] as const;
export type TProposalStatus = (typeof PROPOSAL_STATUSES)[number];
export const PROPOSAL_SOURCES = ['chat', 'mcp'] as const;

/** A field of a proposed change: its path in plain words, before and after. */
export type TProposalDifference = { field: string; before: string; after: string };

/** GET /api/agents/proposals (and each item of the chat's card): a proposal as its owner sees it. */
export type TProposal = {
  id: string;
  kind: 'create' | 'change';
  status: TProposalStatus;
  source: (typeof PROPOSAL_SOURCES)[number];
  /** The access token's name for an MCP proposal; the assistant's label ('Claude') for a chat's. */
  sourceName: string;
  reason: string;
  /** create: the new agent; change: the agent changed and its whole proposed state. */
  agentId: string | null;
  agentName: string;
  templateId: string;
  config: z.infer<typeof ZAgentConfig>;
  /** The configuration in plain words, a line each. */
  configText: string[];
  /** change: what differs from the agent as it is now. */
  differences: TProposalDifference[];
  /** Its test on history, run when it was proposed (null when it could not be run: `backtestError` says why). */
  backtest: unknown;
  backtestError: string | null;
  createdAt: string;
  decidedAt: string | null;
  /** The agent created (Create paused) or changed (Apply). */
  resultAgentId: string | null;
};
export const ZProposalParams = z.object({ id: z.uuid('Proposal id must be a UUID') }).strict();
export const ZProposalsQuery = z.object({ status: z.enum(PROPOSAL_STATUSES, "Status must be 'pending', 'applied' or 'discarded'").optional() }).strict();

// --- Access tokens (MCP) -------------------------------------------------------------------

export const TOKEN_SCOPES = ['read', 'propose'] as const;
export type TTokenScope = (typeof TOKEN_SCOPES)[number];
export const TOKEN_SCOPE_LABELS: Record<TTokenScope, string> = { read: 'Read only', propose: 'Read + propose' };
/** The tools each scope reaches (the user's role decides the rest on every call). */
export const TOKEN_SCOPE_TOOLS: Record<TTokenScope, readonly TAgentToolName[]> = { read: READ_TOOLS, propose: AGENT_TOOLS };
export const TOKEN_EXPIRY_DAYS = [7, 30, 90, 365] as const;
/** A token's text starts with this, so secret scanners and people recognise it. */
export const ACCESS_TOKEN_PREFIX = 'agt_';
export const ACCESS_TOKENS_PER_USER = 20;

/** POST /api/settings/access-tokens. */
export const ZCreateAccessToken = z
  .object({
    name: z.string('Name the token').trim().min(1, 'Name the token').max(60, 'The name must be at most 60 characters'),
    scope: z.enum(TOKEN_SCOPES, "Scope must be 'read' or 'propose'"),
    expiresInDays: z.union(TOKEN_EXPIRY_DAYS.map((d) => z.literal(d)) as [z.ZodLiteral<7>, z.ZodLiteral<30>, z.ZodLiteral<90>, z.ZodLiteral<365>], {
      error: `Expiry must be one of ${TOKEN_EXPIRY_DAYS.join(', ')} days`,
    }),
  })
  .strict();
export type TCreateAccessToken = z.input<typeof ZCreateAccessToken>;
/** A token as listed (never its secret). */
export type TAccessToken = { id: string; name: string; scope: TTokenScope; createdAt: string; expiresAt: string; lastUsedAt: string | null; prefix: string };
/** The create answer: the secret, shown once. */
export type TCreatedAccessToken = TAccessToken & { token: string };
export const ZAccessTokenParams = z.object({ id: z.uuid('Token id must be a UUID') }).strict();
