import type { TChatUsage, TDoneFinish } from '../../../contracts/chat.ts';

/**
 * The types a chat turn is made of, shared by index.ts (the provider calls) and the readers it
 * calls (openai-responses.ts): each imports them from here, so neither imports the other back.
 */

/** An image a question shows the model: its bytes and type (read from the bytes). */
export type AiImage = { mediaType: string; data: Uint8Array };
/** One message of a chat; a question may carry images (docs/decisions/0055). */
export type AiChatMessage = { role: 'user' | 'assistant'; content: string; images?: readonly AiImage[] };

/**
 * How the provider ended an answer (docs/decisions/0061): by itself ('complete'), at the output
 * limit ('length'), by its content filter, for another reason of its own ('other'), or not at
 * all: the stream closed after the last text without the provider's closing event
 * ('connection-lost').
 */
export type AiFinish = TDoneFinish | 'connection-lost';

/** One piece of a streamed answer, whichever way it was read (our Responses reader or an AI SDK
 * provider). `raw`: the provider's own finish reason, for the log. */
export type ChatStreamPart = { type: 'text'; text: string } | { type: 'finish'; usage: TChatUsage | null; finish: AiFinish; raw?: string } | { type: 'error'; error: unknown };
