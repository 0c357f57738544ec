import { generateImage, InvalidResponseDataError, type JSONSchema7 } from 'ai';
import { CHAT_PROVIDER_INFO, type TChatProvider, type TChatUsage } from '../../../contracts/chat.ts';
import type { AiProviderSettings } from '../../config.ts';
import { AiCallError, classifyProviderError, userMessage, type AiFailureKind } from './errors.ts';
import { createChatModel, createImageModel, type ProviderUsage } from './models.ts';
import type { AiChatMessage, AiFinish, AiToolCall, AiToolSpec, AiToolTurn, ChatStreamPart } from './chat-types.ts';
import { streamResponses } from './openai-responses.ts';
import { inSpan, SpanKind } from '../../lib/telemetry/tracing.ts';

export { AiCallError, displayUrl, type AiFailureKind } from './errors.ts';
export type { AiChatMessage, AiFinish, AiImage, AiToolCall, AiToolResult, AiToolSpec, AiToolTurn } from './chat-types.ts';

export type AiCall = {
  provider: TChatProvider;
  settings: AiProviderSettings;
  model: string;
  messages: AiChatMessage[];
  /** Aborted when the client goes away; the provider request is cancelled with it. */
  signal: AbortSignal;
  /** Total time for a JSON answer; longest silence between chunks for a stream. */
  timeoutMs: number;
  /** The most output tokens the provider may produce (text answers; sent as its own field). */
  maxOutputTokens?: number;
  /** The system prompt (a chat's, or an alert brief's instructions): each SDK sends it in its provider's own place (OpenAI and xAI
   * Responses a system (or, for reasoning models, developer) input item, Anthropic the top-level
   * `system`, Gemini `systemInstruction`, chat completions a system message). */
  system?: string;
  /** Sampling temperature, within the provider's range; undefined for a model that takes none. */
  temperature?: number;
  /** Tools the model may call (issue 31); none: a plain answer. */
  tools?: readonly AiToolSpec[];
  /** 'none': the tools are described but may not be called (the last call after the step limit). */
  toolChoice?: 'auto' | 'none';
  /** The tool loop so far, after `messages` (whose last is the question). */
  toolTurns?: readonly AiToolTurn[];
};

/** A generated image, as the provider sent it. */
export type AiGeneratedImage = { mediaType: string; data: Uint8Array };
/**
 * A whole answer from its provider: its text, the usage it reported (null: none, the caller
 * estimates), how it ended (docs/decisions/0061; never 'connection-lost': that is a failure,
 * AiStreamError) and the provider's own finish reason for the log.
 */
export type AiAnswer = {
  text: string;
  usage: TChatUsage | null;
  finish: Exclude<AiFinish, 'connection-lost'>;
  rawFinish?: string;
  images?: AiGeneratedImage[];
  /** The tools the model called (issue 31), parallel calls together, in its order; absent or empty: none. */
  toolCalls?: AiToolCall[];
};

/** A message in the AI SDK's prompt: each image a file part before the text, in the order given
 * (each SDK sends it in its API's own shape: OpenAI and xAI Responses `input_image`, chat
 * completions `image_url`, Anthropic an `image` block with a base64 source, Gemini `inlineData`). */
function promptMessage(message: AiChatMessage) {
  if (message.role === 'assistant' || !message.images?.length) return { role: message.role, content: [{ type: 'text' as const, text: message.content }] };
  return {
    role: 'user' as const,
    content: [
      ...message.images.map((image) => ({ type: 'file' as const, data: { type: 'data' as const, data: image.data }, mediaType: image.mediaType })),
      { type: 'text' as const, text: message.content },
    ],
  };
}

/**
 * The tool loop's turns as AI SDK prompt messages (each provider package writes them in its API's
 * format): the model's calls an assistant message of `tool-call` parts (after its text, if any),
 * the results a `tool` message of `tool-result` parts, each naming the call it answers.
 *
 * A call's input is its arguments parsed, as the SDK's own loop sends them back; arguments that
 * were not JSON go back as the raw text, which the chat completions and Responses packages send
 * as a JSON string and @ai-sdk/anthropic as `{rawInvalidInput}` (an object is required there).
 * Gemini's `args` must be an object too, and its package would send the string: we wrap it as
 * Anthropic's does.
 */
