import { createAnthropic } from '@ai-sdk/anthropic';
import { createDeepSeek } from '@ai-sdk/deepseek';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createXai } from '@ai-sdk/xai';
import type { ImageModel, LanguageModel } from 'ai';
import type { TChatProvider } from '../../../contracts/chat.ts';
import type { AiProviderSettings } from '../../config.ts';
import { httpFetch } from './http-fetch.ts';

/**
 * The AI SDK model for one provider and model id, with the key and base URL from config (never
 * from the process environment: the SDK would otherwise read e.g. OPENAI_API_KEY behind our back
 * and the "not configured" rule could not hold). `undefined` base URL = the provider's own.
 *
 * OpenAI and xAI go through their Responses APIs (the SDKs' default and the only text API of
 * @ai-sdk/xai 5); DeepSeek and Ollama speak chat completions.
 */
/** The provider interface every package here implements (specification v4). */
export type ChatModel = Extract<LanguageModel, { specificationVersion: 'v4' }>;
export type ProviderUsage = Extract<Awaited<ReturnType<ChatModel['doGenerate']>>, { usage: unknown }>['usage'];

export function createChatModel(provider: TChatProvider, settings: AiProviderSettings, modelId: string): ChatModel {
  // Models are stateless clients: one per (provider, settings, model) serves every request.
  const key = `${provider}\u0000${settings.baseUrl ?? ''}\u0000${settings.apiKey ?? ''}\u0000${modelId}`;
  let model = chatModels.get(key);
  if (!model) {
    model = buildChatModel(provider, settings, modelId);
    chatModels.set(key, model);
  }
  return model;
}

const chatModels = new Map<string, ChatModel>();

function buildChatModel(provider: TChatProvider, settings: AiProviderSettings, modelId: string): ChatModel {
  const apiKey = settings.apiKey ?? '';
  const baseURL = settings.baseUrl;
  switch (provider) {
    case 'openai':
      return createOpenAI({ apiKey, baseURL, fetch: httpFetch }).responses(modelId);
    case 'anthropic':
      return createAnthropic({ apiKey, baseURL, fetch: httpFetch })(modelId);
    case 'gemini':
      return createGoogleGenerativeAI({ apiKey, baseURL, fetch: httpFetch })(modelId);
    case 'grok':
      return createXai({ apiKey, baseURL, fetch: httpFetch }).responses(modelId);
    case 'deepseek':
      return createDeepSeek({ apiKey, baseURL, fetch: httpFetch })(modelId);
    case 'llama':
      // Ollama's OpenAI-compatible endpoint lives under /v1 and needs no key. It honours
      // `response_format: {type: 'json_schema'}` (0.5 and later, by a grammar), so a structured
      // answer asks for that rather than the package's default `json_object`.
      return createOpenAICompatible({ name: 'ollama', baseURL: `${baseURL ?? 'http://127.0.0.1:11434'}/v1`, includeUsage: true, supportsStructuredOutputs: true, fetch: httpFetch }).chatModel(modelId);
  }
}

/** Image generation (grok-2-image-1212) through xAI's images API. */
export function createImageModel(settings: AiProviderSettings, modelId: string): ImageModel {
  return createXai({ apiKey: settings.apiKey ?? '', baseURL: settings.baseUrl, fetch: httpFetch }).image(modelId);
}
