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
import { ZToolStep, type TToolStep } from '../../../../contracts/assistant-tools.ts';
import { CHAT_FINISHES, chatImageId, type TChatFinish, type TChatImage, type TChatImageType, type TChatProvider, type TChatRequest, type TChatResponse } from '../../../../contracts/chat.ts';
import { ZCitation, type TCitation, type TDocument, type TDocumentList, type TPassageView } from '../../../../contracts/documents.ts';
import type { TCreateProject, TProject, TProjectList, TUpdateProject } from '../../../../contracts/projects.ts';
import type { TCreateShare, TShareLink, TShareLinkList } from '../../../../contracts/share-links.ts';
import { ApiError, apiFetch, apiRequest, errorMessage } from '../../../lib/api-client.ts';
import { readSse } from '../../../lib/sse.ts';

/** SPEC section 8: a response flagged as error without a message. */
export const NO_RESPONSE_MESSAGE = 'Failed to get response from AI';
export const MISSING_KEY_TEXT = 'API key not configured';

/** The server refused or failed the request (flagged response, HTTP error, stream error event,
 * timeout): shown in the chat. Anything else that goes wrong is unexpected (a toast). `stopped`:
 * the answer ended because Stop was pressed (docs/decisions/0056); `status`: the HTTP status of a
 * refused request; `finish`: how the answer ended, as the server said (docs/decisions/0061). */
export class ChatRequestError extends Error {
  readonly stopped: boolean;
  readonly status: number | undefined;
  readonly finish: TChatFinish;
  constructor(message: string, options: { stopped?: boolean; status?: number; finish?: TChatFinish } = {}) {
    super(message);
    this.name = 'ChatRequestError';
    this.stopped = options.stopped ?? false;
    this.status = options.status;
    this.finish = options.finish ?? (this.stopped ? 'stopped' : 'failed');
  }
}

/** An answer its provider ended: its text, model and images, how it ended, and why it is not whole when it is not (docs/decisions/0061);
 * the tool steps a JSON answer took (issue 31; a stream sends each as it starts and ends). */
export type ChatResult = { content: string; model: string; images: string[]; finish?: TChatFinish; note?: string; toolSteps?: TToolStep[]; sources?: AnswerSources };

/** The sources an answer may cite as [n] (issue 32), and what the person is told about how they were found. */
export type AnswerSources = { citations: TCitation[]; note?: string };

/** How an answer is read: its text as it comes, each tool step as it starts and ends (issue 31), and its sources before its text (issue 32). */
export type AnswerReader = { signal: AbortSignal; onDelta(text: string): void; onStep?(step: TToolStep): void; onSources?(sources: AnswerSources): void };

/** Citations the server sent that this client can show (one it cannot read is left out). */
export const citationsOf = (value: unknown): TCitation[] => (Array.isArray(value) ? value.flatMap((v) => { const c = ZCitation.safeParse(v); return c.success ? [c.data] : []; }) : []);

/** Tool steps the server sent that this client can show (one it cannot read is left out, never shown half). */
const stepsOf = (value: unknown): TToolStep[] => (Array.isArray(value) ? value.flatMap((v) => { const step = ZToolStep.safeParse(v); return step.success ? [step.data] : []; }) : []);

/** A finish the server named, or none (an older server, a value this client does not know). */
const finishOf = (value: unknown): TChatFinish | undefined => (CHAT_FINISHES.includes(value as TChatFinish) ? (value as TChatFinish) : undefined);
/** How the server said an answer ended: its finish and note, when it said. */
const endingOf = (data: { finish?: unknown; note?: unknown }) => ({
  ...(finishOf(data.finish) ? { finish: finishOf(data.finish)! } : {}),
  ...(typeof data.note === 'string' && data.note ? { note: data.note } : {}),
});

