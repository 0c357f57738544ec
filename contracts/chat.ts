import { z } from 'zod';
import type { TToolStep } from './tool-steps.ts';
import { DOCUMENT_LIMITS, type TCitation, type TRetrievalInfo } from './documents.ts';

/** The chat assistants (SPEC sections 2 and 9, DESIGN section 6). One record each drives the
 * server endpoint, the client screen, storage keys and the dashboard. */
export const CHAT_PROVIDERS = ['openai', 'anthropic', 'gemini', 'grok', 'deepseek', 'llama'] as const;
export type TChatProvider = (typeof CHAT_PROVIDERS)[number];

/** The image types a question may carry (docs/decisions/0055): what every vision model here
 * takes at least some of. SVG and anything else are refused. */
export const CHAT_IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const;
export type TChatImageType = (typeof CHAT_IMAGE_TYPES)[number];
/** Each type's name as users know it. */
export const CHAT_IMAGE_TYPE_NAMES: Record<TChatImageType, string> = { 'image/png': 'PNG', 'image/jpeg': 'JPEG', 'image/webp': 'WebP', 'image/gif': 'GIF' };

/** OpenAI and Anthropic take PNG, JPEG, WebP and GIF; Gemini PNG, JPEG and WebP; xAI and Ollama PNG and JPEG. */
const ANY_IMAGE: readonly TChatImageType[] = CHAT_IMAGE_TYPES;
const NO_GIF: readonly TChatImageType[] = ['image/png', 'image/jpeg', 'image/webp'];
const PNG_JPEG: readonly TChatImageType[] = ['image/png', 'image/jpeg'];

/**
 * Ollama models that see images, by name before any ':' tag (llama3.2-vision:11b). OLLAMA_MODELS
 * names what the server offers; OLLAMA_VISION_MODELS adds names to this list.
 */
export const OLLAMA_VISION_MODELS = ['llama3.2-vision', 'llama4', 'llava', 'gemma3', 'qwen2.5vl', 'minicpm-v'] as const;
export const OLLAMA_VISION_TYPES = PNG_JPEG;
/** Ollama models that call tools (Ollama's `tools` and `message.tool_calls`), by name before any ':' tag;
 * OLLAMA_TOOL_MODELS adds names to this list. */
export const OLLAMA_TOOL_MODELS = ['llama3.1', 'llama3.2', 'llama3.3', 'llama4', 'qwen2.5', 'qwen3', 'mistral', 'mistral-nemo', 'command-r'] as const;

/**
 * What a chat may hold of images (docs/decisions/0055): the size of one, how many a question
 * carries and a request sends, and how long an uploaded image waits to be sent before it is
 * deleted. Each user's stored total is CHAT_IMAGE_STORAGE_MB (the server's configuration).
 * Pixels (docs/decisions/0064): Anthropic refuses a side over 8,000 pixels, the strictest of the
 * providers; 25 megapixels in all (a 24-megapixel camera's 6000 x 4000) bounds what the server
 * decodes to check an image.
 */
export const CHAT_IMAGE_LIMITS = {
  maxBytes: 5 * 1024 * 1024,
  maxSide: 8_000,
  maxPixels: 25_000_000,
  maxPerMessage: 4,
  maxPerRequest: 16,
  unsentHours: 24,
} as const;

export type TChatModel = {
  id: string;
  label: string;
  note?: string;
  /** Image generation (grok-2-image-1212): it draws from the last question. */
  image?: boolean;
  /** The image types the model takes in a question; unset: it reads text only. */
  vision?: readonly TChatImageType[];
  /** The most output tokens the provider accepts for this model: a larger CHAT_MAX_OUTPUT_TOKENS
   * is lowered to it, so the request is not refused. Unset: no smaller limit is known. */
  maxOutputTokens?: number;
  /** false: the model takes no temperature (OpenAI's reasoning models refuse one; DeepSeek's
   * reasoner ignores it; image generation has none), so a chat's temperature is not sent to it. */
  temperature?: false;
  /** The model calls tools (issue 31, docs/decisions/0076): "Use my agents" is offered with it.
   * Unset: it does not (image generation, DeepSeek's reasoner). Ollama: OLLAMA_TOOL_MODELS. */
  tools?: true;
};

