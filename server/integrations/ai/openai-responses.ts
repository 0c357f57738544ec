import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { APICallError } from 'ai';
import type { TChatUsage } from '../../../contracts/chat.ts';
import { abortReason, keepAliveAgent } from './http-fetch.ts';
import type { AiChatMessage, AiFinish, AiToolCall, AiToolSpec, AiToolTurn, ChatStreamPart } from './chat-types.ts';
import { createSseParser } from './sse-parser.ts';

/**
 * A streamed chat answer from OpenAI's Responses API (POST /responses, `stream: true`), read here
 * rather than through the AI SDK's provider (docs/decisions/0058): the SDK's web streams and its
 * schema check of every event cost ~0.9 ms before an answer's first token, most of what our server
 * added to it. The request is the one @ai-sdk/openai sends for a chat turn (a test compares them
 * for every model we offer); the events are read as OpenAI documents them: text from
 * `response.output_text.delta` (and a refusal's `response.refusal.delta`, shown as the SDK
 * shows it), usage and how the answer ended from its closing event: `response.completed`, or
 * `response.incomplete` with `incomplete_details.reason` (`max_output_tokens`: cut at the output
 * limit; `content_filter`), failures from an `error` event or `response.failed`. A stream that
 * ends without a closing event (the connection closed after the last text) ends
 * 'connection-lost', never as a whole answer (docs/decisions/0061). Tool calls (issue 31) are
 * function_call output items: announced by `response.output_item.added`, their arguments streamed
 * by `response.function_call_arguments.delta` and whole in `.done`, the item whole again in
 * `response.output_item.done`, which is when a call is handed on (its arguments exactly as the
 * model wrote them, JSON or not); an answer that called tools closes with `response.completed`
 * like any other. Failures are raised
 * as the SDK raises them (APICallError with the status, or the one OpenAI's error code stands for,
 * and the body), so they are sorted into the same kinds (errors.ts).
 */

export const OPENAI_BASE_URL = 'https://api.openai.com/v1';
/** Names the caller, as the SDK's user agent did (its package names). */
const USER_AGENT = 'automation-hub';
/** The most of an error body read (a proxy's HTML page can be long). */
const ERROR_BODY_MAX_BYTES = 64 * 1024;

export type ResponsesTurn = {
  apiKey: string;
  /** Without one, OpenAI's own. */
  baseUrl?: string;
  model: string;
  system?: string;
  messages: readonly AiChatMessage[];
  maxOutputTokens?: number;
  temperature?: number;
  /** Functions the model may call, and whether it may call them now ('none': described only). */
  tools?: readonly AiToolSpec[];
  toolChoice?: 'auto' | 'none';
  /** The tool loop so far, after `messages`. */
  toolTurns?: readonly AiToolTurn[];
};

/**
 * OpenAI's reasoning models take the system prompt as a `developer` message (the SDK's rule;
 * their other rule, no temperature, the chat's model list already keeps: contracts/chat.ts).
 */
const DEVELOPER_ROLE = /^(o\d|gpt-5|codex)/;

/** The request body for a chat turn, as @ai-sdk/openai builds it (its Responses input format). */
export function responsesRequestBody(turn: ResponsesTurn): Record<string, unknown> {
  const input: unknown[] = [];
  if (turn.system) input.push({ role: DEVELOPER_ROLE.test(turn.model) ? 'developer' : 'system', content: turn.system });
  for (const message of turn.messages) {
    if (message.role === 'assistant') {
      input.push({ role: 'assistant', content: message.content });
      continue;
    }
    const images = (message.images ?? []).map((image) => ({ type: 'input_image', image_url: `data:${image.mediaType};base64,${Buffer.from(image.data).toString('base64')}` }));
    input.push({ role: 'user', content: [...images, { type: 'input_text', text: message.content }] });
  }
  for (const toolTurn of turn.toolTurns ?? []) input.push(...toolTurnItems(toolTurn));
  const tools = turn.tools ?? [];
  return {
    model: turn.model,
    input,
    ...(tools.length > 0
      ? {
          // strict: false: our schemas have optional fields, which strict mode forbids (every property required).
          tools: tools.map((tool) => ({ type: 'function', name: tool.name, description: tool.description, parameters: tool.parameters, strict: false })),
          tool_choice: turn.toolChoice ?? 'auto',
        }
      : {}),
    ...(turn.temperature !== undefined ? { temperature: turn.temperature } : {}),
    ...(turn.maxOutputTokens !== undefined ? { max_output_tokens: turn.maxOutputTokens } : {}),
    stream: true,
  };
}

