import { TOOL_LIMITS, type TToolStep } from '../contracts/assistant-tools.ts';
import type { AiAnswer, AiToolCall, AiToolTurn } from '../server/integrations/ai/index.ts';
import type { ToolOutcome } from '../server/modules/agent-tools/types.ts';
import { createLiveAnswers } from '../server/modules/chat/live-answers.ts';
import { estimateTextTokens } from '../server/modules/chat/token-estimate.ts';
import { runToolLoop } from '../server/modules/chat/tool-loop.ts';
import type { Benchmark } from './types.ts';

const ANSWERS = 400;
const STEPS = TOOL_LIMITS.maxStepsPerAnswer;
const TARGET_MS = 2;

/** A tool result of the size list_runs answers (~2 KB of JSON). */
const RESULT = JSON.stringify({ data: Array.from({ length: 20 }, (_, i) => ({ id: i, status: i % 3 ? 'success' : 'failure', rsi: 41.5 + i, note: 'RSI crossed above 30 on the hour' })) });
const outcome = (call: AiToolCall): ToolOutcome => ({ status: 'ok', args: JSON.parse(call.argsText) as unknown, argsText: 'BTC watch, the latest 10 runs', summary: '10 runs, 3 failed', forModel: RESULT });
const calling = (n: number): AiAnswer => ({ text: '', usage: { inputTokens: 900, outputTokens: 20 }, finish: 'complete', toolCalls: [{ id: `call_${n}`, name: 'list_runs', argsText: '{"agentId":"6f1c0a52-7d1e-4c55-9e0e-1b4f6a2f8a10","limit":10}' }] });
const FINAL: AiAnswer = { text: 'Two of your agents failed.', usage: { inputTokens: 2_000, outputTokens: 30 }, finish: 'complete' };

/**
 * The tool loop's own time per step (issue 31): the loop (tool-loop.ts) with what the chat
 * service does around each step — the step's start and end published to the answer's followers
 * (live-answers.ts) and written as an SSE event, the budget's estimate of the turns so far — with
 * a provider and a tool that answer at once, against the same provider and tool called directly
 * in a plain loop (a direct call). The difference is ours alone; target under 2 ms a step.
 */
const benchmark: Benchmark = {
  name: 'chat-tools',
  description: `chat-tools: the tool loop's own time per step (${STEPS} steps an answer, median of ${ANSWERS} answers) against direct calls`,
  async run({ quick }) {
    const answers = quick ? 40 : ANSWERS;
    const live = createLiveAnswers();
    let written = 0;

    async function throughLoop(): Promise<number> {
      const answer = live.open('bench', 'chat-1-bench', `a${Math.random()}`)!;
      void live.follow(answer, async (event) => void (written += `event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`.length), new AbortController().signal);
      let n = 0;
      const started = performance.now();
      await runToolLoop({
        ask: async () => (n < STEPS ? calling(n++) : FINAL),
        next: async (turns: readonly AiToolTurn[]) => void estimateTextTokens(JSON.stringify(turns)),
        run: async (call) => outcome(call),
        step: (step: TToolStep) => live.publish(answer, { event: 'tool', data: step }),
        signal: new AbortController().signal,
      });
      const took = performance.now() - started;
      await live.publish(answer, { event: 'done', data: { model: 'bench', finish: 'complete' } });
      return took;
    }

    async function direct(): Promise<number> {
      let n = 0;
      const started = performance.now();
      for (let answer = calling(n++); ; answer = n <= STEPS ? calling(n++) : FINAL) {
        if (!answer.toolCalls?.length) break;
        for (const call of answer.toolCalls) outcome(call);
        if (n > STEPS) {
          await Promise.resolve(FINAL);
          break;
        }
      }
      return performance.now() - started;
    }

    for (let i = 0; i < 20; i++) {
      await throughLoop();
      await direct();
    }
    const ours: number[] = [];
    const reference: number[] = [];
    for (let i = 0; i < answers; i++) {
      ours.push((await throughLoop()) / STEPS);
      reference.push((await direct()) / STEPS);
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    // In microseconds: a step of ours is far below a millisecond.
    const [o, r] = [median(ours) * 1000, median(reference) * 1000];
    return [
      {
        name: 'chat-tools µs/step',
        unit: 'µs',
        ours: o,
        reference: r,
        ratio: r > 0 ? o / r : null,
        target: `ours - reference < ${TARGET_MS * 1000} µs`,
        met: o - r < TARGET_MS * 1000,
        note: `${(written / 1024).toFixed(0)} KB of step events written`,
      },
    ];
  },
};
export default benchmark;