function toolTurnMessages(provider: TChatProvider, turns: readonly AiToolTurn[]) {
  return turns.map((turn) => {
    if (turn.role === 'tool-results') {
      return {
        role: 'tool' as const,
        content: turn.results.map((result) => ({ type: 'tool-result' as const, toolCallId: result.callId, toolName: result.name, output: { type: 'text' as const, value: result.output } })),
      };
    }
    return {
      role: 'assistant' as const,
      content: [
        ...(turn.text ? [{ type: 'text' as const, text: turn.text }] : []),
        ...turn.calls.map((call) => ({ type: 'tool-call' as const, toolCallId: call.id, toolName: call.name, input: toolInput(provider, call.argsText) })),
      ],
    };
  });
}

function toolInput(provider: TChatProvider, argsText: string): unknown {
  try {
    return JSON.parse(argsText) as unknown;
  } catch {
    return provider === 'gemini' ? { rawInvalidInput: argsText } : argsText;
  }
}

/** The tools and tool choice in the AI SDK provider interface's terms (none when there are no tools). */
function sdkTools(call: Pick<AiCall, 'tools' | 'toolChoice'>) {
  if (!call.tools?.length) return {};
  return {
    tools: call.tools.map((tool) => ({ type: 'function' as const, name: tool.name, description: tool.description, inputSchema: tool.parameters })),
    toolChoice: { type: call.toolChoice ?? ('auto' as const) },
  };
}

/** The whole prompt of a call in the provider interface's terms: the system prompt, the messages, then the tool loop so far. */
function sdkPrompt(call: AiCall) {
  return [...(call.system ? [{ role: 'system' as const, content: call.system }] : []), ...call.messages.map(promptMessage), ...toolTurnMessages(call.provider, call.toolTurns ?? [])];
}

/**
 * The SDK retries 429 and 5xx twice with backoff by default: up to ~6 s of a 30 s budget spent
 * waiting, and a 5xx may already have been billed. The user sees a clear message and can retry.
 */
const MAX_RETRIES = 0;

/** Aborts on the caller's signal or on the deadline, and remembers which one it was. */
function deadline(signal: AbortSignal, timeoutMs: number) {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error('timeout'));
  }, timeoutMs);
  const onAbort = () => controller.abort(new Error('client went away'));
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    /** Restarts the clock (the same timer, rescheduled): a stream that keeps talking is not cut off. */
    rearm() {
      if (!timedOut) timer.refresh();
    },
    stop() {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    },
    /** The kind of failure when the call was stopped by us rather than by the provider. */
    stoppedKind(): AiFailureKind | null {
      if (timedOut) return 'timeout';
      return signal.aborted ? 'aborted' : null;
    },
  };
}

/**
 * Usage the provider reported, or null when it reported none. No input at all is none too: a
 * prompt always costs tokens, and @ai-sdk/xai reports 0 and 0 for a stream that closed before
 * its usage came.
 */
function reported(input: number | undefined, output: number | undefined): TChatUsage | null {
  if (input === undefined && output === undefined) return null;
  if (!input && !output) return null;
  return { inputTokens: input ?? 0, outputTokens: output ?? 0 };
}

const fromProviderUsage = (usage: ProviderUsage): TChatUsage | null => reported(usage.inputTokens.total, usage.outputTokens.total);

/** An AI SDK finish reason: the provider interface's `{unified, raw}` (v4), or a plain string (older specifications). */
type SdkFinishReason = string | { unified: string; raw?: string | undefined } | undefined;

/**
 * The AI SDK's finish reason in our words (docs/decisions/0061). 'interrupted' is the SDK's word
 * for a stream that ended without its closing event (Anthropic, Gemini, OpenAI); @ai-sdk/deepseek
 * and @ai-sdk/xai say 'other' with no raw reason, having received none. @ai-sdk/xai reads a
 * non-streamed answer's `status` only ('incomplete'), so its `incomplete_details` are read from
 * the body.
 */
export function finishOf(reason: SdkFinishReason, { streamed, body }: { streamed: boolean; body?: unknown }): { finish: AiFinish; raw?: string } {
  const unified = typeof reason === 'string' ? reason : reason?.unified;
  const raw = typeof reason === 'string' ? undefined : reason?.raw;
  const withRaw = (finish: AiFinish) => ({ finish, ...(raw !== undefined ? { raw } : {}) });
  switch (unified) {
    case 'stop':
    case 'tool-calls':
      return withRaw('complete');
    case 'length':
      return withRaw('length');
    case 'content-filter':
      return withRaw('content-filter');
    case 'interrupted':
    case undefined:
      return withRaw(streamed ? 'connection-lost' : 'other');
    default:
      if (raw === undefined && streamed) return withRaw('connection-lost');
      if (raw === 'incomplete') return withRaw(incompleteFinish(body));
      return withRaw('other');
  }
}