/**
 * A tool loop turn as Responses input items: the model's text (if any) as an assistant message,
 * each call a `function_call` item with the arguments as the model sent them, each result a
 * `function_call_output` item naming the call it answers.
 */
function toolTurnItems(turn: AiToolTurn): unknown[] {
  if (turn.role === 'tool-results') return turn.results.map((result) => ({ type: 'function_call_output', call_id: result.callId, output: result.output }));
  return [
    ...(turn.text ? [{ role: 'assistant', content: turn.text }] : []),
    ...turn.calls.map((call) => ({ type: 'function_call', call_id: call.id, name: call.name, arguments: call.argsText })),
  ];
}

/**
 * Streams a chat turn: text as it comes, then how it ended and its usage, or the first failure
 * (after which the stream is closed). Aborting `signal` destroys the request, and the iteration
 * throws its reason. Throws what stops the answer before it begins (no connection, a refusal by
 * status).
 */
export async function* streamResponses(turn: ResponsesTurn, signal: AbortSignal): AsyncGenerator<ChatStreamPart, void, undefined> {
  const url = `${(turn.baseUrl ?? OPENAI_BASE_URL).replace(/\/+$/, '')}/responses`;
  const body = responsesRequestBody(turn);
  const res = await post(url, turn.apiKey, body, signal);
  try {
    if (res.statusCode === undefined || res.statusCode < 200 || res.statusCode > 299) throw await failedResponse(res, url, body);
    res.setEncoding('utf8');
    const parser = createSseParser();
    let end: Extract<ChatStreamPart, { type: 'finish' }> | null = null;
    let refused = false;
    const calls = new FunctionCalls();
    for await (const chunk of res as AsyncIterable<string>) {
      for (const data of parser.feed(chunk)) {
        const part = calls.read(partOf(data, url, body, res.headers));
        if (part === null) continue;
        if (part.type === 'finish') {
          end = part;
          continue;
        }
        if (part.type === 'refusal') {
          refused = true;
          yield { type: 'text', text: part.text };
          continue;
        }
        yield part;
        if (part.type === 'error') return;
      }
    }
    // No closing event: the connection closed after the last text, and the answer may not be whole.
    if (end === null) yield { type: 'finish', usage: null, finish: 'connection-lost' };
    // A refusal the model completed is a content filter's end, as the SDK reads it.
    else yield end.finish === 'complete' && refused ? { ...end, finish: 'content-filter' } : end;
  } finally {
    // Left early (an error event, or the caller stopped reading): the socket is not reused.
    if (!res.complete) res.destroy();
  }
}

/** Sends the request; resolves with the response once its headers arrive. */
function post(url: string, apiKey: string, body: Record<string, unknown>, signal: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(abortReason(signal));
      return;
    }
    const json = JSON.stringify(body);
    const secure = url.startsWith('https:');
    const req = (secure ? httpsRequest : httpRequest)(url, {
      method: 'POST',
      agent: keepAliveAgent(secure ? 'https:' : 'http:'),
      headers: {
        authorization: `Bearer ${apiKey}`,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(json),
        'user-agent': USER_AGENT,
      },
    });
    let response: IncomingMessage | null = null;
    const onAbort = () => {
      const reason = abortReason(signal);
      if (response) response.destroy(reason);
      else reject(reason);
      req.destroy(reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    req.on('error', (err) => {
      if (response || signal.aborted) return;
      signal.removeEventListener('abort', onAbort);
      // As the SDK reports a connection that failed: the socket's error (and its code) as the cause.
      reject(new APICallError({ message: `Cannot connect to API: ${err.message}`, cause: err, url, requestBodyValues: body, isRetryable: true }));
    });
    req.once('response', (res) => {
      response = res;
      res.once('close', () => signal.removeEventListener('abort', onAbort));
      resolve(res);
    });
    req.end(json);
  });
}

