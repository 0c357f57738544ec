/**
 * The fake AI providers' embeddings endpoints (issue 32), each in its API's real shape:
 *
 *   OpenAI  POST /openai/v1/embeddings {model, input: string | string[], encoding_format, dimensions}
 *           -> {object: 'list', data: [{object: 'embedding', index, embedding}], model, usage: {prompt_tokens, total_tokens}}
 *           (`dimensions` only for text-embedding-3 models: 400 otherwise, as OpenAI answers)
 *   Gemini  POST /google/v1beta/models/{m}:batchEmbedContents {requests: [{model: 'models/{m}', content: {parts: [{text}]}, outputDimensionality}]}
 *           -> {embeddings: [{values}]} (no usage; at most 100 requests, each naming the URL's model: 400 INVALID_ARGUMENT otherwise)
 *           and :embedContent {content, outputDimensionality} -> {embedding: {values}}
 *   Ollama  POST /ollama/v1/embeddings (OpenAI's shape, with usage) and POST /ollama/api/embed {model, input}
 *           -> {model, embeddings: [[...]], prompt_eval_count}; an unknown model is a 404 `{error: 'model "x" not found, try pulling it first'}`
 *
 * The vectors are deterministic and a test can reason about them: a hashed bag of word stems
 * (lower case, a plural or -ing/-ed ending dropped), each stem adding ±1 at two hashed places,
 * normalised to length 1 (the cosine of two texts grows with the stems they share). `embedAs`
 * makes the fake embed one text as another (a question embedded as a passage it shares no word
 * with: a hit the vector side finds and full text cannot). Usage: ceil(chars / 4) per text.
 * Faults are the chat's (`setFault`), answered with the provider's error body.
 */
import type { ServerResponse } from 'node:http';
import type { TChatProvider } from '../../contracts/chat.ts';
import { sendJson } from './http.ts';

/** Dimensions each fake model gives when none are asked (the real models' own). */
const NATIVE_DIMS: Record<string, number> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
  'gemini-embedding-001': 3072,
  'text-embedding-004': 768,
  'nomic-embed-text': 768,
  'mxbai-embed-large': 1024,
};

export type FakeEmbeddingRequest = { provider: TChatProvider; path: string; model: string; inputs: string[]; dimensions: number | undefined };

export type EmbeddingState = {
  /** Text -> the text it is embedded as. */
  aliases: Map<string, string>;
  requests: FakeEmbeddingRequest[];
};

export const newEmbeddingState = (): EmbeddingState => ({ aliases: new Map(), requests: [] });

/** Which embeddings API a path is, or null. */
export function embeddingRoute(method: string, path: string): { provider: TChatProvider; api: 'openai' | 'gemini-batch' | 'gemini-one' | 'ollama-native' } | null {
  if (method !== 'POST') return null;
  if (path === '/openai/v1/embeddings') return { provider: 'openai', api: 'openai' };
  if (path === '/ollama/v1/embeddings') return { provider: 'llama', api: 'openai' };
  if (path === '/ollama/api/embed') return { provider: 'llama', api: 'ollama-native' };
  if (/^\/google\/v1beta\/models\/[^/]+:batchEmbedContents$/.test(path)) return { provider: 'gemini', api: 'gemini-batch' };
  if (/^\/google\/v1beta\/models\/[^/]+:embedContent$/.test(path)) return { provider: 'gemini', api: 'gemini-one' };
  return null;
}

const tokensOf = (texts: readonly string[]) => texts.reduce((sum, t) => sum + Math.ceil(t.length / 4), 0);

