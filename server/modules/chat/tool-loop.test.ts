import { describe, expect, it } from 'vitest';
import type { TToolStep } from '../../../contracts/assistant-tools.ts';
import type { AiAnswer, AiToolCall, AiToolTurn } from '../../integrations/ai/index.ts';
import type { ToolOutcome } from '../agent-tools/types.ts';
import { ToolLoopStopped, runToolLoop, type ToolLoopIo } from './tool-loop.ts';

const text = (t: string): AiAnswer => ({ text: t, usage: { inputTokens: 10, outputTokens: 5 }, finish: 'complete' });
const calling = (calls: Array<[string, string, string?]>, t = ''): AiAnswer => ({
  ...text(t),
  toolCalls: calls.map(([id, name, argsText = '{}']) => ({ id, name, argsText })),
});
const ok = (call: AiToolCall): ToolOutcome => ({ status: 'ok', args: JSON.parse(call.argsText) as unknown, argsText: `args of ${call.id}`, summary: `found by ${call.id}`, forModel: `{"data":"${call.id}"}` });

/** A scripted model and tools, recording what the loop did. */
function script(answers: AiAnswer[], run: (call: AiToolCall) => ToolOutcome | Promise<ToolOutcome> = ok, maxSteps?: number) {
  const asked: Array<{ turns: AiToolTurn[]; toolChoice: string }> = [];
  const steps: TToolStep[] = [];
  const nexts: number[] = [];
  const controller = new AbortController();
  let clock = 0;
  const io: ToolLoopIo = {
    ask: async (turns, toolChoice) => {
      asked.push({ turns: structuredClone([...turns]), toolChoice });
      return answers.shift() ?? text('(no more script)');
    },
    next: async (turns) => void nexts.push(turns.length),
    run: async (call) => run(call),
    step: async (step) => void steps.push(step),
    signal: controller.signal,
    clock: () => (clock += 7),
    ...(maxSteps ? { maxSteps } : {}),
  };
  return { io, asked, steps, nexts, controller };
}

describe('the tool loop of one answer (issue 31, docs/decisions/0076)', () => {
  it('answers without tools in one call when the model calls none', async () => {
    const s = script([text('Hello')]);
    expect(await runToolLoop(s.io)).toEqual({ answer: { ...text('Hello'), toolCalls: [] }, steps: 0, limited: false });
    expect(s.asked).toEqual([{ turns: [], toolChoice: 'auto' }]);
    expect(s.nexts).toEqual([]);
  });

  it('runs parallel calls one after another in the model’s order, each a step that starts and ends, then sends every result back', async () => {
    const s = script([calling([['c1', 'list_agents'], ['c2', 'get_agent', '{"agentId":"x"}']], 'Let me look. '), text('Two agents.')]);
    const { answer, steps, limited } = await runToolLoop(s.io);
    expect(answer.text).toBe('Let me look. Two agents.');
    expect([steps, limited]).toEqual([2, false]);
    expect(s.steps.map((st) => [st.id, st.tool, st.status, st.at, st.durationMs])).toEqual([
      ['c1', 'list_agents', 'running', 13, 0],
      ['c1', 'list_agents', 'ok', 13, 7],
      ['c2', 'get_agent', 'running', 13, 0],
      ['c2', 'get_agent', 'ok', 13, 7],
    ]);
    expect(s.steps[3]).toMatchObject({ args: { agentId: 'x' }, argsText: 'args of c2', summary: 'found by c2' });
    expect(s.nexts).toEqual([2]);
    expect(s.asked[1]!.turns).toEqual([
      { role: 'tool-calls', text: 'Let me look. ', calls: [{ id: 'c1', name: 'list_agents', argsText: '{}' }, { id: 'c2', name: 'get_agent', argsText: '{"agentId":"x"}' }] },
      { role: 'tool-results', results: [{ callId: 'c1', name: 'list_agents', output: '{"data":"c1"}' }, { callId: 'c2', name: 'get_agent', output: '{"data":"c2"}' }] },
    ]);
  });

  it('keeps arguments that are not JSON as their raw text in the running step, and tells the model what the tool said', async () => {
    const invalid = (call: AiToolCall): ToolOutcome => ({ status: 'invalid', args: call.argsText, argsText: call.argsText, summary: 'The arguments are not JSON', forModel: '{"error":"The arguments are not JSON"}' });
    const s = script([calling([['c1', 'get_run', '{"runId": 3']]), text('Sorry.')], invalid);
    await runToolLoop(s.io);
    expect(s.steps[0]).toMatchObject({ status: 'running', args: '{"runId": 3' });
    expect(s.steps[1]).toMatchObject({ status: 'invalid', summary: 'The arguments are not JSON' });
    expect(s.asked[1]!.turns[1]).toEqual({ role: 'tool-results', results: [{ callId: 'c1', name: 'get_run', output: '{"error":"The arguments are not JSON"}' }] });
  });

  it('stops using tools after the step limit: calls past it are answered as not run, and the last call may use none', async () => {
    const s = script([calling([['a', 'list_agents'], ['b', 'list_agents']]), calling([['c', 'list_agents'], ['d', 'list_agents']]), text('Done.')], ok, 3);
    const result = await runToolLoop(s.io);
    expect([result.steps, result.limited, result.answer.text]).toEqual([3, true, 'Done.']);
    expect(s.asked.map((a) => a.toolChoice)).toEqual(['auto', 'auto', 'none']);
    expect(s.steps.filter((st) => st.status !== 'running').map((st) => st.id)).toEqual(['a', 'b', 'c']);
    const results = s.asked[2]!.turns[3] as Extract<AiToolTurn, { role: 'tool-results' }>;
    expect(results.results.map((r) => [r.callId, JSON.parse(r.output)])).toEqual([
      ['c', { data: 'c' }],
      ['d', { error: 'Not run: this answer reached its limit of 8 tool steps. Answer from what the earlier steps found.' }],
    ]);
  });

  it('ends at once when a tool is stopped (Stop): the step says so and no further call is made', async () => {
    const s = script([calling([['c1', 'get_market'], ['c2', 'list_agents']]), text('never')], (call) => ({ ...ok(call), status: 'stopped', summary: 'Stopped before the tool finished.' }));
    await expect(runToolLoop(s.io)).rejects.toBeInstanceOf(ToolLoopStopped);
    expect(s.steps.map((st) => [st.id, st.status])).toEqual([
      ['c1', 'running'],
      ['c1', 'stopped'],
    ]);
    expect(s.asked).toHaveLength(1);
  });

  it('makes each step’s id unique within the answer, even when a provider repeats one', async () => {
    const s = script([calling([['same', 'list_agents']]), calling([['same', 'list_agents']]), text('ok')]);
    await runToolLoop(s.io);
    expect([...new Set(s.steps.map((st) => st.id))]).toEqual(['same', 'same-2']);
    // The model's own id is what it gets its result under.
    expect((s.asked[2]!.turns[3] as Extract<AiToolTurn, { role: 'tool-results' }>).results[0]!.callId).toBe('same');
  });

  it('lets the budget refuse the next call: the refusal ends the loop with the steps already taken', async () => {
    const s = script([calling([['c1', 'list_agents']]), text('never')]);
    s.io.next = async () => {
      throw new Error('budget used up');
    };
    await expect(runToolLoop(s.io)).rejects.toThrow('budget used up');
    expect(s.steps.map((st) => st.status)).toEqual(['running', 'ok']);
    expect(s.asked).toHaveLength(1);
  });
});
