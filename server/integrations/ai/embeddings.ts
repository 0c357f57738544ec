import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { embedMany, type EmbeddingModel } from 'ai';
import type { TEmbeddingProvider } from '../../../contracts/documents.ts';
import type { AiProviderSettings } from '../../config.ts';
import { AiCallError, classifyProviderError, userMessage, type AiFailureKind } from './errors.ts';
import { httpFetch } from './http-fetch.ts';

/**
 * Text embeddings through the AI SDK's `embedMany` (issue 32, docs/decisions/0081), with the
 * key and base URL of the chat provider the embedding provider is (never the process
 * environment). OpenAI `POST /embeddings` with `dimensions`; Gemini `:batchEmbedContents` with
 * `outputDimensionality`; Ollama through its OpenAI-compatible `/v1/embeddings`, the same base
 * URL our Llama chat client uses, at the model's own dimensions (nomic-embed-text: 768).
 */
export type EmbeddingSetup = {
  provider: TEmbeddingProvider;
  settings: AiProviderSettings;
  model: string;
  /** Asked of OpenAI and Gemini; Ollama's models give their own (null here). */
  dimensions: number | null;
};

/** The embedding service's name in a message (the chat's labels name assistants, not APIs). */
const EMBEDDING_LABELS: Record<TEmbeddingProvider, string> = { openai: 'OpenAI', gemini: 'Gemini', ollama: 'Ollama' };

export type Embedded = {
  /** One unit-length vector per text, in order. */
  vectors: Float32Array[];
  /** Input tokens the provider reported; estimated (characters / 4) when it reports none (Gemini). */
  tokens: number;
  estimated: boolean;
};

/** Texts a caller sends per call: Gemini's batch takes at most 100 requests; OpenAI's 2,048 inputs but ~300 KB. */
export const EMBEDDING_BATCH = 96;

export async function embedTexts(setup: EmbeddingSetup, texts: readonly string[], options: { signal: AbortSignal; timeoutMs: number }): Promise<Embedded> {
  if (texts.length === 0) return { vectors: [], tokens: 0, estimated: false };
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = AbortSignal.any([options.signal, timeout]);
  try {
    const result = await embedMany({
      model: embeddingModel(setup),
      values: [...texts],
      ...(setup.dimensions !== null ? { dimensions: setup.dimensions } : {}),
      maxRetries: 0,
      maxParallelCalls: 2,
      abortSignal: signal,
    });
    const vectors = result.embeddings.map((values) => normalised(Float32Array.from(values)));
    if (vectors.length !== texts.length) throw new Error(`the provider returned ${vectors.length} embeddings for ${texts.length} texts`);
    const dims = vectors[0]!.length;
    if (setup.dimensions !== null && dims !== setup.dimensions) throw new Error(`the provider returned ${dims} dimensions, ${setup.dimensions} were asked`);
    if (vectors.some((v) => v.length !== dims)) throw new Error('the provider returned vectors of different dimensions');
    const reported = result.usage.tokens;
    if (Number.isFinite(reported) && reported > 0) return { vectors, tokens: reported, estimated: false };
    return { vectors, tokens: estimateTokens(texts), estimated: true };
  } catch (err) {
    if (err instanceof AiCallError) throw err;
    const stopped: AiFailureKind | null = timeout.aborted ? 'timeout' : options.signal.aborted ? 'aborted' : null;
    const { kind, logCause } = stopped ? { kind: stopped, logCause: { reason: stopped } } : classifyProviderError(err);
    throw new AiCallError(kind, userMessage(kind, EMBEDDING_LABELS[setup.provider], options.timeoutMs), logCause);
  }
}

/** Characters / 4, the chat's estimate for a provider that reports no usage. */
export function estimateTokens(texts: readonly string[]): number {
  return texts.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0);
}

/** Scaled to length 1, so a dot product is the cosine (OpenAI's and Gemini's at full size are; shortened ones and Ollama's may not be). */
export function normalised(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const x of vector) sum += x * x;
  const norm = Math.sqrt(sum);
  if (norm > 0 && Math.abs(norm - 1) > 1e-6) for (let i = 0; i < vector.length; i++) vector[i] = vector[i]! / norm;
  return vector;
}

function embeddingModel(setup: EmbeddingSetup): EmbeddingModel {
  const key = `${setup.provider}\u0000${setup.settings.baseUrl ?? ''}\u0000${setup.settings.apiKey ?? ''}\u0000${setup.model}`;
  let model = models.get(key);
  if (!model) {
    model = buildModel(setup);
    models.set(key, model);
  }
  return model;
}
const models = new Map<string, EmbeddingModel>();

function buildModel({ provider, settings, model }: EmbeddingSetup): EmbeddingModel {
  const apiKey = settings.apiKey ?? '';
  switch (provider) {
    case 'openai':
      return createOpenAI({ apiKey, baseURL: settings.baseUrl, fetch: httpFetch }).embedding(model);
    case 'gemini':
      return createGoogleGenerativeAI({ apiKey, baseURL: settings.baseUrl, fetch: httpFetch }).embedding(model);
    case 'ollama':
      return createOpenAICompatible({ name: 'ollama', baseURL: `${settings.baseUrl ?? 'http://127.0.0.1:11434'}/v1`, fetch: httpFetch }).embeddingModel(model);
  }
}