/** Images we show: our own (`/api/chat/images/<id>`), data:image/ or https URLs only. */
export function safeImages(images: unknown): string[] {
  if (!Array.isArray(images)) return [];
  return images.filter((src): src is string => typeof src === 'string' && (chatImageId(src) !== null || /^data:image\//i.test(src) || /^https:\/\//i.test(src)));
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
export async function sendChat(endpoint: string, body: TChatRequest, reader: AnswerReader): Promise<ChatResult> {
  const res = await requestAnswer(() => apiFetch('POST', endpoint, body, { signal: reader.signal, headers: { accept: 'text/event-stream' } }));
  return readAnswer(res, body.model, reader);
}

/**
 * Joins an answer the server is writing (docs/decisions/0056): a reload, another tab. The first
 * delta is all the text so far; then the rest, as sendChat reads it. 404 when the answer is not
 * the user's or is gone.
 */
export async function joinAnswer(chatId: string, answerId: string, model: string, reader: AnswerReader): Promise<ChatResult> {
  const url = `${CONVERSATIONS_URL}/${encodeURIComponent(chatId)}/stream?answer=${encodeURIComponent(answerId)}`;
  const res = await requestAnswer(() => apiFetch('GET', url, undefined, { signal: reader.signal, headers: { accept: 'text/event-stream' } }));
  return readAnswer(res, model, reader);
}

/** Stop: the server ends the answer wherever it is being written (its stream then ends, stopped). */
export const stopAnswer = (chatId: string, answerId: string) => apiRequest<void>('POST', `${CONVERSATIONS_URL}/${encodeURIComponent(chatId)}/stop`, { answer: answerId });

async function requestAnswer(request: () => Promise<Response>): Promise<Response> {
  try {
    return await request();
  } catch (err) {
    if (err instanceof ApiError) throw new ChatRequestError(errorMessage(err), { status: err.status }); // the server's own words ('Your daily AI budget ...')
    if (err instanceof Error && err.message.startsWith('Request timeout')) throw new ChatRequestError(err.message);
    throw err;
  }
}

async function readAnswer(res: Response, model: string, { signal, onDelta, onStep, onSources }: AnswerReader): Promise<ChatResult> {
  if (!(res.headers.get('content-type') ?? '').includes('text/event-stream')) {
    const data = (await res.json()) as Partial<TChatResponse> | null;
    const toolSteps = stepsOf(data?.toolSteps);
    for (const step of toolSteps) onStep?.(step);
    const citations = citationsOf(data?.citations);
    const sources = citations.length > 0 ? { citations } : undefined;
    if (sources) onSources?.(sources);
    if (!data || data.error) throw new ChatRequestError(data?.message || NO_RESPONSE_MESSAGE, { finish: finishOf(data?.finish) });
    const content = data.choices?.[0]?.message?.content ?? '';
    if (content) onDelta(content);
    return { content, model: data.model ?? model, images: safeImages(data.images), ...endingOf(data), ...(toolSteps.length > 0 ? { toolSteps } : {}), ...(sources ? { sources } : {}) };
  }
  if (!res.body) throw new ChatRequestError(NO_RESPONSE_MESSAGE);

  let content = '';
  let sources: AnswerSources | undefined;
  for await (const event of readSse(res.body, signal)) {
    if (event.event === 'delta') {
      const { text } = parseData<{ text?: unknown }>(event.data);
      if (typeof text === 'string' && text) {
        content += text;
        onDelta(text);
      }
    } else if (event.event === 'tool') {
      const [step] = stepsOf([parseData<unknown>(event.data)]);
      if (step) onStep?.(step);
    } else if (event.event === 'citations') {
      const data = parseData<{ citations?: unknown; note?: unknown }>(event.data);
      sources = { citations: citationsOf(data.citations), ...(typeof data.note === 'string' && data.note ? { note: data.note } : {}) };
      onSources?.(sources);
    } else if (event.event === 'done') {
      const done = parseData<{ model?: unknown; images?: unknown; finish?: unknown; note?: unknown }>(event.data);
      return { content, model: typeof done.model === 'string' ? done.model : model, images: safeImages(done.images), ...endingOf(done), ...(sources ? { sources } : {}) };
    } else if (event.event === 'error') {
      const { message, stopped, finish } = parseData<{ message?: unknown; stopped?: unknown; finish?: unknown }>(event.data);
      throw new ChatRequestError(typeof message === 'string' && message ? message : NO_RESPONSE_MESSAGE, { stopped: stopped === true, finish: finishOf(finish) });
    }
  }
  // Our own stream closed without its last event: the answer as far as it came, not whole.
  throw new ChatRequestError('The connection closed before the answer was complete', { finish: 'connection-lost' });
}


// --- chat history on the server (docs/decisions/0046) -----------------------------------------

export const CONVERSATIONS_URL = '/api/chat/conversations';
export const PRESETS_URL = '/api/chat/presets';

/** The list's cache key: every page of one assistant's list for one search (or one project's chats, any assistant's). */
export const conversationsKey = (provider?: TChatProvider, q?: string, projectId?: string) => [CONVERSATIONS_URL, { provider, q: q || undefined, projectId }] as const;

/** One page of the user's chats, pinned first, then newest first; `q` searches titles, messages and project names. */
export function listConversations(params: { provider?: TChatProvider; projectId?: string; q?: string; before?: string | null }, signal?: AbortSignal): Promise<TConversationList> {
  const search = new URLSearchParams();
  if (params.provider) search.set('provider', params.provider);
  if (params.projectId) search.set('projectId', params.projectId);
  if (params.q) search.set('q', params.q);
  if (params.before) search.set('before', params.before);
  const query = search.toString();
  return apiRequest<TConversationList>('GET', `${CONVERSATIONS_URL}${query ? `?${query}` : ''}`, undefined, { signal });
}

export const getConversation = (id: string, signal?: AbortSignal) => apiRequest<TConversation>('GET', `${CONVERSATIONS_URL}/${encodeURIComponent(id)}`, undefined, { signal });

export const saveConversation = (body: TSaveConversation) => apiRequest<TSaveResult>('POST', CONVERSATIONS_URL, body);

export const importConversations = (body: TImportConversations) => apiRequest<TImportResult>('POST', `${CONVERSATIONS_URL}/import`, body);

export const updateConversation = (id: string, body: TUpdateConversation) => apiRequest<TConversationInfo>('PATCH', `${CONVERSATIONS_URL}/${encodeURIComponent(id)}`, body);

export const deleteConversation = (id: string, options: { keepalive?: boolean } = {}) => apiRequest<void>('DELETE', `${CONVERSATIONS_URL}/${encodeURIComponent(id)}`, undefined, options);

/** Where the browser downloads a chat as a file (the server names it and says so). */
export const exportUrl = (id: string, format: 'md' | 'json') => `${CONVERSATIONS_URL}/${encodeURIComponent(id)}/export?format=${format}`;

export const listPresets = (signal?: AbortSignal) => apiRequest<TPresetList>('GET', PRESETS_URL, undefined, { signal });
export const createPreset = (body: TCreatePreset) => apiRequest<TPreset>('POST', PRESETS_URL, body);
export const updatePreset = (id: string, body: TUpdatePreset) => apiRequest<TPreset>('PATCH', `${PRESETS_URL}/${encodeURIComponent(id)}`, body);
export const deletePreset = (id: string) => apiRequest<void>('DELETE', `${PRESETS_URL}/${encodeURIComponent(id)}`);

// --- images (docs/decisions/0055) -------------------------------------------------------------

/** An upload of up to 5 MB may take a while on a slow line. */
const UPLOAD_TIMEOUT_MS = 120_000;

/** The file as a data: URL (a preview, and its bytes in base64 after the comma). */
export function readAsDataUrl(file: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error('The file could not be read'));
    reader.readAsDataURL(file);
  });
}

