import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CHAT_PROVIDERS, type TChatProvider } from '../../../contracts/chat.ts';
import { startFakeAiProviders, type FakeAiEnding, type FakeAiProviders } from '../../../tests/fakes/ai-providers.ts';
import { AiStreamError, finishOf, generateChat, streamChat, type AiCall } from './index.ts';

/** One model per provider; grok-3-mini and deepseek-reasoner think before they answer. */
const MODELS: Record<TChatProvider, string> = {
  openai: 'o4-mini',
  anthropic: 'claude-sonnet-4-5',
  gemini: 'gemini-2.5-flash',
  grok: 'grok-3-mini',
  deepseek: 'deepseek-reasoner',
  llama: 'llama3.1',
};
const QUESTION = 'Tell me about invoices';
const WHOLE = `Reply to: ${QUESTION}`;
const LIMIT = 300;

/**
 * How each provider's answer ends, read by both readers (our Responses reader for OpenAI's
 * streams, the AI SDK's providers for the rest and for every JSON answer), against the fake
 * providers sending each ending in the provider's own shape (DESIGN section 11: a stream's end is
 * information; issue 29 item 1).
 */
describe('how an answer ended, on every provider', () => {
  let fake: FakeAiProviders;
  const call = (provider: TChatProvider): AiCall => ({
    provider,
    settings: { apiKey: provider === 'llama' ? null : fake.keys[provider], baseUrl: fake.baseUrls[provider] },
    model: MODELS[provider],
    messages: [{ role: 'user', content: QUESTION }],
    signal: new AbortController().signal,
    timeoutMs: 10_000,
    maxOutputTokens: LIMIT,
  });
  const streamed = async (provider: TChatProvider) => {
    let text = '';
    try {
      const answer = await streamChat(call(provider), (piece) => void (text += piece));
      return { answer, text };
    } catch (thrown) {
      return { thrown, text };
    }
  };

  beforeAll(async () => {
    fake = await startFakeAiProviders({ chunkDelayMs: 1 });
  });
  afterAll(async () => {
    await fake?.close();
  });
  beforeEach(() => fake.reset());

  const cases = CHAT_PROVIDERS.flatMap((provider) => (['complete', 'length', 'thinking', 'content-filter'] as const).map((ending) => [provider, ending] as const));
  const expected: Record<Exclude<FakeAiEnding, 'no-close' | 'no-usage'>, { text: string; finish: string; outputTokens: number }> = {
    complete: { text: WHOLE, finish: 'complete', outputTokens: Math.ceil(WHOLE.length / 4) },
    length: { text: WHOLE.slice(0, Math.ceil(WHOLE.length / 2)), finish: 'length', outputTokens: LIMIT },
    thinking: { text: '', finish: 'length', outputTokens: LIMIT },
    'content-filter': { text: WHOLE.slice(0, Math.ceil(WHOLE.length / 2)), finish: 'content-filter', outputTokens: Math.ceil(Math.ceil(WHOLE.length / 2) / 4) },
  };

  it.each(cases)('%s, streamed, ending %s: the text and how it ended', async (provider, ending) => {
    fake.setEnding(provider, ending);
    const { answer, text, thrown } = await streamed(provider);
    expect(thrown).toBeUndefined();
    const { text: whole, finish, outputTokens } = expected[ending];
    expect(text).toBe(whole);
    expect(answer).toMatchObject({ text: whole, finish, usage: { inputTokens: expect.any(Number), outputTokens } });
  });

  it.each(cases)('%s, as JSON, ending %s: the text and how it ended', async (provider, ending) => {
    fake.setEnding(provider, ending);
    const { text, finish, outputTokens } = expected[ending];
    expect(await generateChat(call(provider))).toMatchObject({ text, finish, usage: { inputTokens: expect.any(Number), outputTokens } });
  });

  it.each(CHAT_PROVIDERS)('%s: a stream that closes after the last text without its closing event is not a whole answer', async (provider) => {
    fake.setEnding(provider, 'no-close');
    const { text, thrown } = await streamed(provider);
    expect(text).toBe(WHOLE);
    expect(thrown).toBeInstanceOf(AiStreamError);
    // The text it kept, no usage (the provider sent none), and a sentence of its own.
    expect(thrown).toMatchObject({ kind: 'connection_lost', partialText: WHOLE, usage: null, message: expect.stringMatching(/ closed the connection before the answer was complete$/) });
  });

  it.each(CHAT_PROVIDERS.filter((p) => p !== 'anthropic'))('%s: an answer with no usage says it has none (streamed and JSON), for the caller to estimate', async (provider) => {
    fake.setEnding(provider, 'no-usage');
    expect((await streamed(provider)).answer).toMatchObject({ text: WHOLE, finish: 'complete', usage: null });
    expect(await generateChat(call(provider))).toMatchObject({ text: WHOLE, finish: 'complete', usage: null });
  });
});

describe('finishOf', () => {
  it('reads the provider interface’s {unified, raw} and the plain strings of older specifications', () => {
    expect(finishOf({ unified: 'stop', raw: 'end_turn' }, { streamed: true })).toEqual({ finish: 'complete', raw: 'end_turn' });
    expect(finishOf('length', { streamed: true })).toEqual({ finish: 'length' });
    expect(finishOf({ unified: 'content-filter', raw: 'SAFETY' }, { streamed: false })).toEqual({ finish: 'content-filter', raw: 'SAFETY' });
    expect(finishOf({ unified: 'other', raw: 'pause_turn' }, { streamed: true })).toEqual({ finish: 'other', raw: 'pause_turn' });
  });

  it('reads a stream that ended with no finish reason as a connection lost', () => {
    expect(finishOf({ unified: 'interrupted', raw: undefined }, { streamed: true })).toEqual({ finish: 'connection-lost' });
    expect(finishOf({ unified: 'other', raw: undefined }, { streamed: true })).toEqual({ finish: 'connection-lost' });
    expect(finishOf(undefined, { streamed: true })).toEqual({ finish: 'connection-lost' });
    expect(finishOf({ unified: 'other', raw: undefined }, { streamed: false })).toEqual({ finish: 'other' });
  });

  it('reads xAI’s non-streamed incomplete status by its incomplete_details', () => {
    expect(finishOf({ unified: 'other', raw: 'incomplete' }, { streamed: false, body: { incomplete_details: { reason: 'max_output_tokens' } } })).toEqual({ finish: 'length', raw: 'incomplete' });
    expect(finishOf({ unified: 'other', raw: 'incomplete' }, { streamed: false, body: { incomplete_details: { reason: 'content_filter' } } })).toEqual({ finish: 'content-filter', raw: 'incomplete' });
    expect(finishOf({ unified: 'other', raw: 'incomplete' }, { streamed: false, body: {} })).toEqual({ finish: 'other', raw: 'incomplete' });
  });
});
