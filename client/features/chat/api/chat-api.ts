import type {
  TConversation,
  TConversationInfo,
  TConversationList,
  TCreatePreset,
  TImportConversations,
  TImportResult,
  TPreset,
  TPresetList,
  TSaveConversation,
  TSaveResult,
  TUpdateConversation,
  TUpdatePreset,
} from '../../../../contracts/chat-history.ts';
import type { TChatProvider, TChatRequest, TChatResponse } from '../../../../contracts/chat.ts';
import { ApiError, apiFetch, apiRequest, errorMessage } from '../../../lib/api-client.ts';
import { readSse } from '../../../lib/sse.ts';

/** SPEC section 8: a response flagged as error without a message. */
export const NO_RESPONSE_MESSAGE = 'Failed to get response from AI';
export const MISSING_KEY_TEXT = 'API key not configured';

/** The server refused or failed the request (flagged response, HTTP error, stream error event,
 * timeout): shown in the chat. Anything else that goes wrong is unexpected (a toast). */
export class ChatRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChatRequestError';
  }
}

export type ChatResult = { content: string; model: string; images: string[] };

/** Generated images we show: data:image/ or https URLs only. */
export function safeImages(images: unknown): string[] {
  if (!Array.isArray(images)) return [];
  return images.filter((src): src is string => typeof src === 'string' && (/^data:image\//i.test(src) || /^https:\/\//i.test(src)));
}

function parseData<T>(data: string): T {
  try {
    return JSON.parse(data) as T;
  } catch {
    throw new Error(`Malformed event data: ${data.slice(0, 100)}`);
  }
}

/**
 * POSTs the conversation and reads the answer: a token stream (SSE) when the server streams,
 * else SPEC's JSON. `onDelta` gets each piece of text as it arrives. Rejects with the signal's
 * AbortError when stopped, a ChatRequestError when the server reports a failure, or another
 * error when something unexpected breaks.
 */
export async function sendChat(endpoint: string, body: TChatRequest, { signal, onDelta }: { signal: AbortSignal; onDelta(text: string): void }): Promise<ChatResult> {
  let res: Response;
  try {
    res = await apiFetch('POST', endpoint, body, { signal, headers: { accept: 'text/event-stream' } });
  } catch (err) {
    if (err instanceof ApiError) throw new ChatRequestError(errorMessage(err)); // the server's own words ('Your daily AI budget ...')
    if (err instanceof Error && err.message.startsWith('Request timeout')) throw new ChatRequestError(err.message);
    throw err;
  }

  if (!(res.headers.get('content-type') ?? '').includes('text/event-stream')) {
    const data = (await res.json()) as Partial<TChatResponse> | null;
    if (!data || data.error) throw new ChatRequestError(data?.message || NO_RESPONSE_MESSAGE);
    const content = data.choices?.[0]?.message?.content ?? '';
    if (content) onDelta(content);
    return { content, model: data.model ?? body.model, images: safeImages(data.images) };
  }
  if (!res.body) throw new ChatRequestError(NO_RESPONSE_MESSAGE);

  let content = '';
  for await (const event of readSse(res.body, signal)) {
    if (event.event === 'delta') {
      const { text } = parseData<{ text?: unknown }>(event.data);
      if (typeof text === 'string' && text) {
        content += text;
        onDelta(text);
      }
    } else if (event.event === 'done') {
      const done = parseData<{ model?: unknown; images?: unknown }>(event.data);
      return { content, model: typeof done.model === 'string' ? done.model : body.model, images: safeImages(done.images) };
    } else if (event.event === 'error') {
      const { message } = parseData<{ message?: unknown }>(event.data);
      throw new ChatRequestError(typeof message === 'string' && message ? message : NO_RESPONSE_MESSAGE);
    }
  }
  throw new ChatRequestError('The connection closed before the answer was complete');
}


// --- chat history on the server (docs/decisions/0046) -----------------------------------------

export const CONVERSATIONS_URL = '/api/chat/conversations';
export const PRESETS_URL = '/api/chat/presets';

/** The list's cache key: every page of one assistant's list for one search. */
export const conversationsKey = (provider?: TChatProvider, q?: string) => [CONVERSATIONS_URL, { provider, q: q || undefined }] as const;

/** One page of the user's chats, newest first; `q` searches titles and messages. */
export function listConversations(params: { provider?: TChatProvider; q?: string; before?: string | null }, signal?: AbortSignal): Promise<TConversationList> {
  const search = new URLSearchParams();
  if (params.provider) search.set('provider', params.provider);
  if (params.q) search.set('q', params.q);
  if (params.before) search.set('before', params.before);
  const query = search.toString();
  return apiRequest<TConversationList>('GET', `${CONVERSATIONS_URL}${query ? `?${query}` : ''}`, undefined, { signal });
}

export const getConversation = (id: string, signal?: AbortSignal) => apiRequest<TConversation>('GET', `${CONVERSATIONS_URL}/${encodeURIComponent(id)}`, undefined, { signal });

export const saveConversation = (body: TSaveConversation) => apiRequest<TSaveResult>('POST', CONVERSATIONS_URL, body);

export const importConversations = (body: TImportConversations) => apiRequest<TImportResult>('POST', `${CONVERSATIONS_URL}/import`, body);

export const updateConversation = (id: string, body: TUpdateConversation) => apiRequest<TConversationInfo>('PATCH', `${CONVERSATIONS_URL}/${encodeURIComponent(id)}`, body);

export const deleteConversation = (id: string) => apiRequest<void>('DELETE', `${CONVERSATIONS_URL}/${encodeURIComponent(id)}`);

/** Where the browser downloads a chat as a file (the server names it and says so). */
export const exportUrl = (id: string, format: 'md' | 'json') => `${CONVERSATIONS_URL}/${encodeURIComponent(id)}/export?format=${format}`;

export const listPresets = (signal?: AbortSignal) => apiRequest<TPresetList>('GET', PRESETS_URL, undefined, { signal });
export const createPreset = (body: TCreatePreset) => apiRequest<TPreset>('POST', PRESETS_URL, body);
export const updatePreset = (id: string, body: TUpdatePreset) => apiRequest<TPreset>('PATCH', `${PRESETS_URL}/${encodeURIComponent(id)}`, body);
export const deletePreset = (id: string) => apiRequest<void>('DELETE', `${PRESETS_URL}/${encodeURIComponent(id)}`);