/** A Responses body's `incomplete_details.reason` in our words. */
function incompleteFinish(body: unknown): AiFinish {
  const reason = (body as { incomplete_details?: { reason?: unknown } | null } | null | undefined)?.incomplete_details?.reason;
  if (reason === 'max_output_tokens') return 'length';
  if (reason === 'content_filter') return 'content-filter';
  return 'other';
}

/**
 * @ai-sdk/openai-compatible (Ollama) raises this when a stream ends without a finish reason: the
 * connection closed after the last text, which the other providers' packages report as a finish.
 */
function endedWithoutFinish(error: unknown): boolean {
  return InvalidResponseDataError.isInstance(error) && /ended without a finish reason/i.test(error.message);
}

function failure(call: Pick<AiCall, 'provider' | 'timeoutMs'>, kind: AiFailureKind, logCause: Record<string, unknown>): AiCallError {
  return new AiCallError(kind, userMessage(kind, CHAT_PROVIDER_INFO[call.provider].label, call.timeoutMs), logCause);
}

function toFailure(call: Pick<AiCall, 'provider' | 'timeoutMs'>, err: unknown, stopped: AiFailureKind | null): AiCallError {
  if (err instanceof AiCallError) return err;
  if (stopped) return failure(call, stopped, { reason: stopped });
  const { kind, logCause } = classifyProviderError(err);
  return failure(call, kind, logCause);
}

/** A failure after part of the answer streamed: the caller keeps the partial text and usage. */
export class AiStreamError extends AiCallError {
  readonly partialText: string;
  readonly usage: TChatUsage | null;

  constructor(cause: AiCallError, partialText: string, usage: TChatUsage | null) {
    super(cause.kind, cause.message, cause.logCause);
    this.name = 'AiStreamError';
    this.partialText = partialText;
    this.usage = usage;
  }
}

/**
 * One complete answer (the JSON mode), through the provider model's `doGenerate`, like the
 * streams' `doStream`: the tool calls come back with their arguments as the model wrote them
 * (`generateText` would parse and check them against a schema and keep an invalid call from us).
 * Throws AiCallError.
 */
export function generateChat(call: AiCall): Promise<AiAnswer> {
  return providerSpan(call, 'chat', () => generateOnce(call));
}

async function generateOnce(call: AiCall): Promise<AiAnswer> {
  const clock = deadline(call.signal, call.timeoutMs);
  try {
    const result = await createChatModel(call.provider, call.settings, call.model).doGenerate({
      prompt: sdkPrompt(call),
      ...sdkTools(call),
      maxOutputTokens: call.maxOutputTokens,
      temperature: call.temperature,
      abortSignal: clock.signal,
    });
    // finishOf reads xAI's incomplete_details from the body.
    const { finish, raw } = finishOf(result.finishReason, { streamed: false, body: result.response?.body });
    const text = result.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
    const toolCalls = result.content.flatMap((part) => (part.type === 'tool-call' && !part.providerExecuted ? [toolCallOf(part)] : []));
    // A JSON answer arrives whole or not at all; a finish it does not name is the provider's own.
    return {
      text,
      usage: fromProviderUsage(result.usage),
      finish: finish === 'connection-lost' ? 'other' : finish,
      ...(raw !== undefined ? { rawFinish: raw } : {}),
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
    };
  } catch (err) {
    throw toFailure(call, err, clock.stoppedKind());
  } finally {
    clock.stop();
  }
}

/** A provider interface tool call as ours: its input is the arguments' text as the model sent it (the interface keeps it unparsed). */
function toolCallOf(part: { toolCallId: string; toolName: string; input: unknown }): AiToolCall {
  return { id: part.toolCallId, name: part.toolName, argsText: typeof part.input === 'string' ? part.input : JSON.stringify(part.input) };
}

/**
 * Streams an answer, handing each text chunk to `onText` (awaited, so a slow client slows the
 * read from the provider instead of buffering without bound), and says how its provider ended it
 * and which tools the model called (each call whole, in the model's order).
 * Throws AiStreamError carrying the text already delivered, also when the stream closed without
 * the provider's closing event (kind 'connection_lost': the answer may not be whole).
 *
 * OpenAI's answers are read from its Responses API directly (openai-responses.ts,
 * docs/decisions/0058); the other providers' through the provider model's own stream
 * (`doStream`, the AI SDK's provider interface) rather than `streamText`: a chat turn needs no
 * tools, steps or telemetry, and skipping that machinery took ~1 ms off every answer's first
 * token (docs/decisions/0006).
 */
export function streamChat(call: AiCall, onText: (text: string) => void | Promise<void>): Promise<AiAnswer> {
  return providerSpan(call, 'chat', () => streamOnce(call, onText));
}

