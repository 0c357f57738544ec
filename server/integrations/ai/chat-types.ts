import type { TChatUsage } from '../../../contracts/chat.ts';

/**
 * The types a chat turn is made of, shared by index.ts (the provider calls) and the readers it
 * calls (openai-responses.ts): each imports them from here, so neither imports the other back.
 */

/** An image a question shows the model: its bytes and type (read from the bytes). */
export type AiImage = { mediaType: string; data: Uint8Array };
/** One message of a chat; a question may carry images (docs/decisions/0055). */
export type AiChatMessage = { role: 'user' | 'assistant'; content: string; images?: readonly AiImage[] };

/** One piece of a streamed answer, whichever way it was read (our Responses reader or an AI SDK provider). */
export type ChatStreamPart = { type: 'text'; text: string } | { type: 'finish'; usage: TChatUsage | null } | { type: 'error'; error: unknown };