/** Uploads an image for a question (its data: URL); the server reads its type from its bytes. */
export function uploadImage(type: TChatImageType, dataUrl: string, signal?: AbortSignal): Promise<TChatImage> {
  return apiRequest<TChatImage>('POST', '/api/chat/images', { type, data: dataUrl.replace(/^data:[^,]*,/, '') }, { signal, timeoutMs: UPLOAD_TIMEOUT_MS });
}

/** Deletes an upload not sent (a thumbnail removed before Send). */
export const deleteImage = (id: string) => apiRequest<void>('DELETE', `/api/chat/images/${encodeURIComponent(id)}`);

// --- documents (issue 32, docs/decisions/0081) -------------------------------------------------

export const DOCUMENTS_URL = '/api/documents';

/** Uploads a file's bytes for a question (or a project's knowledge); the server reads its type from them. */
export function uploadDocument(file: Blob, name: string, signal?: AbortSignal, projectId?: string): Promise<TDocument> {
  const query = new URLSearchParams({ name, ...(projectId ? { projectId } : {}) });
  return apiRequest<TDocument>('POST', `${DOCUMENTS_URL}?${query}`, file, { signal, timeoutMs: UPLOAD_TIMEOUT_MS });
}

/** Deletes a document not sent (a chip removed before Send). */
export const deleteDocument = (id: string) => apiRequest<void>('DELETE', `${DOCUMENTS_URL}/${encodeURIComponent(id)}`);

/** A cited passage with the text around it. */
export const getPassage = (id: string, signal?: AbortSignal) => apiRequest<TPassageView>('GET', `${DOCUMENTS_URL}/passages/${encodeURIComponent(id)}`, undefined, { signal });

// --- projects and their knowledge (issue 32, docs/decisions/0081) ------------------------------

export const PROJECTS_URL = '/api/projects';
export const projectsKey = [PROJECTS_URL] as const;

export const listProjects = (signal?: AbortSignal) => apiRequest<TProjectList>('GET', PROJECTS_URL, undefined, { signal });
export const createProject = (body: TCreateProject) => apiRequest<TProject>('POST', PROJECTS_URL, body);
export const updateProject = (id: string, body: TUpdateProject) => apiRequest<TProject>('PATCH', `${PROJECTS_URL}/${encodeURIComponent(id)}`, body);
export const deleteProject = (id: string) => apiRequest<void>('DELETE', `${PROJECTS_URL}/${encodeURIComponent(id)}`);

/** A project's knowledge: the documents with its id. */
export const knowledgeKey = (projectId: string) => [DOCUMENTS_URL, { projectId }] as const;
export const listKnowledge = (projectId: string, signal?: AbortSignal) => apiRequest<TDocumentList>('GET', `${DOCUMENTS_URL}?projectId=${encodeURIComponent(projectId)}`, undefined, { signal });
/** A file's bytes to a project's knowledge (the same raw upload as a question's). */
export const uploadKnowledge = (projectId: string, file: File) => uploadDocument(file, file.name, undefined, projectId);

// --- share links (issue 32): the signed-in user's own ------------------------------------------

export const SHARES_URL = '/api/chat/shares';
export const createShare = (chatId: string, body: TCreateShare) => apiRequest<TShareLink>('POST', `/api/chat/conversations/${encodeURIComponent(chatId)}/shares`, body);
export const listShares = () => apiRequest<TShareLinkList>('GET', SHARES_URL);
export const revokeShare = (id: string) => apiRequest<void>('DELETE', `${SHARES_URL}/${encodeURIComponent(id)}`);