async function streamOnce(call: AiCall, onText: (text: string) => void | Promise<void>): Promise<AiAnswer> {
  const clock = deadline(call.signal, call.timeoutMs);
  let text = '';
  let usage: TChatUsage | null = null;
  const toolCalls: AiToolCall[] = [];
  let end: Extract<ChatStreamPart, { type: 'finish' }> | null = null;
  let streamError: unknown = null;
  try {
    const parts =
      call.provider === 'openai'
        ? streamResponses(
            {
              apiKey: call.settings.apiKey ?? '',
              baseUrl: call.settings.baseUrl,
              model: call.model,
              system: call.system,
              messages: call.messages,
              maxOutputTokens: call.maxOutputTokens,
              temperature: call.temperature,
              tools: call.tools,
              toolChoice: call.toolChoice,
              toolTurns: call.toolTurns,
            },
            clock.signal,
          )
        : sdkStream(call, clock.signal);
    for await (const part of parts) {
      clock.rearm();
      if (part.type === 'text') {
        if (part.text.length === 0) continue;
        text += part.text;
        await onText(part.text);
      } else if (part.type === 'tool-call') {
        toolCalls.push(part.call);
      } else if (part.type === 'progress') {
        // Rearmed above: a call's arguments streaming are the provider talking.
        continue;
      } else if (part.type === 'finish') {
        end = part;
        usage = part.usage && reported(part.usage.inputTokens, part.usage.outputTokens);
      } else {
        streamError = part.error;
        break;
      }
    }
  } catch (err) {
    streamError = err;
  } finally {
    clock.stop();
  }
  const stopped = clock.stoppedKind();
  if (streamError !== null || stopped) {
    throw new AiStreamError(toFailure(call, streamError, stopped), text, usage);
  }
  if (end === null || end.finish === 'connection-lost') {
    const cause = { reason: 'the stream ended without the provider’s closing event', ...(end?.raw ? { finishReason: end.raw } : {}) };
    throw new AiStreamError(failure(call, 'connection_lost', cause), text, usage);
  }
  return { text, usage, finish: end.finish, ...(end.raw !== undefined ? { rawFinish: end.raw } : {}), ...(toolCalls.length > 0 ? { toolCalls } : {}) };
}

/** An AI SDK provider model's stream (`doStream`), in the pieces streamChat reads. */
async function* sdkStream(call: AiCall, signal: AbortSignal): AsyncGenerator<ChatStreamPart, void, undefined> {
  const { stream } = await createChatModel(call.provider, call.settings, call.model).doStream({
    prompt: sdkPrompt(call),
    ...sdkTools(call),
    maxOutputTokens: call.maxOutputTokens,
    temperature: call.temperature,
    abortSignal: signal,
  });
  for await (const part of stream) {
    if (part.type === 'text-delta') yield { type: 'text', text: part.delta };
    // The whole call; the tool-input parts before it are its arguments as they streamed: not silence.
    else if (part.type === 'tool-call' && !part.providerExecuted) yield { type: 'tool-call', call: toolCallOf(part) };
    else if (part.type === 'tool-input-start' || part.type === 'tool-input-delta') yield { type: 'progress' };
    else if (part.type === 'finish') yield { type: 'finish', usage: fromProviderUsage(part.usage), ...finishOf(part.finishReason, { streamed: true }) };
    else if (part.type === 'error') {
      yield endedWithoutFinish(part.error) ? { type: 'finish', usage: null, finish: 'connection-lost' } : { type: 'error', error: part.error };
      return;
    }
  }
}

/** A structured answer's request: one question, answered as JSON that fits `schema`. */
export type AiStructuredCall = Omit<AiCall, 'messages' | 'temperature'> & {
  prompt: string;
  schema: JSONSchema7;
  /** The schema's name and description, where the provider takes them (OpenAI's and xAI's
   * `text.format.name`, the chat completions' `json_schema.name`, Anthropic's tool description). */
  schemaName: string;
  schemaDescription: string;
};

/**
 * A structured answer: its text (the JSON, unchecked: the caller parses and validates it), usage,
 * how it ended, and whether the provider refused: OpenAI's `refusal` content part, Anthropic's
 * `stop_reason: "refusal"` or a text-only answer where its tool was forced, Gemini's SAFETY
 * finish or blocked prompt (each a 'content-filter' finish in the AI SDK's words, but the
 * text-only answer).
 */
export type AiStructuredAnswer = Omit<AiAnswer, 'images'> & { refused: boolean };

