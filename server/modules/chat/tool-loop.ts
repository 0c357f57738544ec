import { TOOL_LIMITS, type TToolStep } from '../../../contracts/assistant-tools.ts';
import { AiCallError, type AiAnswer, type AiToolCall, type AiToolResult, type AiToolTurn } from '../../integrations/ai/index.ts';
import type { ToolOutcome } from '../agent-tools/types.ts';

/**
 * The tool loop of one answer (issue 31, docs/decisions/0076 and 0079), apart from providers,
 * budgets and storage, which the chat service gives it: call the model; run each tool it asks
 * for, one after another in its order, each a step the person sees start and end; send the
 * results back and call again, until it answers without tools. Steps are the tool calls: after
 * `maxSteps` of them the model is called once more with `toolChoice: 'none'`, and calls past the
 * limit are answered as not run (every call needs a result). Stop ends the loop at once.
 */
export type ToolLoopIo = {
  /** One provider call with the loop's turns so far. */
  ask(turns: readonly AiToolTurn[], toolChoice: 'auto' | 'none'): Promise<AiAnswer>;
  /** Before each call after the first, with the turns it will carry: room is made for it (the budget may refuse, by throwing). */
  next(turns: readonly AiToolTurn[]): Promise<void>;
  /** Runs one tool call (never throws: every failure is an outcome). */
  run(call: AiToolCall): Promise<ToolOutcome>;
  /** A step began (status 'running') or ended (same id). */
  step(step: TToolStep): Promise<void>;
  /** Stop, the answer's end: a stopped tool ends the loop. */
  signal: AbortSignal;
  maxSteps?: number;
  /** Milliseconds, for each step's duration. */
  clock?: () => number;
};

/** The answer whole: every call's text in order, the last call's ending; `steps` run, and whether the step limit was reached. */
export type ToolLoopResult = { answer: AiAnswer; steps: number; limited: boolean };

/** What a step keeps of the arguments: the parsed JSON, or the raw text when it was not JSON. */
export function parsedArgs(argsText: string): unknown {
  try {
    return JSON.parse(argsText) as unknown;
  } catch {
    return argsText;
  }
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
/** A provider's id, unique within the answer (a repeated one gets a suffix), within the contract's length. */
function uniqueId(id: string, taken: Set<string>): string {
  const base = clip(id || 'call', 180);
  let unique = base;
  for (let n = 2; taken.has(unique); n++) unique = `${base}-${n}`;
  taken.add(unique);
  return unique;
}

/** Stop while a tool ran (or between steps): the answer is stopped, as a provider call aborted by Stop is. */
export class ToolLoopStopped extends AiCallError {
  constructor(tool: string) {
    super('aborted', 'The request was cancelled', { reason: 'stopped during a tool step', tool });
  }
}

const NOT_RUN = JSON.stringify({ error: `Not run: this answer reached its limit of ${TOOL_LIMITS.maxStepsPerAnswer} tool steps. Answer from what the earlier steps found.` });

export async function runToolLoop(io: ToolLoopIo): Promise<ToolLoopResult> {
  const maxSteps = io.maxSteps ?? TOOL_LIMITS.maxStepsPerAnswer;
  const clock = io.clock ?? (() => performance.now());
  const turns: AiToolTurn[] = [];
  const ids = new Set<string>();
  let text = '';
  let steps = 0;
  for (;;) {
    const limited = steps >= maxSteps;
    if (turns.length > 0) await io.next(turns);
    const answer = await io.ask(turns, limited ? 'none' : 'auto');
    text += answer.text;
    const calls = answer.toolCalls ?? [];
    // A model that calls tools when told not to is taken at its word: what it wrote is the answer.
    if (calls.length === 0 || limited) return { answer: { ...answer, text, toolCalls: [] }, steps, limited };
    const results: AiToolResult[] = [];
    for (const call of calls) {
      if (steps >= maxSteps) {
        results.push({ callId: call.id, name: call.name, output: NOT_RUN });
        continue;
      }
      steps++;
      const base = { id: uniqueId(call.id, ids), tool: clip(call.name || 'unknown', 100), at: text.length };
      await io.step({ ...base, args: parsedArgs(call.argsText), argsText: '', status: 'running', summary: '', durationMs: 0 });
      const started = clock();
      const outcome = await io.run(call);
      await io.step({
        ...base,
        args: outcome.args,
        argsText: clip(outcome.argsText, 2_000),
        status: outcome.status,
        summary: clip(outcome.summary, 2_000),
        durationMs: Math.max(0, Math.round(clock() - started)),
        ...(outcome.proposalId ? { proposalId: outcome.proposalId } : {}),
        ...(outcome.detail !== undefined ? { detail: outcome.detail } : {}),
      });
      results.push({ callId: call.id, name: call.name, output: outcome.forModel });
      if (outcome.status === 'stopped' || io.signal.aborted) throw new ToolLoopStopped(call.name);
    }
    turns.push({ role: 'tool-calls', text: answer.text, calls }, { role: 'tool-results', results });
  }
}