/** A refusal by status, as the SDK's JSON error handler raises it: OpenAI's `error.message`, else the status text. */
async function failedResponse(res: IncomingMessage, url: string, body: Record<string, unknown>): Promise<APICallError> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    if (size >= ERROR_BODY_MAX_BYTES) continue;
    chunks.push(chunk);
    size += chunk.length;
  }
  const text = Buffer.concat(chunks).subarray(0, ERROR_BODY_MAX_BYTES).toString('utf8');
  const statusCode = res.statusCode!;
  let data: unknown;
  let message = res.statusMessage ?? '';
  try {
    data = JSON.parse(text);
    const error = (data as { error?: { message?: unknown } } | null)?.error;
    if (typeof error?.message === 'string') message = error.message;
  } catch {
    data = undefined;
  }
  return new APICallError({
    message,
    url,
    requestBodyValues: body,
    statusCode,
    responseHeaders: headersOf(res.headers),
    responseBody: text,
    ...(data !== undefined ? { data } : {}),
    isRetryable: statusCode === 408 || statusCode === 409 || statusCode === 429 || statusCode >= 500,
  });
}

type ResponsesEvent = {
  type?: unknown;
  delta?: unknown;
  item_id?: unknown;
  output_index?: unknown;
  arguments?: unknown;
  item?: { type?: unknown; id?: unknown; call_id?: unknown; name?: unknown; arguments?: unknown } | null;
  response?: { usage?: { input_tokens?: unknown; output_tokens?: unknown } | null; error?: unknown; incomplete_details?: { reason?: unknown } | null } | null;
  error?: unknown;
  code?: unknown;
  message?: unknown;
};

/**
 * A piece of the answer as one event gives it: a refusal's text is told apart (it ends the answer
 * as a content filter's); a function call's pieces, keyed by its output index, are put together
 * by FunctionCalls.
 */
export type ResponsesPart =
  | ChatStreamPart
  | { type: 'refusal'; text: string }
  | { type: 'call-start'; index: number; callId: string; name: string }
  | { type: 'call-delta'; index: number; delta: string }
  | { type: 'call-arguments'; index: number; argsText: string }
  | { type: 'call-done'; index: number; callId?: string; name?: string; argsText?: string };

/** A call's event before it is whole: the provider talking (it restarts the caller's silence timer). */
const PROGRESS = { type: 'progress' } as const;

/**
 * Puts each function call together from its events: started by `output_item.added`, arguments
 * from the deltas, or whole from `function_call_arguments.done` and `output_item.done` (the
 * item's own fields win, as it is the final word). Parallel calls are told apart by output index.
 */
class FunctionCalls {
  private readonly open = new Map<number, { callId: string; name: string; argsText: string }>();

  /** The part to hand on for this event's part: a whole call when one is done; progress while one is being put together. */
  read(part: ResponsesPart | null): Exclude<ResponsesPart, { type: `call-${string}` }> | null {
    if (part === null) return null;
    switch (part.type) {
      case 'call-start':
        this.open.set(part.index, { callId: part.callId, name: part.name, argsText: '' });
        return PROGRESS;
      case 'call-delta': {
        const call = this.open.get(part.index);
        if (call) call.argsText += part.delta;
        return PROGRESS;
      }
      case 'call-arguments': {
        const call = this.open.get(part.index);
        if (call) call.argsText = part.argsText;
        return PROGRESS;
      }
      case 'call-done': {
        const call = this.open.get(part.index);
        this.open.delete(part.index);
        const whole: AiToolCall = { id: part.callId ?? call?.callId ?? '', name: part.name ?? call?.name ?? '', argsText: part.argsText ?? call?.argsText ?? '' };
        if (!whole.id || !whole.name) return { type: 'error', error: new Error(`OpenAI sent a function call without its call id or name (output ${part.index})`) };
        return { type: 'tool-call', call: whole };
      }
      default:
        return part;
    }
  }
}

/** `incomplete_details.reason` in our words (the SDK's mapping). */
function incompleteFinish(reason: unknown): AiFinish {
  if (reason === 'max_output_tokens') return 'length';
  if (reason === 'content_filter') return 'content-filter';
  return 'other';
}

