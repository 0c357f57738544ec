import { describe, expect, it } from 'vitest';
import { TOOL_LIMITS } from '../../../contracts/assistant-tools.ts';
import type { SessionUser } from '../../lib/http/types.ts';
import { memoryLogger } from '../../test/memory-logger.ts';
import { chatCaller } from '../../test/tool-callers.ts';
import { createToolPipeline } from './pipeline.ts';
import type { Tool } from './tool-kit.ts';

const admin: SessionUser = { id: 'u1', provider: 'local', subject: 'a@example.com', email: 'a@example.com', name: 'A', profilePicture: '', role: 'admin', createdAt: new Date() };

/** A list_agents that waits for its signal and then fails as a cancelled read would. */
const cancelledOnAbort: Tool<'list_agents'> = {
  argsText: () => 'All your agents',
  run: (_args, { signal }) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('read cancelled')), { once: true })),
};

describe('the tool pipeline', () => {
  it('a role that cannot be read is a failed step with our sentence, its cause logged, never a throw', async () => {
    const { logger, lines } = memoryLogger();
    const tools = createToolPipeline({
      tools: { list_agents: cancelledOnAbort },
      currentRole: async () => {
        throw new Error('database down');
      },
    });
    const outcome = await tools.run(chatCaller(admin, { log: logger }), 'list_agents', '{}');
    expect(outcome.status).toBe('failed');
    expect(JSON.parse(outcome.forModel)).toEqual({ error: 'The tool failed because of an error on our side. The server log has the details.' });
    expect(lines.some((l) => l.msg === 'agent tool could not read the caller’s role')).toBe(true);
  });

  it('a tool cut by its time limit ends as timeout whatever it throws as it is cut', async () => {
    const tools = createToolPipeline({ tools: { list_agents: cancelledOnAbort }, currentRole: async () => 'admin', limits: { ...TOOL_LIMITS, toolTimeoutMs: 50 } });
    const outcome = await tools.run(chatCaller(admin), 'list_agents', '');
    expect(outcome.status).toBe('timeout');
  });

  it('Stop wins over the time limit: stopped', async () => {
    const stop = new AbortController();
    const tools = createToolPipeline({ tools: { list_agents: cancelledOnAbort }, currentRole: async () => 'admin' });
    const pending = tools.run(chatCaller(admin, { signal: stop.signal }), 'list_agents', '{}');
    stop.abort();
    expect((await pending).status).toBe('stopped');
  });
});
