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

describe('which models see images (docs/decisions/0055)', () => {
  it('marks the Ollama models named as seeing images, by name before the tag', () => {
    const models = modelsOf({ ollamaModels: ['llama3.1', 'llama3.2-vision:11b', 'mine'], ollamaVisionModels: ['llama3.2-vision', 'mine'] }, 'llama');
    expect(models.map((m) => [m.id, m.vision ?? null])).toEqual([
      ['llama3.1', null],
      ['llama3.2-vision:11b', ['image/png', 'image/jpeg']],
      ['mine', ['image/png', 'image/jpeg']],
    ]);
  });

  it("keeps each provider's own list as the contract states it", () => {
    const vision = (provider: Parameters<typeof modelsOf>[1]) => Object.fromEntries(modelsOf(config, provider).map((m) => [m.id, m.vision ?? null]));
    expect(vision('openai')['gpt-4o']).toEqual(['image/png', 'image/jpeg', 'image/webp', 'image/gif']);
    expect(vision('gemini')['gemini-2.5-pro']).toEqual(['image/png', 'image/jpeg', 'image/webp']);
    expect(vision('grok')).toMatchObject({ 'grok-4': ['image/png', 'image/jpeg'], 'grok-3': null, 'grok-2-image-1212': null });
    expect(Object.values(vision('deepseek'))).toEqual([null, null]);
  });
});

describe('which models call tools (issue 31)', () => {
  it('marks the Ollama models named as calling tools, by name before the tag, and no others', () => {
    const models = modelsOf({ ollamaModels: ['llama3.1:8b', 'qwen3', 'mine', 'llava'], ollamaToolModels: ['llama3.1', 'qwen3', 'mine'] }, 'llama');
    expect(models.map((m) => [m.id, m.tools ?? null])).toEqual([
      ['llama3.1:8b', true],
      ['qwen3', true],
      ['mine', true],
      ['llava', null],
    ]);
    // Not listed: even the contract's own Llama 3.1 does not, when the server's list leaves it out.
    expect(modelsOf({ ollamaModels: ['llama3.1'], ollamaToolModels: [] }, 'llama')[0]!.tools).toBeUndefined();
  });
});
