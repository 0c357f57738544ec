import { describe, expect, it } from 'vitest';
import { DEFAULT_CHAT_POLICY, type TChatPolicy } from '../../../../contracts/chat.ts';
import { roleSummary } from './role-summary.ts';

const ADMINS = 'Administrators can use every AI chat and the agents and publish articles; ';

describe('roleSummary', () => {
  it('names the chats open to guests under the default policy (DeepSeek and Llama)', () => {
    expect(roleSummary(DEFAULT_CHAT_POLICY)).toBe(`${ADMINS}guests can use the DeepSeek and Llama chats and see the dashboard.`);
  });

  it('follows a policy that opens or closes assistants', () => {
    const only = (open: Array<keyof TChatPolicy>): TChatPolicy =>
      Object.fromEntries(Object.keys(DEFAULT_CHAT_POLICY).map((p) => [p, open.includes(p as keyof TChatPolicy) ? 'signedIn' : 'admin'])) as TChatPolicy;
    expect(roleSummary(only([]))).toBe(`${ADMINS}guests can see the dashboard only.`);
    expect(roleSummary(only(['llama']))).toBe(`${ADMINS}guests can use the Llama chat and see the dashboard.`);
    expect(roleSummary(only(['openai', 'deepseek', 'llama']))).toBe(`${ADMINS}guests can use the GPT, DeepSeek and Llama chats and see the dashboard.`);
    expect(roleSummary(only(['openai', 'anthropic', 'gemini', 'grok', 'deepseek', 'llama']))).toBe(`${ADMINS}guests can use every AI chat and see the dashboard.`);
  });
});