export type TChatProviderInfo = {
  id: TChatProvider;
  /** Shown in headers and cards. */
  label: string;
  /** POST endpoint (SPEC section 7; DeepSeek and Llama beyond SPEC). */
  endpoint: string;
  /** The client route. */
  path: string;
  /** SPEC's local-storage service name: chat-history-{service}, chat-sessions-{service}. */
  storageService: string;
  /** SPEC's empty-state text. */
  emptyState: string;
  /** Who may chat by default (the server enforces it; configurable). */
  defaultAccess: 'admin' | 'signedIn';
  /** Environment variable holding the key; null when the provider needs none (Ollama). */
  keyVariable: string | null;
  /** SPEC's 'API Configuration Error' text for a missing key. */
  missingKeyMessage: string;
  models: readonly TChatModel[];
  defaultModel: string;
  /** Grok's form variant: single-line input, 'Thinking...', 'Error: {message}' under the input. */
  variant: 'standard' | 'grok';
  /** The highest temperature the provider takes (Anthropic: 1; the others: 2). */
  temperatureMax: number;
};

export const CHAT_PROVIDER_INFO: Record<TChatProvider, TChatProviderInfo> = {
  openai: {
    id: 'openai',
    label: 'GPT',
    endpoint: '/api/openai/chat',
    path: '/chat-console',
    storageService: 'openai',
    emptyState: 'Start a conversation',
    defaultAccess: 'admin',
    keyVariable: 'OPENAI_API_KEY',
    missingKeyMessage: 'OpenAI API key is not configured. Please contact the administrator.',
    models: [
      { id: 'gpt-4o', label: 'GPT-4o', maxOutputTokens: 16_384, vision: ANY_IMAGE, tools: true },
      { id: 'gpt-4.1', label: 'GPT-4.1', note: 'Chat', maxOutputTokens: 32_768, vision: ANY_IMAGE, tools: true },
      { id: 'o4-mini', label: 'o4-mini', note: 'Reasoning', maxOutputTokens: 100_000, temperature: false, vision: ANY_IMAGE, tools: true },
      { id: 'o3', label: 'o3', note: 'Reasoning', maxOutputTokens: 100_000, temperature: false, vision: ANY_IMAGE, tools: true },
    ],
    defaultModel: 'gpt-4o',
    variant: 'standard',
    temperatureMax: 2,
  },
  anthropic: {
    id: 'anthropic',
    label: 'Claude',
    endpoint: '/api/anthropic/chat',
    path: '/claude-chat',
    storageService: 'claude',
    emptyState: 'Start a conversation with Claude',
    defaultAccess: 'admin',
    keyVariable: 'ANTHROPIC_API_KEY',
    missingKeyMessage: 'Anthropic API key is not configured. Please contact the administrator.',
    // SPEC leaves Claude's list open: current models, the newest capable one first.
    models: [
      { id: 'claude-sonnet-4-5', label: 'Claude Sonnet 4.5', maxOutputTokens: 64_000, vision: ANY_IMAGE, tools: true },
      { id: 'claude-opus-4-1', label: 'Claude Opus 4.1', note: 'Most capable', maxOutputTokens: 32_000, vision: ANY_IMAGE, tools: true },
      { id: 'claude-haiku-4-5', label: 'Claude Haiku 4.5', note: 'Fast', maxOutputTokens: 64_000, vision: ANY_IMAGE, tools: true },
    ],
    defaultModel: 'claude-sonnet-4-5',
    variant: 'standard',
    temperatureMax: 1,
  },
  gemini: {
    id: 'gemini',
    label: 'Gemini',
    endpoint: '/api/gemini/chat',
    path: '/gemini-chat',
    storageService: 'gemini',
    emptyState: 'Start a conversation with Gemini',
    defaultAccess: 'admin',
    keyVariable: 'GOOGLE_GENERATIVE_AI_API_KEY',
    missingKeyMessage: 'Google AI API key is not configured. Please contact the administrator.',
    models: [
      { id: 'gemini-2.5-pro', label: 'Gemini 2.5 Pro', note: 'Advanced', maxOutputTokens: 65_536, vision: NO_GIF, tools: true },
      { id: 'gemini-2.5-flash', label: 'Gemini 2.5 Flash', note: 'Fast', maxOutputTokens: 65_536, vision: NO_GIF, tools: true },
      { id: 'gemini-2.0-flash', label: 'Gemini 2.0 Flash', note: 'Legacy', maxOutputTokens: 8_192, vision: NO_GIF, tools: true },
    ],
    defaultModel: 'gemini-2.5-pro',
    variant: 'standard',
    temperatureMax: 2,
  },
  grok: {
    id: 'grok',
    label: 'Grok',
    endpoint: '/api/grok/chat',
    path: '/grok-chat',
    storageService: 'grok',
    emptyState: 'Start a conversation with Grok',
    defaultAccess: 'admin',
    keyVariable: 'XAI_API_KEY',
    missingKeyMessage: 'xAI API key is not configured. Please contact the administrator.',
    models: [
      { id: 'grok-4', label: 'Grok 4', vision: PNG_JPEG, tools: true },
      // Grok 3 and Grok 3 Mini read text only.
      { id: 'grok-3', label: 'Grok 3', tools: true },
      { id: 'grok-3-mini', label: 'Grok 3 Mini', tools: true },
      { id: 'grok-2-image-1212', label: 'Grok 2 Image', note: 'Image generation', image: true, temperature: false },
    ],
    defaultModel: 'grok-4',
    variant: 'grok',
    temperatureMax: 2,
  },
  deepseek: {
    id: 'deepseek',
    label: 'DeepSeek',
    endpoint: '/api/deepseek/chat',
    path: '/deepseek-chat',
    storageService: 'deepseek',
    emptyState: 'Start a conversation with DeepSeek',
    defaultAccess: 'signedIn',
    keyVariable: 'DEEPSEEK_API_KEY',
    missingKeyMessage: 'DeepSeek API key is not configured. Please contact the administrator.',
    // DeepSeek's API reads text only.
    models: [
      { id: 'deepseek-chat', label: 'DeepSeek V3', maxOutputTokens: 8_192, tools: true },
      { id: 'deepseek-reasoner', label: 'DeepSeek R1', note: 'Reasoning', maxOutputTokens: 65_536, temperature: false },
    ],
    defaultModel: 'deepseek-chat',
    variant: 'standard',
    temperatureMax: 2,
  },
  llama: {
    id: 'llama',
    label: 'Llama',
    endpoint: '/api/llama/chat',
    path: '/llama-chat',
    storageService: 'llama',
    emptyState: 'Start a conversation with Llama',
    defaultAccess: 'signedIn',
    keyVariable: null,
    missingKeyMessage: 'Ollama is not reachable. Please contact the administrator.',
    // The server's OLLAMA_MODELS replaces this list (GET /api/chat/providers says which apply).
    models: [{ id: 'llama3.1', label: 'Llama 3.1', tools: true }],
    defaultModel: 'llama3.1',
    variant: 'standard',
    temperatureMax: 2,
  },
};