/** Answers an embeddings request that passed the key and fault checks. */
export function answerEmbeddings(state: EmbeddingState, route: NonNullable<ReturnType<typeof embeddingRoute>>, path: string, body: Record<string, unknown>, res: ServerResponse): void {
  const { provider, api } = route;
  if (api === 'gemini-batch' || api === 'gemini-one') {
    const model = decodeURIComponent(/models\/([^:]+):/.exec(path)?.[1] ?? '');
    const requests = api === 'gemini-one' ? [body] : Array.isArray(body.requests) ? (body.requests as Record<string, unknown>[]) : [];
    const geminiError = (message: string) => sendJson(res, 400, { error: { code: 400, message, status: 'INVALID_ARGUMENT' } });
    if (!(model in NATIVE_DIMS)) return sendJson(res, 404, { error: { code: 404, message: `models/${model} is not found for API version v1beta, or is not supported for embedContent.`, status: 'NOT_FOUND' } });
    if (requests.length === 0) return geminiError('* BatchEmbedContentsRequest.requests: contents is not specified');
    if (requests.length > 100) return geminiError('* BatchEmbedContentsRequest.requests: at most 100 requests can be in one batch');
    const texts: string[] = [];
    let dims: number | undefined;
    for (const [i, request] of requests.entries()) {
      if (api === 'gemini-batch' && request.model !== `models/${model}`) return geminiError(`* BatchEmbedContentsRequest.requests[${i}].model: model must match the request model`);
      const parts = (request.content as { parts?: { text?: unknown }[] } | undefined)?.parts ?? [];
      const text = parts.map((p) => (typeof p.text === 'string' ? p.text : '')).join('');
      if (!text) return geminiError(`* BatchEmbedContentsRequest.requests[${i}].content: contents is not specified`);
      texts.push(text);
      dims = typeof request.outputDimensionality === 'number' ? request.outputDimensionality : undefined;
    }
    state.requests.push({ provider, path, model, inputs: texts, dimensions: dims });
    const vectors = texts.map((t) => fakeEmbedding(state, t, dims ?? NATIVE_DIMS[model]!));
    if (api === 'gemini-one') return sendJson(res, 200, { embedding: { values: vectors[0] } });
    return sendJson(res, 200, { embeddings: vectors.map((values) => ({ values })) });
  }

  const model = String(body.model ?? '');
  const input = body.input;
  const texts = typeof input === 'string' ? [input] : Array.isArray(input) && input.every((t) => typeof t === 'string') ? (input as string[]) : null;
  const dims = typeof body.dimensions === 'number' ? body.dimensions : undefined;
  if (provider === 'llama') {
    if (!(model in NATIVE_DIMS)) return sendJson(res, 404, { error: `model "${model}" not found, try pulling it first` });
    if (!texts) return sendJson(res, 400, { error: 'invalid input type' });
  } else {
    const openAiError = (status: number, message: string, code: string | null, param: string | null) => sendJson(res, status, { error: { message, type: 'invalid_request_error', param, code } });
    if (!(model in NATIVE_DIMS)) return openAiError(404, `The model \`${model}\` does not exist or you do not have access to it.`, 'model_not_found', null);
    if (!texts || texts.length === 0 || texts.some((t) => t === '')) return openAiError(400, "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.", null, null);
    if (texts.length > 2048) return openAiError(400, `'$.input' is invalid: at most 2048 inputs, ${texts.length} were given.`, null, 'input');
    if (dims !== undefined && !model.startsWith('text-embedding-3')) return openAiError(400, 'This model does not support specifying dimensions.', null, null);
  }
  state.requests.push({ provider, path, model, inputs: texts, dimensions: dims });
  const vectors = texts.map((t) => fakeEmbedding(state, t, dims ?? NATIVE_DIMS[model]!));
  const tokens = tokensOf(texts);
  if (api === 'ollama-native') return sendJson(res, 200, { model, embeddings: vectors, total_duration: 1_000_000, load_duration: 0, prompt_eval_count: tokens });
  return sendJson(res, 200, {
    object: 'list',
    data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
    model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  });
}

/** A word's stem, roughly: lower case, a plural or -ing/-ed ending dropped. */
export function fakeStem(word: string): string {
  const w = word.toLowerCase();
  if (w.length > 5 && w.endsWith('ing')) return w.slice(0, -3);
  if (w.length > 4 && w.endsWith('ed')) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) return w.slice(0, -1);
  return w;
}

/** Words too common to carry meaning (a few, like a real model's indifference to them). */
const STOP = new Set(['the', 'a', 'an', 'of', 'to', 'and', 'or', 'in', 'on', 'is', 'are', 'was', 'for', 'with', 'what', 'how', 'do', 'i', 'my', 'it', 'at', 'by', 'be', 'this', 'that']);

function hash(text: string, seed: number): number {
  let h = 0x811c9dc5 ^ seed;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The fake's vector for a text (see the header), `dims` long. */
export function fakeEmbedding(state: Pick<EmbeddingState, 'aliases'>, text: string, dims: number): number[] {
  const source = state.aliases.get(text) ?? text;
  const vector = new Float64Array(dims);
  const stems = (source.match(/[\p{L}\p{N}]+/gu) ?? []).map(fakeStem).filter((s) => !STOP.has(s));
  for (const stem of stems) {
    for (const seed of [1, 2]) {
      const h = hash(stem, seed);
      vector[h % dims]! += h & 0x80000000 ? -1 : 1;
    }
  }
  let norm = 0;
  for (const x of vector) norm += x * x;
  norm = Math.sqrt(norm);
  // A text of no words still gets a vector (a real model always answers one): a fixed unit one.
  if (norm === 0) return Array.from(vector, (_, i) => (i === 0 ? 1 : 0));
  return Array.from(vector, (x) => x / norm);
}
