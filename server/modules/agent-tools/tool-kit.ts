import type { TAgentToolName, TToolArguments } from '../../../contracts/assistant-tools.ts';
import type { Caller } from '../agents/agents.service.ts';
import type { ToolCaller } from './types.ts';

/**
 * What one tool is made of (issue 31, docs/decisions/0076): its arguments in plain words, and its
 * work. The pipeline around it (agent-tools.ts) validates, rate-limits, checks rights and times;
 * a tool only reads (or writes a proposal) with the caller's own services.
 */

/** What a tool is given: the caller, the agents service's caller for the same user (its current
 * role), and a signal that aborts on Stop and at the tool's time limit. */
export type ToolContext = { caller: ToolCaller; owner: Caller; signal: AbortSignal };

/** What a tool found: `data` for the model (it becomes `{"data": ...}`), `summary` for the person. */
export type ToolAnswer = {
  data: unknown;
  summary: string;
  /** The arguments in better words once the tool knows more (the agent's name for its id). */
  argsText?: string;
  proposalId?: string;
  detail?: unknown;
};

/**
 * A tool's refusal the model should hear, with the status the step shows: thrown by a tool,
 * answered as `{"error": message}`. Anything else a tool throws is classified by the pipeline
 * (AppError codes, market failures) or logged as ours.
 */
export class ToolRefusal extends Error {
  readonly status: 'invalid' | 'not-found' | 'failed' | 'rate-limited';
  constructor(status: ToolRefusal['status'], message: string) {
    super(message);
    this.name = 'ToolRefusal';
    this.status = status;
  }
}

export type Tool<N extends TAgentToolName> = {
  argsText(args: TToolArguments<N>): string;
  run(args: TToolArguments<N>, context: ToolContext): Promise<ToolAnswer>;
};
export type ToolSet = { [N in TAgentToolName]: Tool<N> };

/** 'an agent' / '3 agents'. */
export const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
/** A short id for plain words: the first block of a UUID. */
export const shortId = (id: string) => id.slice(0, 8);