/** Who may chat with an assistant: admins only, or anyone signed in (admins pass either). */
export const CHAT_ACCESS = ['admin', 'signedIn'] as const;
export type TChatAccess = (typeof CHAT_ACCESS)[number];
/** Each assistant's access: the server's CHAT_POLICY over these defaults. */
export type TChatPolicy = Record<TChatProvider, TChatAccess>;
export const DEFAULT_CHAT_POLICY = Object.fromEntries(CHAT_PROVIDERS.map((p) => [p, CHAT_PROVIDER_INFO[p].defaultAccess])) as TChatPolicy;

/** What one chat call may carry. A chat's system prompt and temperature are its own settings
 * (docs/decisions/0047); each provider's own temperature range is `temperatureMax`. */
export const CHAT_LIMITS = { maxMessages: 100, maxMessageChars: 32_000, maxSystemPromptChars: 8_000, maxTemperature: 2 } as const;

const CHAT_ID = /^chat-\d{1,16}-[a-z0-9]{1,20}$/;
const CHAT_ID_RULE = "A chat id must be 'chat-', the time in milliseconds, '-' and letters or digits";
/** SPEC's chat id ('chat-' + millisecond time + a random suffix): the key of a saved chat. */
export const ZChatId = z.string().regex(CHAT_ID, CHAT_ID_RULE);
const MESSAGE_ID_RULE = 'A message id must be 1 to 64 letters, digits, _ or -';
/** A message's id, made by the browser, unique within its chat. */
export const ZMessageId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, MESSAGE_ID_RULE);
/** A stored image's id (POST /api/chat/images answers it). */
export const ZImageId = z.uuid('An image id must be a UUID');
const MAX_IMAGES_RULE = `A message carries at most ${CHAT_IMAGE_LIMITS.maxPerMessage} images`;
export const ZMessageImages = z.array(ZImageId).max(CHAT_IMAGE_LIMITS.maxPerMessage, MAX_IMAGES_RULE);
/** The documents a question carries (issue 32). */
export const ZMessageDocuments = z
  .array(z.uuid('A document id must be a UUID'))
  .max(DOCUMENT_LIMITS.maxPerMessage, `A question carries at most ${DOCUMENT_LIMITS.maxPerMessage} documents`);

