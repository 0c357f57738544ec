import type { JSONSchema7 } from 'ai';
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

// --- tool calling (issue 31, docs/decisions/0076) --------------------------------------------

/** A tool the model may call: its name, what it does, and its arguments' JSON Schema. */
export type AiToolSpec = { name: string; description: string; parameters: JSONSchema7 };
/**
 * A tool call as the model made it: the provider's call id (Gemini sends none: one is made),
 * the tool's name, and the arguments exactly as the model sent them (the caller parses them;
 * they may not be JSON at all).
 */
export type AiToolCall = { id: string; name: string; argsText: string };
/** What a tool answered, sent back to the model as the call's result (JSON text). */
export type AiToolResult = { callId: string; name: string; output: string };
/**
 * The turns of a tool loop, after the question: the model's answer that called tools (its text,
 * if any, and the calls, parallel ones together), then the results of those calls. Each provider
 * gets them in its own format (OpenAI and xAI Responses `function_call` / `function_call_output`
 * items, Anthropic `tool_use` / `tool_result` blocks, Gemini `functionCall` / `functionResponse`
 * parts, chat completions `tool_calls` / role `tool` messages).
 */
export type AiToolTurn = { role: 'tool-calls'; text: string; calls: readonly AiToolCall[] } | { role: 'tool-results'; results: readonly AiToolResult[] };
