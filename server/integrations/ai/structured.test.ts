import type { JSONSchema7 } from 'ai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CHAT_PROVIDERS, type TChatProvider } from '../../../contracts/chat.ts';
import { startFakeAiProviders, type FakeAiProviders } from '../../../tests/fakes/ai-providers.ts';
import { TEST_MODELS } from '../../test/chat-helpers.ts';
import { AiCallError, generateStructured, type AiStructuredCall } from './index.ts';

// One structured answer per provider through its AI SDK model, against the fake speaking each
// API's structured-output format (docs/decisions/0075): the answer's text, usage and refusals.

const SCHEMA: JSONSchema7 = { type: 'object', properties: { colour: { type: 'string', enum: ['red', 'green'] } }, required: ['colour'], additionalProperties: false };

describe('generateStructured', () => {
  let fake: FakeAiProviders;
  beforeAll(async () => {
    fake = await startFakeAiProviders();
  });
  afterAll(async () => fake?.close());
  beforeEach(() => fake.reset());

  const call = (provider: TChatProvider, overrides: Partial<AiStructuredCall> = {}): AiStructuredCall => ({
    provider,
    settings: { apiKey: provider === 'llama' ? null : fake.keys[provider], baseUrl: fake.baseUrls[provider] },
    model: TEST_MODELS[provider],
    system: 'Answer with a colour as JSON.',
    prompt: 'the colour of grass',
    schema: SCHEMA,
    schemaName: 'colour',
    schemaDescription: 'A colour',
    signal: new AbortController().signal,
    timeoutMs: 5_000,
    maxOutputTokens: 500,
    ...overrides,
  });

  for (const provider of CHAT_PROVIDERS) {
    it(`${provider}: the JSON as the model wrote it, with the usage the provider reported`, async () => {
      fake.setStructuredReply(provider, { kind: 'json', value: { colour: 'green' } });
      const answer = await generateStructured(call(provider));
      expect(JSON.parse(answer.text)).toEqual({ colour: 'green' });
      expect(answer).toMatchObject({ finish: 'complete', refused: false });
      // The fake counts a token per 4 characters of the answer, as it reports it.
      expect(answer.usage).toEqual({ inputTokens: expect.any(Number), outputTokens: Math.ceil(JSON.stringify({ colour: 'green' }).length / 4) });
      expect(answer.usage!.inputTokens).toBeGreaterThan(0);
      expect(fake.requests()[0]!.structured).toBeDefined();
    });
  }

  it('a schema OpenAI strict mode refuses is the provider’s 400, a failure in our words with its text in the log cause', async () => {
    const loose: JSONSchema7 = { type: 'object', properties: { colour: { type: 'string' }, shade: { type: 'string' } }, required: ['colour'], additionalProperties: false };
    const failure = await generateStructured(call('openai', { schema: loose })).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(AiCallError);
    expect((failure as AiCallError).message).toBe('GPT could not answer this request');
    expect(JSON.stringify((failure as AiCallError).logCause)).toContain("'required' is required to be supplied");
  });

  it('a refusal is flagged wherever the provider puts it, and its words are the text only', async () => {
    fake.setStructuredReply('openai', { kind: 'refusal' });
    expect(await generateStructured(call('openai'))).toMatchObject({ refused: true, finish: 'content-filter' });
    fake.setStructuredReply('anthropic', { kind: 'text', text: 'I would rather not.' });
    expect(await generateStructured(call('anthropic'))).toMatchObject({ refused: true, text: '' });
    fake.setStructuredReply('gemini', { kind: 'blocked' });
    expect(await generateStructured(call('gemini'))).toMatchObject({ refused: true, finish: 'content-filter' });
    fake.setStructuredReply('deepseek', { kind: 'refusal' });
    expect(await generateStructured(call('deepseek'))).toMatchObject({ refused: true, finish: 'content-filter' });
  });
});