export const ZChatMessage = z
  .object({
    role: z.enum(['user', 'assistant'], 'Role must be user or assistant'),
    content: z.string().min(1, 'A message must not be empty').max(CHAT_LIMITS.maxMessageChars, 'A message must be at most 32,000 characters'),
    /** Grok's client sends it (SPEC); the server ignores it. */
    timestamp: z.union([z.string(), z.number()]).optional(),
    /** Images the question shows the model (ids of the user's uploads; docs/decisions/0055). */
    images: ZMessageImages.optional(),
    /** Documents the question carries (ids of the user's uploads; issue 32, docs/decisions/0081). */
    documents: ZMessageDocuments.optional(),
  })
  .refine((m) => m.role === 'user' || !m.images?.length, { path: ['images'], message: 'Only a question (role user) carries images' })
  .refine((m) => m.role === 'user' || !m.documents?.length, { path: ['documents'], message: 'Only a question (role user) carries documents' });

/**
 * The answer a streamed request writes into the user's saved chat (docs/decisions/0056): the chat,
 * the answer's id (the browser's), and the question it answers, which the server stores too when
 * it lacks it (the last message of `messages`, after `questionParentId`). The answer goes on when
 * the browser goes away, and can be joined again (GET /api/chat/conversations/:id/stream) or
 * stopped (POST .../stop) until it ends.
 */
export const ZAnswerTarget = z
  .object({
    chatId: ZChatId,
    id: ZMessageId,
    questionId: ZMessageId,
    questionParentId: ZMessageId.nullable(),
    /** The chat's title, for a chat the server does not hold yet (SPEC: its first question). */
    title: z.string().max(200, 'Title must be at most 200 characters'),
  })
  .strict()
  .refine((a) => a.id !== a.questionId, { path: ['id'], message: 'The answer id must differ from the question id' });
export type TAnswerTarget = z.input<typeof ZAnswerTarget>;

/** POST /api/{provider}/chat. The model must be on the provider's allowlist (checked by the
 * server, which knows the configured list). */
export const ZChatRequest = z.object({
  messages: z
    .array(ZChatMessage)
    .min(1, 'Send at least one message')
    .max(CHAT_LIMITS.maxMessages, 'Send at most 100 messages'),
  model: z.string().min(1, 'Model is required').max(100, 'Model must be at most 100 characters'),
  /** The chat's system prompt (docs/decisions/0047): the provider gets it as its own field. */
  system: z
    .string()
    .max(CHAT_LIMITS.maxSystemPromptChars, `The system prompt must be at most ${CHAT_LIMITS.maxSystemPromptChars.toLocaleString('en-US')} characters`)
    .optional(),
  /** The chat's temperature; each provider's own range applies (its `temperatureMax`). */
  temperature: z.number('Temperature must be a number').min(0, 'Temperature must be from 0 to 2').max(CHAT_LIMITS.maxTemperature, 'Temperature must be from 0 to 2').optional(),
  /** Where the answer is kept (docs/decisions/0056); without it the answer is only sent back. */
  answer: ZAnswerTarget.optional(),
  /** "Use my agents" (issue 31, docs/decisions/0076): the assistant may call the agent tools with
   * the user's own rights. Admins only, on a model with `tools`; else 400 naming this field. */
  useAgents: z.boolean('Use my agents must be true or false').optional(),
  /** "Search the web" (issue 32): only when the server has a search engine configured, else 400 naming this field. */
  webSearch: z.boolean('Search the web must be true or false').optional(),
  /** The project the chat is in (issue 32): its instructions go before the chat's own system prompt, its knowledge is retrieved from. */
  projectId: z.uuid('A project id must be a UUID').optional(),
})
  .refine((r) => r.messages.reduce((n, m) => n + (m.images?.length ?? 0), 0) <= CHAT_IMAGE_LIMITS.maxPerRequest, {
    path: ['messages'],
    message: `Send at most ${CHAT_IMAGE_LIMITS.maxPerRequest} images in one request`,
  })
  .refine((r) => !r.answer || r.messages.at(-1)?.role === 'user', { path: ['answer'], message: 'The last message must be the question it answers' });
