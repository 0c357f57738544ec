import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeAiProviders, type FakeAiProviders } from '../../../tests/fakes/ai-providers.ts';
import { AiCallError } from './errors.ts';
import { embedTexts, type EmbeddingSetup } from './embeddings.ts';

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);
const never = new AbortController().signal;

describe('embeddings through each provider (against the fake, in its real request and response shapes)', () => {
  let fake: FakeAiProviders;
  let setups: Record<'openai' | 'gemini' | 'ollama', EmbeddingSetup>;
  beforeAll(async () => {
    fake = await startFakeAiProviders();
    setups = {
      openai: { provider: 'openai', settings: { apiKey: fake.keys.openai, baseUrl: fake.baseUrls.openai }, model: 'text-embedding-3-small', dimensions: 512 },
      gemini: { provider: 'gemini', settings: { apiKey: fake.keys.gemini, baseUrl: fake.baseUrls.gemini }, model: 'gemini-embedding-001', dimensions: 512 },
      ollama: { provider: 'ollama', settings: { apiKey: null, baseUrl: fake.baseUrls.llama }, model: 'nomic-embed-text', dimensions: null },
    };
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());

  it('OpenAI: POST /embeddings with the dimensions asked, the usage it reports', async () => {
    const result = await embedTexts(setups.openai, ['refund policy for orders', 'weather in Paris'], { signal: never, timeoutMs: 5_000 });
    expect(result.vectors).toHaveLength(2);
    expect(result.vectors[0]).toHaveLength(512);
    expect(result.estimated).toBe(false);
    expect(result.tokens).toBe(Math.ceil('refund policy for orders'.length / 4) + Math.ceil('weather in Paris'.length / 4));
    const [request] = fake.embeddingRequests();
    expect(request).toMatchObject({ provider: 'openai', path: '/openai/v1/embeddings', model: 'text-embedding-3-small', dimensions: 512, inputs: ['refund policy for orders', 'weather in Paris'] });
  });

  it('Gemini: :batchEmbedContents with outputDimensionality; no usage reported, so it is estimated', async () => {
    const result = await embedTexts(setups.gemini, ['one text', 'another text'], { signal: never, timeoutMs: 5_000 });
    expect(result.vectors.map((v) => v.length)).toEqual([512, 512]);
    expect(result.estimated).toBe(true);
    expect(result.tokens).toBe(2 + 3);
    expect(fake.embeddingRequests()[0]).toMatchObject({ provider: 'gemini', path: '/google/v1beta/models/gemini-embedding-001:batchEmbedContents', dimensions: 512 });
  });

  it("Ollama: its OpenAI-compatible /v1/embeddings under the Llama base URL, at the model's own dimensions", async () => {
    const result = await embedTexts(setups.ollama, ['a passage'], { signal: never, timeoutMs: 5_000 });
    expect(result.vectors[0]).toHaveLength(768);
    expect(result.estimated).toBe(false);
    expect(fake.embeddingRequests()[0]).toMatchObject({ provider: 'llama', path: '/ollama/v1/embeddings', dimensions: undefined });
  });

  it('gives unit vectors whose cosine grows with the words two texts share, and embeds a text as another when told', async () => {
    const [refund, refunds, weather] = (await embedTexts(setups.openai, ['refund policy', 'refunds policy and returns', 'weather forecast'], { signal: never, timeoutMs: 5_000 })).vectors;
    expect(cosine(refund!, refund!)).toBeCloseTo(1, 5);
    expect(cosine(refund!, refunds!)).toBeGreaterThan(0.5);
    expect(Math.abs(cosine(refund!, weather!))).toBeLessThan(0.3);
    fake.embedAs('How do I get my money back?', 'refund policy');
    const [question] = (await embedTexts(setups.openai, ['How do I get my money back?'], { signal: never, timeoutMs: 5_000 })).vectors;
    expect(cosine(question!, refund!)).toBeCloseTo(1, 5);
  });

  it.each([
    ['openai', '401', 'auth', 'The OpenAI API key was rejected'],
    ['openai', '429', 'rate_limited', 'OpenAI is rate limiting requests'],
    ['gemini', '401', 'auth', 'The Gemini API key was rejected'],
    ['ollama', '500', 'unavailable', 'Ollama is unavailable right now'],
  ] as const)('%s answering %s is an AiCallError of kind %s with our words, the cause for the log', async (provider, fault, kind, words) => {
    fake.setFault(provider === 'ollama' ? 'llama' : provider, fault, 'SECRET-PROVIDER-TEXT');
    const failure = await embedTexts(setups[provider], ['x'], { signal: never, timeoutMs: 5_000 }).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(AiCallError);
    expect((failure as AiCallError).kind).toBe(kind);
    expect((failure as AiCallError).message).toContain(words);
    expect((failure as AiCallError).message).not.toContain('SECRET-PROVIDER-TEXT');
  });

  it('an unknown model is model_unavailable (OpenAI 404 model_not_found)', async () => {
    const failure = await embedTexts({ ...setups.openai, model: 'text-embedding-9' }, ['x'], { signal: never, timeoutMs: 5_000 }).catch((err: unknown) => err);
    expect((failure as AiCallError).kind).toBe('model_unavailable');
  });

  it('a provider that never answers is a timeout', async () => {
    fake.setFault('openai', 'hang');
    const failure = await embedTexts(setups.openai, ['x'], { signal: never, timeoutMs: 200 }).catch((err: unknown) => err);
    expect((failure as AiCallError).kind).toBe('timeout');
    expect((failure as AiCallError).message).toContain('OpenAI did not answer within 200 ms');
  });
});