/** What one event's data means for the answer; null for events that carry none of it. */
export function partOf(data: string, url: string, body: Record<string, unknown>, headers: IncomingHttpHeaders): ResponsesPart | null {
  let event: ResponsesEvent;
  try {
    event = JSON.parse(data) as ResponsesEvent;
  } catch (err) {
    return { type: 'error', error: new Error(`OpenAI sent an event that is not JSON: ${data.slice(0, 200)}`, { cause: err }) };
  }
  if (event === null || typeof event !== 'object') return { type: 'error', error: new Error(`OpenAI sent an event that is not an object: ${data.slice(0, 200)}`) };
  switch (event.type) {
    case 'response.output_text.delta':
      return typeof event.delta === 'string' ? { type: 'text', text: event.delta } : null;
    case 'response.refusal.delta':
      return typeof event.delta === 'string' ? { type: 'refusal', text: event.delta } : null;
    case 'response.output_item.added':
      return event.item?.type === 'function_call' && typeof event.output_index === 'number'
        ? { type: 'call-start', index: event.output_index, callId: String(event.item.call_id ?? ''), name: String(event.item.name ?? '') }
        : null;
    case 'response.function_call_arguments.delta':
      return typeof event.output_index === 'number' && typeof event.delta === 'string' ? { type: 'call-delta', index: event.output_index, delta: event.delta } : null;
    case 'response.function_call_arguments.done':
      return typeof event.output_index === 'number' && typeof event.arguments === 'string' ? { type: 'call-arguments', index: event.output_index, argsText: event.arguments } : null;
    case 'response.output_item.done': {
      const item = event.item;
      if (item?.type !== 'function_call' || typeof event.output_index !== 'number') return null;
      return {
        type: 'call-done',
        index: event.output_index,
        ...(typeof item.call_id === 'string' ? { callId: item.call_id } : {}),
        ...(typeof item.name === 'string' ? { name: item.name } : {}),
        ...(typeof item.arguments === 'string' ? { argsText: item.arguments } : {}),
      };
    }
    case 'response.completed':
      return { type: 'finish', usage: usageOf(event.response?.usage), finish: 'complete' };
    case 'response.incomplete': {
      const reason = event.response?.incomplete_details?.reason;
      return { type: 'finish', usage: usageOf(event.response?.usage), finish: incompleteFinish(reason), ...(typeof reason === 'string' ? { raw: reason } : {}) };
    }
    case 'error':
      return { type: 'error', error: streamError(event, data, url, body, headers) };
    case 'response.failed':
      return { type: 'error', error: streamError(event.response?.error ?? event, data, url, body, headers) };
    default:
      return null;
  }
}

function usageOf(usage: { input_tokens?: unknown; output_tokens?: unknown } | null | undefined): TChatUsage | null {
  const input = typeof usage?.input_tokens === 'number' ? usage.input_tokens : undefined;
  const output = typeof usage?.output_tokens === 'number' ? usage.output_tokens : undefined;
  if (input === undefined && output === undefined) return null;
  return { inputTokens: input ?? 0, outputTokens: output ?? 0 };
}

/**
 * An error OpenAI reported inside the stream, as the SDK raises one before any output: an
 * APICallError whose status is the one its code stands for, with the event as the body. The
 * error's fields sit on the event (as documented) or under its `error` (as sent in practice).
 */
function streamError(source: unknown, data: string, url: string, body: Record<string, unknown>, headers: IncomingHttpHeaders): APICallError {
  const record = (value: unknown) => (value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined);
  const error = record(record(source)?.error) ?? record(source) ?? {};
  const message = typeof error.message === 'string' ? error.message : 'OpenAI stream failed';
  const statusCode = statusOf(error.code, error.type);
  return new APICallError({
    message,
    url,
    requestBodyValues: body,
    statusCode,
    responseHeaders: headersOf(headers),
    responseBody: data,
    isRetryable: error.code !== 'insufficient_quota' && error.type !== 'insufficient_quota' && (statusCode === 408 || statusCode === 409 || statusCode === 429 || statusCode >= 500),
  });
}

/** The HTTP status an in-stream error stands for (the SDK's mapping): a status code as such, else by the words of its code and type. */
export function statusOf(code: unknown, type: unknown): number {
  const explicit = typeof code === 'string' && /^\d{3}$/.test(code) ? Number(code) : code;
  if (typeof explicit === 'number' && Number.isInteger(explicit) && explicit >= 400 && explicit <= 599) return explicit;
  const words = [code, type]
    .filter((value) => typeof value === 'string' || typeof value === 'number')
    .join(' ')
    .toLowerCase();
  if (words.includes('insufficient_quota') || words.includes('rate_limit')) return 429;
  if (words.includes('authentication')) return 401;
  if (words.includes('permission')) return 403;
  if (words.includes('not_found')) return 404;
  if (['invalid', 'bad_request', 'context_length'].some((word) => words.includes(word))) return 400;
  if (words.includes('overload')) return 503;
  if (words.includes('timeout')) return 504;
  return 500;
}

function headersOf(headers: IncomingHttpHeaders): Record<string, string> {
  const plain: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) plain[name] = Array.isArray(value) ? value.join(', ') : value;
  return plain;
}