export type TChatRequest = z.input<typeof ZChatRequest>;

export type TChatUsage = { inputTokens: number; outputTokens: number };

/**
 * How an answer ended (DESIGN section 11: a stream's end is information; docs/decisions/0061).
 * Ended by its provider (`done`): 'complete'; 'length', at the output limit it was given;
 * 'content-filter'; 'other', for a reason of the provider's own. Not ended by its provider
 * (`error`): 'connection-lost', the provider's stream closed after the last text without its
 * closing event; 'stopped', by the person (Stop); 'failed', a provider failure or one of our
 * limits; 'interrupted', the server stopped or died while writing it.
 */
export const CHAT_FINISHES = ['complete', 'length', 'content-filter', 'other', 'connection-lost', 'stopped', 'failed', 'interrupted'] as const;
export type TChatFinish = (typeof CHAT_FINISHES)[number];
/** The endings a `done` event carries: the provider ended the answer. */
export type TDoneFinish = Extract<TChatFinish, 'complete' | 'length' | 'content-filter' | 'other'>;
/** The endings an `error` event carries. */
export type TErrorFinish = Exclude<TChatFinish, TDoneFinish>;

/** The JSON answer (SPEC section 7): read as error, message, choices[0].message.content, model.
 * `finish`, `note` and `usageEstimated` are ours (docs/decisions/0061), added beside SPEC's fields. */
export type TChatResponse = {
  error: boolean;
  message?: string;
  choices: Array<{ message: { role: 'assistant'; content: string } }>;
  model: string;
  usage?: TChatUsage;
  /** The provider reported no usage: `usage` is our estimate. */
  usageEstimated?: true;
  /** How the answer ended. */
  finish?: TChatFinish;
  /** Why an answer is not whole, in a sentence for the person (absent when it is whole). */
  note?: string;
  /** grok-2-image-1212: the generated images, stored for the user and served from
   * `/api/chat/images/:id` (docs/decisions/0055). */
  images?: string[];
  /** The tool steps the answer took, in order (issue 31). */
  toolSteps?: TToolStep[];  /** The sources the answer may cite as [n] (issue 32), and how they were found. */
  citations?: TCitation[];
  retrieval?: TRetrievalInfo;
};

/**
 * The event stream with `Accept: text/event-stream`: `event: delta` {text}, then exactly one of
 * `event: done` {model, usage, usageEstimated?, finish, note?, images?} or `event: error`
 * {message, partial: true when text was already sent, stopped: true when the user pressed Stop,
 * finish}. `done` says how the provider ended the answer and, when it is not whole (cut at the
 * length limit, filtered, empty), `note` says so in a sentence for the person; `usageEstimated`:
 * the provider reported no usage, so `usage` is our estimate (docs/decisions/0061). A stream
 * joined again (docs/decisions/0056) starts with one delta of all the text so far.
 * `event: tool` (issue 31): a tool step, sent when it starts (status 'running') and again when it
 * ends (same id; the client replaces it); a joined stream sends every step so far after its
 * first delta.
 * `event: citations` (issue 32): the sources the answer may cite as [n] (documents' passages, web
 * pages), once, before its first delta; `note` says when retrieval was limited (full text only,
 * documents without text, a failed web search). A joined stream resends it first.
 */
export type TChatStreamEvent =
  | { event: 'delta'; data: { text: string } }
  | { event: 'tool'; data: TToolStep }
  | { event: 'citations'; data: { citations: TCitation[]; retrieval: TRetrievalInfo | null; note?: string } }
  | { event: 'done'; data: { model: string; usage?: TChatUsage; usageEstimated?: true; finish: TDoneFinish; note?: string; images?: string[] } }
  | { event: 'error'; data: { message: string; partial: boolean; stopped?: true; finish: TErrorFinish } };

/** The note under an answer the user stopped (the browser and the server write the same). */
export const STOPPED_NOTE = '(stopped)';
/** The note under an answer a failure cut short, after some text. */
export const cutShortNote = (message: string) => `The answer was cut short: ${message}`;