/**
 * One structured answer, in each provider's own structured-output format, through the AI SDK
 * provider model's `doGenerate` (the request shapes are the SDKs'): OpenAI and xAI Responses
 * `text.format: {type: 'json_schema', strict: true, name, schema}`; Anthropic a tool named after
 * the schema whose `input_schema` is the schema, forced by `tool_choice: {type: 'tool', name}`
 * (given as a tool rather than a response format: the SDK's JSON tool is forced with `any`, or
 * replaced by `output_config.format` on models that have it); Gemini
 * `generationConfig.responseMimeType: 'application/json'` with `responseJsonSchema`; DeepSeek
 * `response_format: {type: 'json_object'}` with the schema in a system message (it has no
 * json_schema); Ollama `response_format: {type: 'json_schema'}` (models.ts turns it on).
 * Throws AiCallError.
 */
export function generateStructured(call: AiStructuredCall): Promise<AiStructuredAnswer> {
  return providerSpan(call, 'chat', () => generateStructuredOnce(call));
}

async function generateStructuredOnce(call: AiStructuredCall): Promise<AiStructuredAnswer> {
  const clock = deadline(call.signal, call.timeoutMs);
  try {
    const forcedTool = call.provider === 'anthropic';
    const result = await createChatModel(call.provider, call.settings, call.model).doGenerate({
      prompt: [...(call.system ? [{ role: 'system' as const, content: call.system }] : []), { role: 'user' as const, content: [{ type: 'text' as const, text: call.prompt }] }],
      ...(forcedTool
        ? { tools: [{ type: 'function' as const, name: call.schemaName, description: call.schemaDescription, inputSchema: call.schema }], toolChoice: { type: 'tool' as const, toolName: call.schemaName } }
        : { responseFormat: { type: 'json' as const, schema: call.schema, name: call.schemaName, description: call.schemaDescription } }),
      maxOutputTokens: call.maxOutputTokens,
      abortSignal: clock.signal,
    });
    // The forced tool's input is the answer; a text-only answer where the tool was forced is the model declining.
    const toolInput = result.content.find((part) => part.type === 'tool-call' && part.toolName === call.schemaName);
    const text = forcedTool ? (toolInput?.type === 'tool-call' ? toolInput.input : '') : result.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
    const { finish, raw } = finishOf(result.finishReason, { streamed: false, body: result.response?.body });
    const refused = finish === 'content-filter' || (forcedTool && toolInput === undefined);
    return {
      text,
      usage: fromProviderUsage(result.usage),
      finish: finish === 'connection-lost' ? 'other' : finish,
      ...(raw !== undefined ? { rawFinish: raw } : {}),
      refused,
    };
  } catch (err) {
    throw toFailure(call, err, clock.stoppedKind());
  } finally {
    clock.stop();
  }
}

/** grok-2-image-1212: one image for the last user message, as the provider's bytes. */
export function generateChatImage(call: AiCall): Promise<AiAnswer> {
  return providerSpan(call, 'generate_content', () => generateImageOnce(call));
}

async function generateImageOnce(call: AiCall): Promise<AiAnswer> {
  const prompt = [...call.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  const clock = deadline(call.signal, call.timeoutMs);
  try {
    const result = await generateImage({
      model: createImageModel(call.settings, call.model),
      prompt,
      n: 1,
      abortSignal: clock.signal,
      maxRetries: MAX_RETRIES,
    });
    const images = result.images.map((image) => ({ mediaType: image.mediaType, data: image.uint8Array }));
    return { text: images.length === 1 ? 'Here is the generated image.' : `Here are ${images.length} generated images.`, usage: null, finish: 'complete', images };
  } catch (err) {
    throw toFailure(call, err, clock.stoppedKind());
  } finally {
    clock.stop();
  }
}

/**
 * A provider call as a span (docs/decisions/0091), named and described as OpenTelemetry's
 * semantic conventions for generative AI say (`chat <model>`, gen_ai.* attributes), with the
 * usage the provider reported; nothing of the messages is recorded.
 */
function providerSpan<T extends { usage: TChatUsage | null; finish: string }>(call: Pick<AiCall, 'provider' | 'model'>, operation: 'chat' | 'generate_content', work: () => Promise<T>): Promise<T> {
  return inSpan(
    `${operation} ${call.model}`,
    { kind: SpanKind.CLIENT, attributes: { 'gen_ai.operation.name': operation, 'gen_ai.provider.name': call.provider, 'gen_ai.request.model': call.model } },
    async (span) => {
      const answer = await work();
      span?.setAttributes({
        'gen_ai.response.finish_reasons': [answer.finish],
        ...(answer.usage ? { 'gen_ai.usage.input_tokens': answer.usage.inputTokens, 'gen_ai.usage.output_tokens': answer.usage.outputTokens } : {}),
      });
      return answer;
    },
  );
}
