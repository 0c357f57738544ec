import { describe, expect, it } from 'vitest';
import { BRIEF_MODEL_RULE, BRIEF_PROVIDER_RULE } from '../../../contracts/agents.ts';
import { DEFAULT_CHAT_POLICY } from '../../../contracts/chat.ts';
import { briefChoiceProblems, modelsOf } from './chat-policy.ts';

const config = { access: { ...DEFAULT_CHAT_POLICY, deepseek: 'admin' as const, openai: 'signedIn' as const }, ollamaModels: ['llama3.1', 'qwen3'] };

describe("an agent's Explain alerts choice", () => {
  it('is refused on the provider when the role policy does not let the owner use it', () => {
    expect(briefChoiceProblems(config, 'guest', { provider: 'deepseek', model: 'deepseek-chat' })).toEqual([{ path: 'config.notifications.brief.provider', message: BRIEF_PROVIDER_RULE }]);
    expect(briefChoiceProblems(config, 'guest', { provider: 'anthropic', model: 'claude-sonnet-4-5' })).toEqual([{ path: 'config.notifications.brief.provider', message: BRIEF_PROVIDER_RULE }]);
    expect(briefChoiceProblems(config, 'guest', { provider: 'openai', model: 'gpt-4o' })).toEqual([]);
    expect(briefChoiceProblems(config, 'admin', { provider: 'deepseek', model: 'deepseek-chat' })).toEqual([]);
  });

  it("is refused on the model when it is not on the provider's list, or makes images", () => {
    expect(briefChoiceProblems(config, 'admin', { provider: 'openai', model: 'gpt-3' })).toEqual([{ path: 'config.notifications.brief.model', message: BRIEF_MODEL_RULE }]);
    expect(briefChoiceProblems(config, 'admin', { provider: 'grok', model: 'grok-2-image-1212' })).toEqual([{ path: 'config.notifications.brief.model', message: BRIEF_MODEL_RULE }]);
    // Llama's list is the server's OLLAMA_MODELS.
    expect(briefChoiceProblems(config, 'admin', { provider: 'llama', model: 'qwen3' })).toEqual([]);
    expect(briefChoiceProblems(config, 'admin', { provider: 'llama', model: 'llama3.2' })).toEqual([{ path: 'config.notifications.brief.model', message: BRIEF_MODEL_RULE }]);
  });

  it('is nothing to check when Explain alerts is off', () => {
    expect(briefChoiceProblems(config, 'guest', undefined)).toEqual([]);
  });

  it('reads the models as the chat does', () => {
    expect(modelsOf(config, 'llama').map((m) => m.id)).toEqual(['llama3.1', 'qwen3']);
    expect(modelsOf(config, 'openai').map((m) => m.id)).toContain('gpt-4o');
  });
});