/** The output limit an answer was given, and whether the day's budget made it smaller than usual. */
export type TAnswerLimit = { tokens: number; byBudget: boolean };

const tokensText = (limit: TAnswerLimit | undefined) => (limit ? ` of ${limit.tokens.toLocaleString('en-US')} tokens${limit.byBudget ? ', what your daily AI budget had left for it' : ''}` : '');

/**
 * The note under an answer its provider ended (docs/decisions/0061): none for a whole answer;
 * else one sentence saying why it is not whole, so an answer cut short never looks complete and
 * an empty one never stands without a reason. `assistant` is its label ('GPT').
 */
export function finishNote(finish: TDoneFinish, { assistant, empty, limit }: { assistant: string; empty: boolean; limit?: TAnswerLimit }): string | undefined {
  switch (finish) {
    case 'complete':
      return empty ? `${assistant} ended the answer without writing anything.` : undefined;
    case 'length':
      return empty
        ? `The model used its whole length limit${tokensText(limit)} thinking and wrote no answer.`
        : cutShortNote(`it reached its length limit${tokensText(limit)}.`);
    case 'content-filter':
      return empty ? `${assistant}'s content filter stopped the answer before any text.` : cutShortNote(`${assistant}'s content filter stopped it.`);
    case 'other':
      return empty ? `${assistant} ended the answer without writing anything, for a reason of its own.` : cutShortNote(`${assistant} ended it early, for a reason of its own.`);
  }
}

/** An answer cut at its length limit, with text to go on from: it offers Continue (docs/decisions/0061). */
export const mayContinue = (message: { finish?: TChatFinish; content: string; failed?: boolean }) => message.finish === 'length' && message.content.trim() !== '' && !message.failed;

/** The question Continue sends after an answer cut at its length limit (docs/decisions/0061). */
export const CONTINUE_PROMPT = 'Continue your answer from exactly where it stopped, without repeating what you already wrote.';

// --- images (docs/decisions/0055) -----------------------------------------------------------

/** Base64 of CHAT_IMAGE_LIMITS.maxBytes bytes: at most this many characters. */
const MAX_IMAGE_BASE64 = Math.ceil(CHAT_IMAGE_LIMITS.maxBytes / 3) * 4;
const MAX_IMAGE_MB = CHAT_IMAGE_LIMITS.maxBytes / (1024 * 1024);

/** POST /api/chat/images: one image, its bytes in base64 (the API takes JSON only), and the type
 * it is said to be; the server reads the type from the bytes and refuses a mismatch. */
export const ZUploadImage = z
  .object({
    type: z.enum(CHAT_IMAGE_TYPES, `The image type must be one of: ${CHAT_IMAGE_TYPES.join(', ')}`),
    data: z
      .string()
      .min(1, 'The image must not be empty')
      .max(MAX_IMAGE_BASE64, `An image may be at most ${MAX_IMAGE_MB} MB`)
      .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'The image must be sent in base64'),
  })
  .strict();
export type TUploadImage = z.input<typeof ZUploadImage>;
export const ZImageIdParams = z.object({ id: ZImageId }).strict();

/** A stored image: what an upload answers. `url` serves it to its owner alone. */
export type TChatImage = { id: string; type: TChatImageType; bytes: number; width: number; height: number; url: string };
export const chatImageUrl = (id: string) => `/api/chat/images/${id}`;
/** The id in one of our image URLs, or null. */
export function chatImageId(url: string): string | null {
  return /^\/api\/chat\/images\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i.exec(url)?.[1] ?? null;
}

/**
 * Public list prices in USD per million tokens, for the admin's cost estimate (not billing).
 * Llama runs on our own Ollama: 0. grok-2-image-1212 is billed per image, not per token
 * (CHAT_IMAGE_PRICES_USD).
 */
