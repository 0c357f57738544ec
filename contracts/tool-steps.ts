import { z } from 'zod';

/**
 * The tool loop's bounds and one tool call as a conversation shows and keeps it (issue 31,
 * docs/decisions/0076). Apart from assistant-tools.ts (the tools, which read the agents'
 * contracts) so that the chat's contracts can read a step without an import circle
 * (agents.ts reads chat.ts); assistant-tools.ts re-exports all of it.
 */

/** Bounds of the tool loop (docs/decisions/0076). */
export const TOOL_LIMITS = {
  /** Tool steps in one answer; then the model answers without tools, and the answer says so. */
  maxStepsPerAnswer: 8,
  /** One tool's own time limit (a test on history is the longest). */
  toolTimeoutMs: 20_000,
  /** Tool calls per user per minute in the chat, and per token per minute over MCP. */
  callsPerMinute: 60,
  /** What one tool result may put before the model, in characters of JSON (the rest is cut, and the result says so). */
  maxResultChars: 24_000,
} as const;

/**
 * How a step ended: 'ok'; 'invalid' (arguments that are not JSON or break the schema: the model is
 * told the field and the rule); 'not-found' (no such agent or run of this user's, another user's
 * included); 'failed' (the tool could not answer: a market source down); 'timeout' (its time
 * limit); 'rate-limited'; 'stopped' (Stop); 'refused' (a tool the user may not call: not an admin
 * any more, a read-only token proposing).
 */
export const TOOL_STEP_STATUSES = ['running', 'ok', 'invalid', 'not-found', 'failed', 'timeout', 'rate-limited', 'stopped', 'refused'] as const;
export type TToolStepStatus = (typeof TOOL_STEP_STATUSES)[number];

/** One tool call as the conversation shows and keeps it (collapsible under its answer). */
export const ZToolStep = z
  .object({
    /** The provider's call id (unique within the answer). */
    id: z.string().min(1).max(200),
    tool: z.string().min(1).max(100),
    /** The arguments as the model sent them (parsed; the raw text when it was not JSON). */
    args: z.unknown(),
    /** The arguments in plain words ('BTC/USDT on Binance, 1 hour candles, the latest 30'). */
    argsText: z.string().max(2_000),
    status: z.enum(TOOL_STEP_STATUSES),
    /** A summary of the answer for the person ('3 agents, 1 failing'); the error's sentence when not ok. */
    summary: z.string().max(2_000),
    durationMs: z.number().int().min(0),
    /** Where in the answer's text the step happened: the text's length when it was called. */
    at: z.number().int().min(0),
    /** A proposal this step made (propose_agent, propose_change). */
    proposalId: z.uuid().optional(),
    /** The whole result for the person where it matters (test_on_history: the TBacktestResult). */
    detail: z.unknown().optional(),
  })
  .strict();
export type TToolStep = z.infer<typeof ZToolStep>;
export const MAX_TOOL_STEPS_KEPT = TOOL_LIMITS.maxStepsPerAnswer * 4;

/** The note under an answer whose tool loop reached its step limit (docs/decisions/0076). */
export const toolLimitNote = (steps: number) => `The assistant stopped using tools after ${steps} steps, the most one answer may take; this answer is built from what those steps found.`;