export const CHAT_PRICES_PER_MILLION: Record<string, { input: number; output: number }> = {
  'gpt-4o': { input: 2.5, output: 10 },
  'gpt-4.1': { input: 2, output: 8 },
  'o4-mini': { input: 1.1, output: 4.4 },
  o3: { input: 2, output: 8 },
  'claude-sonnet-4-5': { input: 3, output: 15 },
  'claude-opus-4-1': { input: 15, output: 75 },
  'claude-haiku-4-5': { input: 1, output: 5 },
  'gemini-2.5-pro': { input: 1.25, output: 10 },
  'gemini-2.5-flash': { input: 0.3, output: 2.5 },
  'gemini-2.0-flash': { input: 0.1, output: 0.4 },
  'grok-4': { input: 3, output: 15 },
  'grok-3': { input: 3, output: 15 },
  'grok-3-mini': { input: 0.3, output: 0.5 },
  'grok-2-image-1212': { input: 0, output: 0 },
  'deepseek-chat': { input: 0.28, output: 0.42 },
  'deepseek-reasoner': { input: 0.28, output: 0.42 },
  'llama3.1': { input: 0, output: 0 },
  // Documents' embeddings (issue 32): input only.
  'text-embedding-3-small': { input: 0.02, output: 0 },
  'gemini-embedding-001': { input: 0.15, output: 0 },
  'nomic-embed-text': { input: 0, output: 0 },
};

/** Public list prices in USD per generated image (xAI lists grok-2-image-1212 at $0.07). */
export const CHAT_IMAGE_PRICES_USD: Record<string, number> = {
  'grok-2-image-1212': 0.07,
};

/** Estimated cost of some usage in USD; 0 for a model without a price (local Ollama models). */
export function estimateCostUsd(model: string, usage: TChatUsage & { images?: number }): number {
  const price = CHAT_PRICES_PER_MILLION[model];
  const tokens = price ? (usage.inputTokens * price.input + usage.outputTokens * price.output) / 1_000_000 : 0;
  return tokens + (usage.images ?? 0) * (CHAT_IMAGE_PRICES_USD[model] ?? 0);
}

/** GET /api/chat/providers: what the signed-in user can do with each assistant. */
export type TChatProviderStatus = {
  id: TChatProvider;
  /** The server's policy lets this user chat with it. */
  allowed: boolean;
  /** Its API key is set (always true for Llama, which needs none). */
  configured: boolean;
  /** The models the server accepts (Llama: OLLAMA_MODELS). */
  models: TChatModel[];
  defaultModel: string;
};
export type TChatProvidersResponse = {
  providers: TChatProviderStatus[];
  /** The server has a web search engine (issue 32): the chat offers "Search the web". */
  webSearch?: boolean;
};

/** GET /api/admin/usage?days=N (admin). */
export const ZChatUsageQuery = z.object({
  days: z.coerce.number().int('Days must be a whole number').min(1, 'Days must be 1 to 90').max(90, 'Days must be 1 to 90').default(30),
});

/** What AI calls were for: chat messages, alert briefs (docs/decisions/0044), or conditions drafted from words (docs/decisions/0075). */
export const CHAT_USAGE_PURPOSES = ['chat', 'alert-brief', 'condition-draft', 'embedding'] as const;
export type TChatUsagePurpose = (typeof CHAT_USAGE_PURPOSES)[number];

export type TChatUsageRow = {
  user: { id: string; email: string; name: string };
  provider: string;
  model: string;
  /** Chat messages, alert briefs and condition drafts of one model are separate rows. */
  purpose: TChatUsagePurpose;
  requests: number;
  /** Calls that failed or were refused (a provider failure, a budget refusal, a server that stopped mid-answer). */
  failed: number;
  /** Answers stopped by the person (Stop), not failures. */
  stopped: number;
  /** Calls whose tokens are our estimate: the provider reported none (docs/decisions/0061). */
  estimated: number;
  inputTokens: number;
  outputTokens: number;
  /** Images generated (grok-2-image-1212), billed per image. */
  images: number;
  /** Tokens and images at list prices. */
  costUsd: number;
};
export type TChatUsageReport = {
  days: number;
  since: string;
  rows: TChatUsageRow[];
  totals: { requests: number; inputTokens: number; outputTokens: number; images: number; costUsd: number };
};

/** The report's totals row: the sums of its rows. */
export function usageTotals(rows: readonly TChatUsageRow[]): TChatUsageReport['totals'] {
  return rows.reduce(
    (t, r) => ({
      requests: t.requests + r.requests,
      inputTokens: t.inputTokens + r.inputTokens,
      outputTokens: t.outputTokens + r.outputTokens,
      images: t.images + r.images,
      costUsd: t.costUsd + r.costUsd,
    }),
    { requests: 0, inputTokens: 0, outputTokens: 0, images: 0, costUsd: 0 },
  );
}
