/**
 * Fake AI providers for tests: ONE real HTTP server on 127.0.0.1 that speaks just enough of
 * each provider's wire format for the real AI SDK clients, streaming (SSE) and not:
 *
 *   OpenAI     POST /openai/v1/responses, /openai/v1/chat/completions     Bearer key
 *   Anthropic  POST /anthropic/v1/messages                                  x-api-key
 *   Gemini     POST /google/v1beta/models/{m}:generateContent | :streamGenerateContent?alt=sse   x-goog-api-key
 *   xAI        POST /xai/v1/responses, /xai/v1/chat/completions, /xai/v1/images/generations   Bearer key
 *   DeepSeek   POST /deepseek/chat/completions (and /deepseek/v1/...)      Bearer key
 *   Ollama     POST /ollama/v1/chat/completions                             no key
 *
 * The answer is deterministic: "Reply to: <last user message>", streamed in several chunks a
 * few milliseconds apart (`chunkDelayMs` slows them down, for answers still in flight;
 * `setLatency` holds every answer back before its first byte, like a busy provider;
 * `holdAfterFirstChunk` holds every streamed answer after its first chunk until released, like
 * a model still thinking mid-answer, so a test can see that chunk arrive before the rest exists).
 * A benchmark may give its own `answer` and stream it as providers do, a token (`chunkChars`
 * characters) per event.
 * Usage: input = ceil(prompt chars / 4), output = ceil(answer chars / 4). The output limit
 * each provider takes (OpenAI and xAI Responses `max_output_tokens`, chat completions
 * `max_tokens`, Anthropic `max_tokens` (required), Gemini `generationConfig.maxOutputTokens`)
 * is recorded per request and obeyed: a longer answer is cut to limit x 4 characters and ends
 * as the provider says so (`incomplete`, `length`, `max_tokens`, `MAX_TOKENS`). The system prompt
 * and temperature are recorded as each API carries them (OpenAI and xAI Responses: a system or
 * developer input item, or `instructions`; chat completions: a system message; Anthropic: the
 * top-level `system`; Gemini: `systemInstruction` and `generationConfig.temperature`), and
 * refused where the provider refuses them: a temperature to OpenAI's reasoning models (o3,
 * o4-mini), or above 1 to Anthropic, above 2 to the others. Images in a question are recorded
 * in each API's own shape (OpenAI and xAI Responses `input_image` with a data URL, chat
 * completions `image_url`, Anthropic an `image` block with a base64 `source`, Gemini
 * `inlineData`) with their type and size, and refused where the provider refuses them: bytes that
 * are not the type they are sent as, and any image to DeepSeek, which reads text only.
 *
 * Endings per provider (`setEnding`, FAKE_AI_ENDINGS; for every answer or one question): cut at
 * the output limit, a reasoning model that spent the limit thinking, a content filter, and a
 * stream whose connection closes after the last text without the closing event, each in the
 * provider's own events, finish reasons and usage (see `End` below).
 *
 * Faults per provider, set at runtime, answer what that provider really sends (its status and
 * error JSON): '401' a rejected key (Gemini and xAI say so with a 400), '429' rate limited,
 * 'quota' no credit left (Gemini: its daily quota spent, a 429 like any rate limit), '404' an
 * unknown model (DeepSeek answers 400), '500' a server error; 'stream-error' streams
 * some text then the provider's in-stream error event; 'hang' never answers; 'cut' streams some
 * chunks then destroys the socket. `setFault(provider, fault, message)` adds `message` to the
 * provider's usual text in the error body (to prove it never reaches a user). Requests
 * are recorded, and requests whose socket closed before the answer ended are counted as
 * aborted.
 *
 * Structured output (docs/decisions/0075), recorded per request as `structured` and answered
 * without streaming in each API's real shape: OpenAI and xAI Responses `text.format: {type:
 * 'json_schema', name, schema, strict}` (strict schemas are checked as OpenAI checks them:
 * every object's properties all required, `additionalProperties: false`, no `oneOf`; a 400
 * `invalid_json_schema` otherwise), Anthropic a forced tool (`tool_choice: {type: 'tool', name}`
 * naming one of `tools`, answered with a `tool_use` block and `stop_reason: "tool_use"`), Gemini
 * `generationConfig.responseMimeType: 'application/json'` with `responseJsonSchema` or
 * `responseSchema` (a schema without the JSON type is a 400), DeepSeek `response_format: {type:
 * 'json_object'}` (a 400 unless a message says "json", as DeepSeek requires), Ollama
 * `response_format: {type: 'json_schema', json_schema}`. What the model answers is set with
 * `setStructuredReply` (every question, or one): a JSON value; raw text (not JSON: DeepSeek's
 * blank content, a model's prose; Anthropic a text-only answer without its tool); a refusal
 * (OpenAI's `refusal` content part, Anthropic `stop_reason: "refusal"`, Gemini `finishReason:
 * "SAFETY"` with no content, chat completions `finish_reason: "content_filter"`); or, for Gemini,
 * a blocked prompt (`promptFeedback.blockReason`, no candidates). Usage as each API reports it.
 *
 * Tool calling (issue 31; ai-provider-tools.ts has each API's shapes). Every request records
 * the tools it offers, its tool choice, the calls the model made earlier and the results sent
 * back (`tools`, `toolChoice`, `toolCalls`, `toolResults`), each read in its API's own shape; a
 * tool loop the real API refuses (a result naming a call it has not seen, a call left without its
 * result), and a tool it cannot offer (a name outside the characters function names may use,
 * arguments whose schema is not an object), are refused with its 400 and error JSON (Ollama
 * checks none). What the model does with tools is scripted per provider with
 * `scriptTools(provider, steps)` (POST /__control/tools {provider, steps}): each request that
 * offers tools takes the next step, in order:
 * `{calls: [{name, arguments}]}` calls those tools (parallel when several; `arguments` is the raw
 * text the model writes, JSON or not), `{text, calls}` says something first, `{text}` is a final
 * answer; a request without a step left answers as without tools. With tool choice 'none' the
 * model calls nothing: a step with calls is left for the next request. Calls end as each API
 * ends them (Responses `status: "completed"`, chat completions `finish_reason: "tool_calls"`,
 * Anthropic `stop_reason: "tool_use"`, Gemini `finishReason: "STOP"`); arguments that are not a
 * JSON object cannot be Gemini's `args`, so Gemini ends such an answer
 * `finishReason: "MALFORMED_FUNCTION_CALL"` with no content, as it does, and Ollama, which parses
 * a model's call before sending it, leaves such a call in the answer's text.
 * The obedient model (`obey(provider, {pattern, call})`, or `obey` in the same control body), for
 * injection tests: while set, a request that offers tools and carries `pattern` anywhere but
 * inside a JSON string value of a tool result (in the system prompt, a user or assistant text,
 * a key of a JSON result, or a result that is not JSON) is answered with `call`, instead of its
 * script (whose next step is left in place). Usage counts the text and the arguments. Text and
 * arguments stream in two pieces each, or `chunkChars` characters a piece when that is set.
 *
 * Standalone (for Playwright): `node tests/fakes/ai-providers.ts` prints the env lines
 * (KEY=value) to point the server at it. FAKE_AI_PORT picks the port (default random). A
 * separate process is steered over HTTP: POST /__control/fault {provider, fault, message?},
 * POST /__control/ending {provider, ending, prompt?},
 * POST /__control/structured {provider, reply, prompt?},
 * POST /__control/tools {provider, steps?, obey?},
 * POST /__control/latency {ms}, POST /__control/reset, GET /__control/requests,
 * POST /__control/embed-as {text, as}, GET /__control/embedding-requests.
 *
 * Embeddings (issue 32): each provider's embeddings endpoint in its real shape, with
 * deterministic vectors (ai-embeddings.ts); `embedAs(text, as)` embeds one text as another;
 * `embeddingRequests()` lists them apart from the chat's requests. Faults apply to them too.
 */
import { readJson, runStandalone, sendJson, startFakeHttpServer } from './http.ts';
import {
  asOllamaAnswers,
  callId,
  invalidTools,
  invalidToolTurns,
  obeys,
  toolAnswerJson,
  toolAnswerStream,
  toolsOf,
  type FakeObey,
  type FakeToolAnswer,
  type FakeToolStep,
  type FakeToolsInRequest,
} from './ai-provider-tools.ts';
import { answerEmbeddings, embeddingRoute, newEmbeddingState, type EmbeddingState, type FakeEmbeddingRequest } from './ai-embeddings.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TChatProvider } from '../../contracts/chat.ts';

export const FAKE_AI_FAULTS = ['none', '401', '429', 'quota', '404', '500', 'stream-error', 'hang', 'cut'] as const;
export type FakeAiFault = (typeof FAKE_AI_FAULTS)[number];

/**
 * How an answer ends (each in the provider's own shape, streamed and as JSON): 'complete' by
 * itself (or at the output limit when the answer is longer than the limit allows); 'length' cut at
 * the output limit halfway through; 'thinking' a reasoning model that spent the whole limit
 * thinking and wrote nothing; 'content-filter' stopped by the provider's filter halfway;
 * 'no-close' (streams only) the connection closes after the last text without the provider's
 * closing event; 'no-usage' complete, but with no usage, as an OpenAI-compatible server that
 * ignores `stream_options.include_usage` answers (Anthropic always reports usage: its answer keeps it).
 */
export const FAKE_AI_ENDINGS = ['complete', 'length', 'thinking', 'content-filter', 'no-close', 'no-usage'] as const;
export type FakeAiEnding = (typeof FAKE_AI_ENDINGS)[number];

/** What a model answers a structured request with (see the header). */
export type FakeStructuredReply = { kind: 'json'; value: unknown } | { kind: 'text'; text: string } | { kind: 'refusal' } | { kind: 'blocked' };

/** A request's structured-output ask, read where its API carries it. */
export type FakeAiStructured = {
  /** Responses `text.format`, chat completions `response_format`, Anthropic's forced tool, Gemini's generationConfig. */
  format: 'json_schema' | 'json_object' | 'tool' | 'responseJsonSchema' | 'responseSchema';
  name: string | undefined;
  strict: boolean | undefined;
  schema: unknown;
};

export type { FakeObey, FakeToolCallScript, FakeToolStep, FakeToolsInRequest } from './ai-provider-tools.ts';

export type FakeAiRequest = FakeToolsInRequest & {
  provider: TChatProvider;
  path: string;
  model: string;
  stream: boolean;
  /** The output limit in the provider's own field; undefined when none was sent. */
  maxOutputTokens: number | undefined;
  /** The system prompt, read from where the provider's API carries it; undefined when none. */
  system: string | undefined;
  /** The sampling temperature in the provider's own field; undefined when none was sent. */
  temperature: number | undefined;
  /** The last user message's text. */
  prompt: string;
  /** The images the request carries, in order: the API's part name, the type sent and the bytes' size. */
  images: FakeAiImage[];
  /** The structured output asked for; undefined for a plain text answer. */
  structured: FakeAiStructured | undefined;
  body: Record<string, unknown>;
};

export type FakeAiImage = { part: 'input_image' | 'image_url' | 'image' | 'inlineData'; mediaType: string; bytes: number };

export type FakeAiProviders = {
  /** Each provider's base URL, as its SDK expects it. */
  baseUrls: Record<TChatProvider, string>;
  /** Every *_BASE_URL and *_API_KEY variable for createTestApp or a server process. */
  env: Record<string, string>;
  /** The keys the fake accepts. */
  keys: Record<Exclude<TChatProvider, 'llama'>, string>;
  /** `message`: added to the provider's usual text in the error body. */
  setFault(provider: TChatProvider, fault: FakeAiFault, message?: string): void;
  /** How the provider's answers end from now on: every answer, or only those to the question `prompt`. */
  setEnding(provider: TChatProvider, ending: FakeAiEnding, options?: { prompt?: string }): void;
  /** What structured requests are answered with from now on: every one to the provider, or only those to the question `prompt`. */
  setStructuredReply(provider: TChatProvider, reply: FakeStructuredReply, options?: { prompt?: string }): void;
  /** What the model does with the next requests that offer tools, in order (appended to any steps left). */
  scriptTools(provider: TChatProvider, steps: FakeToolStep[]): void;
  /** The obedient model (see the header); null stops it. */
  obey(provider: TChatProvider, rule: FakeObey | null): void;
  /** Holds every answer back this long before its first byte (0: answer at once). */
  setLatency(ms: number): void;
  /** From now on, each streamed answer stops after its first text chunk until `release()`. */
  holdAfterFirstChunk(): { release(): void };
  requests(): FakeAiRequest[];
  /** From now on, `text` is embedded as `as` would be (a vector-only match a test can make). */
  embedAs(text: string, as: string): void;
  /** The embeddings requests, in order. */
  embeddingRequests(): FakeEmbeddingRequest[];
  /** Requests whose connection closed before the fake finished answering. */
  abortedCount(): number;
  /** Resolves when `abortedCount()` reaches n (polling; rejects after `timeoutMs`). */
  waitForAborted(n: number, timeoutMs?: number): Promise<void>;
  reset(): void;
  close(): Promise<void>;
};

const PREFIX: Record<TChatProvider, string> = {
  openai: 'openai',
  anthropic: 'anthropic',
  gemini: 'google',
  grok: 'xai',
  deepseek: 'deepseek',
  llama: 'ollama',
};
const CHUNKS = 4;
const CHUNK_DELAY_MS = 10;
/** A 1x1 transparent PNG. */
export const TINY_PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYGD4DwABBAEAghC0DgAAAABJRU5ErkJggg==';

type State = {
  faults: Map<TChatProvider, { fault: FakeAiFault; message?: string }>;
  /** Keyed by provider, or provider and question (endingKey). */
  endings: Map<string, FakeAiEnding>;
  /** Keyed like `endings`. */
  structured: Map<string, FakeStructuredReply>;
  toolSteps: Map<TChatProvider, FakeToolStep[]>;
  obey: Map<TChatProvider, FakeObey>;
  chunkDelayMs: number;
  latencyMs: number;
  /** While set, streams wait on it after their first text chunk. */
  hold: Promise<void> | null;
  requests: FakeAiRequest[];
  aborted: number;
  keys: Record<Exclude<TChatProvider, 'llama'>, string>;
  answer?: (question: string) => string;
  chunkChars?: number;
  embeddings: EmbeddingState;
};

/** The keys the fake accepts (anything else gets a 401). */
export const FAKE_AI_KEYS: Record<Exclude<TChatProvider, 'llama'>, string> = {
  openai: 'sk-fake-openai-key-0001',
  anthropic: 'sk-ant-fake-anthropic-key-0001',
  gemini: 'fake-google-key-0001',
  grok: 'xai-fake-key-0001',
  deepseek: 'sk-fake-deepseek-key-0001',
};

/** Each provider's base URL on a fake listening at `root` (http://127.0.0.1:PORT). */
export function fakeAiBaseUrls(root: string): Record<TChatProvider, string> {
  return {
    openai: `${root}/openai/v1`,
    anthropic: `${root}/anthropic/v1`,
    gemini: `${root}/google/v1beta`,
    grok: `${root}/xai/v1`,
    deepseek: `${root}/deepseek`,
    llama: `${root}/ollama`,
  };
}

/** The server's environment for a fake at `root`: every base URL and key. */
export function fakeAiEnv(root: string): Record<string, string> {
  const baseUrls = fakeAiBaseUrls(root);
  return {
    OPENAI_BASE_URL: baseUrls.openai,
    ANTHROPIC_BASE_URL: baseUrls.anthropic,
    GOOGLE_AI_BASE_URL: baseUrls.gemini,
    XAI_BASE_URL: baseUrls.grok,
    DEEPSEEK_BASE_URL: baseUrls.deepseek,
    OLLAMA_BASE_URL: baseUrls.llama,
    OPENAI_API_KEY: FAKE_AI_KEYS.openai,
    ANTHROPIC_API_KEY: FAKE_AI_KEYS.anthropic,
    GOOGLE_GENERATIVE_AI_API_KEY: FAKE_AI_KEYS.gemini,
    XAI_API_KEY: FAKE_AI_KEYS.grok,
    DEEPSEEK_API_KEY: FAKE_AI_KEYS.deepseek,
  };
}

export type FakeAiOptions = {
  port?: number;
  chunkDelayMs?: number;
  /** The answer to a question, instead of "Reply to: <question>". */
  answer?: (question: string) => string;
  /** Streams the answer this many characters per event (a token is ~4), instead of in 4 parts. */
  chunkChars?: number;
};

export async function startFakeAiProviders(options: FakeAiOptions = {}): Promise<FakeAiProviders> {
  const state: State = {
    faults: new Map(),
    endings: new Map(),
    structured: new Map(),
    toolSteps: new Map(),
    obey: new Map(),
    chunkDelayMs: options.chunkDelayMs ?? CHUNK_DELAY_MS,
    latencyMs: 0,
    hold: null,
    requests: [],
    aborted: 0,
    keys: FAKE_AI_KEYS,
    answer: options.answer,
    chunkChars: options.chunkChars,
    embeddings: newEmbeddingState(),
  };
  const { root, close } = await startFakeHttpServer(
    'fake AI providers',
    options.port ?? 0,
    (req, res) => {
      res.on('close', () => {
        if (!res.writableFinished && !cutByUs.has(res)) state.aborted++;
      });
      return handle(state, req, res);
    },
    { error: { message: 'fake failed' } },
  );
  const baseUrls = fakeAiBaseUrls(root);
  const env = fakeAiEnv(root);

  return {
    baseUrls,
    env,
    keys: state.keys,
    setFault: (provider, fault, message) => void state.faults.set(provider, { fault, message }),
    setEnding: (provider, ending, { prompt } = {}) => void state.endings.set(endingKey(provider, prompt), ending),
    setStructuredReply: (provider, reply, { prompt } = {}) => void state.structured.set(endingKey(provider, prompt), reply),
    scriptTools: (provider, steps) => void state.toolSteps.set(provider, [...(state.toolSteps.get(provider) ?? []), ...steps]),
    obey: (provider, rule) => void (rule ? state.obey.set(provider, rule) : state.obey.delete(provider)),
    setLatency: (ms) => void (state.latencyMs = ms),
    holdAfterFirstChunk() {
      let release!: () => void;
      const hold = new Promise<void>((resolve) => (release = resolve));
      state.hold = hold;
      return {
        release() {
          if (state.hold === hold) state.hold = null;
          release();
        },
      };
    },
    requests: () => [...state.requests],
    embedAs: (text, as) => void state.embeddings.aliases.set(text, as),
    embeddingRequests: () => [...state.embeddings.requests],
    abortedCount: () => state.aborted,
    async waitForAborted(n, timeoutMs = 5_000) {
      const until = Date.now() + timeoutMs;
      while (state.aborted < n) {
        if (Date.now() > until) throw new Error(`expected ${n} aborted requests, saw ${state.aborted}`);
        await sleep(10);
      }
    },
    reset: () => resetState(state),
    close,
  };
}

// ---------------------------------------------------------------------------------------------

async function handle(state: State, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://fake');
  const body = req.method === 'POST' ? await readJson(req) : {};
  if (url.pathname.startsWith('/__control/')) return control(state, url.pathname, body, res);

  const embeddings = embeddingRoute(req.method ?? 'GET', url.pathname);
  if (embeddings) {
    const { provider } = embeddings;
    const model = provider === 'gemini' ? decodeURIComponent(/models\/([^:]+):/.exec(url.pathname)?.[1] ?? '') : String(body.model ?? '');
    if (state.latencyMs > 0) await sleep(state.latencyMs);
    if (provider !== 'llama' && !hasKey(provider, state.keys[provider], req)) return sendError(res, provider, '401', model);
    const { fault, message } = state.faults.get(provider) ?? { fault: 'none' as const };
    if (fault === '401' || fault === '429' || fault === 'quota' || fault === '404' || fault === '500') return sendError(res, provider, fault, model, message);
    if (fault === 'hang') return;
    return answerEmbeddings(state.embeddings, embeddings, url.pathname, body, res);
  }

  const route = matchRoute(req.method ?? 'GET', url.pathname);
  if (!route) return sendJson(res, 404, { error: { message: `fake: no route ${req.method} ${url.pathname}` } });
  const { provider, api } = route;
  const stream = api === 'gemini' ? url.pathname.endsWith(':streamGenerateContent') : body.stream === true;
  const model = api === 'gemini' ? decodeURIComponent(/models\/([^:]+):/.exec(url.pathname)?.[1] ?? '') : String(body.model ?? '');
  const maxOutputTokens = outputLimit(api, body);
  const temperature = temperatureOf(api, body);
  const images = imagesOf(api, body);
  const structured = structuredOf(api, body);
  const tools = api === 'image' ? { tools: [], toolChoice: undefined, toolCalls: [], toolResults: [] } : toolsOf(api, body);
  state.requests.push({
    ...tools,
    provider,
    path: url.pathname,
    model,
    stream,
    maxOutputTokens,
    system: systemPrompt(api, body),
    temperature,
    prompt: lastUserText(api, body),
    images: images.map(({ part, mediaType, bytes }) => ({ part, mediaType, bytes })),
    structured,
    body,
  });
  if (state.latencyMs > 0) await sleep(state.latencyMs);
  if (res.destroyed) return;

  if (provider !== 'llama' && !hasKey(provider, state.keys[provider], req)) return sendError(res, provider, '401', model);
  const invalid =
    invalidLimit(api, maxOutputTokens) ??
    invalidTemperature(api, model, temperature) ??
    invalidImages(provider, api, images) ??
    invalidStructured(provider, api, body, structured) ??
    (api === 'image' ? null : (invalidTools(provider, api, tools.tools) ?? invalidToolTurns(provider, api, body)));
  if (invalid) return sendJson(res, 400, invalid);
  const { fault, message } = state.faults.get(provider) ?? { fault: 'none' as const };
  if (fault === '401' || fault === '429' || fault === 'quota' || fault === '404' || fault === '500') return sendError(res, provider, fault, model, message);
  if (fault === 'hang') return; // never answers; the close listener counts the abort
  if ((fault === 'cut' || fault === 'stream-error') && !stream) {
    cut(res);
    return;
  }

  if (api === 'image') {
    return sendJson(res, 200, { data: [{ b64_json: TINY_PNG_BASE64, revised_prompt: `An image of: ${lastUserText(api, body)}` }] });
  }
  const prompt = promptChars(api, body);
  const question = lastUserText(api, body);
  if (structured && !stream) {
    const reply = state.structured.get(endingKey(provider, question)) ?? state.structured.get(endingKey(provider)) ?? { kind: 'json', value: { reply: `Reply to: ${question}` } };
    return sendJson(res, 200, structuredAnswer(api, model, reply, Math.ceil(prompt / 4), maxOutputTokens, structured.name));
  }
  const step = tools.tools.length > 0 && !structured ? nextToolStep(state, provider, api, body, tools.toolChoice) : null;
  if (step?.calls?.length) {
    const said = step.text ?? '';
    const calls = step.calls.map((call) => ({ ...call, id: callId(provider) }));
    const made: FakeToolAnswer = { text: said, calls, input: Math.ceil(prompt / 4), output: Math.max(1, Math.ceil((said.length + calls.reduce((sum, c) => sum + c.name.length + c.arguments.length, 0)) / 4)) };
    const answer = provider === 'llama' ? asOllamaAnswers(made) : made;
    if (!stream) return sendJson(res, 200, toolAnswerJson(api, model, answer));
    return sendEvents(state, res, toolAnswerStream(api, model, answer, { wholeCalls: provider === 'llama', pieceChars: state.chunkChars }), fault, message, provider, api);
  }
  const full = step?.text ?? (state.answer ? state.answer(question) : `Reply to: ${question}`);
  const end = ending(stateEnding(state, provider, question), full, question, maxOutputTokens, Math.ceil(prompt / 4));
  if (!stream) return sendJson(res, 200, WIRE[api].json(model, end.text, end));

  const chunks = state.chunkChars ? splitEvery(end.text, state.chunkChars) : split(end.text, CHUNKS);
  return sendEvents(state, res, WIRE[api].stream(model, chunks, end), fault, message, provider, api);
}

/**
 * What the model does with this request's tools: the obedient model's call when its pattern
 * reaches the model as other than data, else the next scripted step (a step with calls stays
 * for later when the tool choice forbids calls); null: answer as without tools.
 */
function nextToolStep(state: State, provider: TChatProvider, api: Exclude<Api, 'image'>, body: Record<string, unknown>, toolChoice: string | undefined): FakeToolStep | null {
  const canCall = toolChoice !== 'none';
  const rule = state.obey.get(provider);
  // The system and developer messages are read as the system text (where a sources block's strings are data, issue 32).
  const texts = messagesOf(api, body)
    .filter((m) => m.role !== 'tool' && m.role !== 'system' && m.role !== 'developer')
    .map((m) => m.text);
  if (canCall && rule && obeys(api, body, systemPrompt(api, body), texts, rule.pattern)) return { calls: [rule.call] };
  const steps = state.toolSteps.get(provider) ?? [];
  const next = steps[0];
  if (!next || (!canCall && next.calls?.length)) return null;
  steps.shift();
  return next;
}

/** Streams the events of an answer, with the provider's fault (a cut, an error event) after some text, and the test's hold. */
async function sendEvents(
  state: State,
  res: ServerResponse,
  events: WireEvent[],
  fault: FakeAiFault,
  message: string | undefined,
  provider: TChatProvider,
  api: Api,
): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  let sent = 0;
  for (const event of events) {
    if (res.destroyed) return;
    if (event.delta && sent >= 2) {
      if (fault === 'cut') {
        cut(res); // mid-answer: the client has received some text
        return;
      }
      if (fault === 'stream-error') {
        res.end(streamError(provider, api, message));
        return;
      }
    }
    res.write(event.data);
    if (event.delta) {
      sent++;
      if (sent === 1 && state.hold) await state.hold;
      await sleep(state.chunkDelayMs);
    }
  }
  res.end();
}

type Api = 'responses' | 'chat' | 'anthropic' | 'gemini' | 'image';

function matchRoute(method: string, path: string): { provider: TChatProvider; api: Api } | null {
  if (method !== 'POST') return null;
  const [, prefix, ...rest] = path.split('/');
  const provider = (Object.keys(PREFIX) as TChatProvider[]).find((p) => PREFIX[p] === prefix);
  if (!provider) return null;
  const tail = `/${rest.join('/')}`.replace(/^\/v1\//, '/');
  if (provider === 'gemini') return /^\/v1beta\/models\/[^/]+:(stream)?[gG]enerateContent$/.test(tail) ? { provider, api: 'gemini' } : null;
  if (provider === 'anthropic') return tail === '/messages' ? { provider, api: 'anthropic' } : null;
  if (tail === '/chat/completions') return { provider, api: 'chat' };
  if (tail === '/responses' && (provider === 'openai' || provider === 'grok')) return { provider, api: 'responses' };
  if (tail === '/images/generations' && provider === 'grok') return { provider, api: 'image' };
  return null;
}

function hasKey(provider: TChatProvider, key: string, req: IncomingMessage): boolean {
  if (provider === 'anthropic') return req.headers['x-api-key'] === key;
  if (provider === 'gemini') return req.headers['x-goog-api-key'] === key;
  return req.headers.authorization === `Bearer ${key}`;
}

/** Each provider's own field for the output limit; undefined when the request has none. */
function outputLimit(api: Api, body: Record<string, unknown>): number | undefined {
  const value =
    api === 'responses'
      ? body.max_output_tokens
      : api === 'gemini'
        ? (body.generationConfig as { maxOutputTokens?: unknown } | undefined)?.maxOutputTokens
        : api === 'chat'
          ? (body.max_completion_tokens ?? body.max_tokens)
          : api === 'anthropic'
            ? body.max_tokens
            : undefined;
  return typeof value === 'number' ? value : undefined;
}

/** Each provider's own field for the temperature. */
function temperatureOf(api: Api, body: Record<string, unknown>): number | undefined {
  const value = api === 'gemini' ? (body.generationConfig as { temperature?: unknown } | undefined)?.temperature : api === 'image' ? undefined : body.temperature;
  return typeof value === 'number' ? value : undefined;
}

/** The system prompt where each API carries it: Responses `instructions` or system/developer
 * input items, chat completions system/developer messages, Anthropic's top-level `system` (a
 * string or text blocks), Gemini's `systemInstruction`. */
function systemPrompt(api: Api, body: Record<string, unknown>): string | undefined {
  let parts: string[] = [];
  if (api === 'anthropic') parts = [contentText(body.system)];
  else if (api === 'gemini') parts = [contentText((body.systemInstruction as { parts?: unknown } | undefined)?.parts)];
  else if (api === 'responses' || api === 'chat') {
    if (api === 'responses' && typeof body.instructions === 'string') parts.push(body.instructions);
    const list = ((api === 'responses' ? body.input : body.messages) ?? []) as Array<{ role?: string; content?: unknown }>;
    parts.push(...list.filter((m) => m.role === 'system' || m.role === 'developer').map((m) => contentText(m.content)));
  }
  const text = parts.filter(Boolean).join('\n\n');
  return text === '' ? undefined : text;
}

/** What the providers answer to a temperature they do not take (their status and error JSON). */
function invalidTemperature(api: Api, model: string, temperature: number | undefined): unknown {
  if (temperature === undefined) return null;
  if (api === 'responses' && /^o\d/.test(model)) {
    return { error: { message: "Unsupported parameter: 'temperature' is not supported with this model.", type: 'invalid_request_error', param: 'temperature', code: 'unsupported_parameter' } };
  }
  if (api === 'anthropic' && (temperature < 0 || temperature > 1)) {
    return { type: 'error', error: { type: 'invalid_request_error', message: 'temperature: range: 0..1' }, request_id: 'req_fake' };
  }
  if (api === 'gemini' && (temperature < 0 || temperature > 2)) {
    return { error: { code: 400, message: `Unable to submit request because it has a temperature value of ${temperature} but the supported range is from 0 (inclusive) to 2.0001 (exclusive).`, status: 'INVALID_ARGUMENT' } };
  }
  if ((api === 'responses' || api === 'chat') && (temperature < 0 || temperature > 2)) {
    return {
      error: {
        message: `Invalid 'temperature': decimal above maximum value. Expected a value <= 2, but got ${temperature} instead.`,
        type: 'invalid_request_error',
        param: 'temperature',
        code: 'decimal_above_max_value',
      },
    };
  }
  return null;
}

/**
 * The images of a request, read where each API carries them (as data URLs or base64, as the SDKs
 * send our uploads): OpenAI and xAI Responses `{type: 'input_image', image_url: 'data:...'}`,
 * chat completions `{type: 'image_url', image_url: {url: 'data:...'}}`, Anthropic
 * `{type: 'image', source: {type: 'base64', media_type, data}}`, Gemini `{inlineData: {mimeType, data}}`.
 */
function imagesOf(api: Api, body: Record<string, unknown>): Array<FakeAiImage & { data: Buffer }> {
  const found: Array<FakeAiImage & { data: Buffer }> = [];
  const fromDataUrl = (part: FakeAiImage['part'], url: unknown) => {
    const match = typeof url === 'string' ? /^data:([^;,]+);base64,(.*)$/s.exec(url) : null;
    if (match) found.push({ part, mediaType: match[1]!, bytes: Buffer.from(match[2]!, 'base64').length, data: Buffer.from(match[2]!, 'base64') });
  };
  const parts = (content: unknown): Array<Record<string, unknown>> => (Array.isArray(content) ? content.filter((p): p is Record<string, unknown> => !!p && typeof p === 'object') : []);
  if (api === 'gemini') {
    for (const c of (body.contents ?? []) as Array<{ parts?: unknown }>) {
      for (const p of parts(c.parts)) {
        const inline = p.inlineData as { mimeType?: string; data?: string } | undefined;
        if (inline?.data) found.push({ part: 'inlineData', mediaType: String(inline.mimeType), bytes: Buffer.from(inline.data, 'base64').length, data: Buffer.from(inline.data, 'base64') });
      }
    }
  } else if (api === 'responses' || api === 'chat' || api === 'anthropic') {
    for (const m of ((api === 'responses' ? body.input : body.messages) ?? []) as Array<{ content?: unknown }>) {
      for (const p of parts(m.content)) {
        if (api === 'responses' && p.type === 'input_image') fromDataUrl('input_image', p.image_url);
        if (api === 'chat' && p.type === 'image_url') fromDataUrl('image_url', (p.image_url as { url?: unknown } | undefined)?.url);
        const source = p.source as { type?: string; media_type?: string; data?: string } | undefined;
        if (api === 'anthropic' && p.type === 'image' && source?.type === 'base64' && source.data) {
          found.push({ part: 'image', mediaType: String(source.media_type), bytes: Buffer.from(source.data, 'base64').length, data: Buffer.from(source.data, 'base64') });
        }
      }
    }
  }
  return found;
}

/** The type an image's bytes are, by their signature (what the providers check too). */
function imageTypeOf(bytes: Buffer): string | null {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (/^GIF8[79]a/.test(bytes.subarray(0, 6).toString('latin1'))) return 'image/gif';
  if (bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  return null;
}

/** What the providers answer to images they cannot take: DeepSeek takes none; the others refuse bytes that are not the type sent. */
function invalidImages(provider: TChatProvider, api: Api, images: Array<FakeAiImage & { data: Buffer }>): unknown {
  if (images.length === 0) return null;
  if (provider === 'deepseek') {
    return { error: { message: 'Failed to deserialize the JSON body into the target type: messages[0]: unknown variant `image_url`, expected `text`', type: 'invalid_request_error', param: null, code: 'invalid_request_error' } };
  }
  const bad = images.find((image) => imageTypeOf(image.data) !== image.mediaType);
  if (!bad) return null;
  if (api === 'anthropic') return { type: 'error', error: { type: 'invalid_request_error', message: `Image does not match the provided media type ${bad.mediaType}` }, request_id: 'req_fake' };
  if (api === 'gemini') return { error: { code: 400, message: 'Provided image is not valid.', status: 'INVALID_ARGUMENT' } };
  return { error: { message: "You uploaded an unsupported image. Please make sure your image is valid and of one of the following formats: ['png', 'jpeg', 'gif', 'webp'].", type: 'invalid_request_error', param: null, code: 'invalid_image_format' } };
}

/** What the providers answer to a bad limit: Anthropic requires one, OpenAI's Responses refuses < 16. */
function invalidLimit(api: Api, limit: number | undefined): unknown {
  if (api === 'anthropic' && limit === undefined) {
    return { type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: Field required' }, request_id: 'req_fake' };
  }
  if (api === 'responses' && limit !== undefined && limit < 16) {
    return {
      error: {
        message: `Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got ${limit} instead.`,
        type: 'invalid_request_error',
        param: 'max_output_tokens',
        code: 'integer_below_min_value',
      },
    };
  }
  return null;
}

type ErrorFault = '401' | '429' | 'quota' | '404' | '500';

/**
 * The status and JSON each provider really answers for a fault (from their API references and
 * the errors users report): OpenAI-style `{error: {message, type, param, code}}` (OpenAI,
 * DeepSeek, Ollama), Anthropic `{type: 'error', error: {type, message}}`, Google
 * `{error: {code, message, status, details}}` and xAI `{code, error}`.
 */
function sendError(res: ServerResponse, provider: TChatProvider, fault: ErrorFault, model: string, message?: string): void {
  const [status, body] = errorAnswer(provider, fault, model, message);
  sendJson(res, status, body);
}

function errorAnswer(provider: TChatProvider, fault: ErrorFault, model: string, extra?: string): [number, unknown] {
  const text = (message: string) => (extra ? `${message} ${extra}` : message);
  const openAiStyle = (status: number, message: string, type: string, code: string | null): [number, unknown] => [
    status,
    { error: { message: text(message), type, param: null, code } },
  ];
  switch (provider) {
    case 'openai':
      if (fault === '401') return openAiStyle(401, 'Incorrect API key provided: sk-fake***0001. You can find your API key at https://platform.openai.com/account/api-keys.', 'invalid_request_error', 'invalid_api_key');
      if (fault === '429') return openAiStyle(429, `Rate limit reached for ${model} in organization org-fake on requests per min (RPM): Limit 500, Used 500, Requested 1. Please try again in 120ms.`, 'requests', 'rate_limit_exceeded');
      if (fault === 'quota') return openAiStyle(429, 'You exceeded your current quota, please check your plan and billing details.', 'insufficient_quota', 'insufficient_quota');
      if (fault === '404') return openAiStyle(404, `The model \`${model}\` does not exist or you do not have access to it.`, 'invalid_request_error', 'model_not_found');
      return openAiStyle(500, 'The server had an error while processing your request. Sorry about that!', 'server_error', null);
    case 'anthropic': {
      const error = (status: number, type: string, message: string): [number, unknown] => [status, { type: 'error', error: { type, message: text(message) }, request_id: 'req_fake' }];
      if (fault === '401') return error(401, 'authentication_error', 'invalid x-api-key');
      if (fault === '429') return error(429, 'rate_limit_error', 'Number of requests has exceeded your per-minute rate limit. Please try again later.');
      if (fault === 'quota') return error(400, 'invalid_request_error', 'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.');
      if (fault === '404') return error(404, 'not_found_error', `model: ${model}`);
      return error(500, 'api_error', 'Internal server error');
    }
    case 'gemini': {
      const error = (status: number, googleStatus: string, message: string, details?: unknown[]): [number, unknown] => [
        status,
        { error: { code: status, message: text(message), status: googleStatus, ...(details ? { details } : {}) } },
      ];
      if (fault === '401') {
        return error(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [
          { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com', metadata: { service: 'generativelanguage.googleapis.com' } },
        ]);
      }
      if (fault === '429') return error(429, 'RESOURCE_EXHAUSTED', 'Resource has been exhausted (e.g. check quota).');
      // Google's quotas are per minute and per day: a spent quota is a rate limit that resets.
      if (fault === 'quota') {
        return error(429, 'RESOURCE_EXHAUSTED', 'You exceeded your current quota, please check your plan and billing details.', [
          { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests', quotaId: 'GenerateRequestsPerDayPerProjectPerModel-FreeTier' }] },
          { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '47s' },
        ]);
      }
      if (fault === '404') return error(404, 'NOT_FOUND', `models/${model} is not found for API version v1beta, or is not supported for generateContent.`);
      return error(500, 'INTERNAL', 'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting');
    }
    case 'grok': {
      const error = (status: number, code: string, message: string): [number, unknown] => [status, { code, error: text(message) }];
      if (fault === '401') return error(400, 'Client specified an invalid argument', 'Incorrect API key provided: xa***01. You can obtain an API key from https://console.x.ai.');
      if (fault === '429') return error(429, 'Some resource has been exhausted', 'Too many requests. Please slow down.');
      if (fault === 'quota') {
        return error(429, 'Some resource has been exhausted', 'Your team fake-team has either used all available credits or reached its monthly spending limit. To continue making API requests, please purchase more credits or raise your spending limit.');
      }
      if (fault === '404') return error(404, 'Some requested entity was not found', `The model ${model} does not exist or your team does not have access to it.`);
      return error(500, 'Internal error', 'Service temporarily unavailable. The model is overloaded.');
    }
    case 'deepseek':
      if (fault === '401') return openAiStyle(401, 'Authentication Fails, Your api key: ****0001 is invalid', 'authentication_error', 'invalid_request_error');
      if (fault === '429') return openAiStyle(429, 'Rate Limit Reached', 'rate_limit_error', 'invalid_request_error');
      if (fault === 'quota') return openAiStyle(402, 'Insufficient Balance', 'unknown_error', 'invalid_request_error');
      if (fault === '404') return openAiStyle(400, 'Model Not Exist', 'invalid_request_error', 'invalid_request_error'); // DeepSeek's unknown model
      return openAiStyle(500, 'Server Error', 'server_error', 'internal_error');
    case 'llama':
      // Ollama's OpenAI-compatible errors; it has no keys or credit.
      if (fault === '404') return openAiStyle(404, `model "${model}" not found, try pulling it first`, 'api_error', null);
      if (fault === '429') return openAiStyle(429, 'server busy, please try again.  maximum pending requests exceeded', 'api_error', null);
      if (fault === '401' || fault === 'quota') return openAiStyle(401, 'unauthorized', 'api_error', null);
      return openAiStyle(500, 'llama runner process has terminated: exit status 2', 'api_error', null);
  }
}

/** The provider's error event inside a stream that had begun (its server failed mid-answer). */
function streamError(provider: TChatProvider, api: Api, extra?: string): string {
  const text = (message: string) => (extra ? `${message} ${extra}` : message);
  if (api === 'anthropic') return sse({ type: 'error', error: { type: 'overloaded_error', message: text('Overloaded') } }, 'error');
  if (api === 'responses') {
    return sse({ type: 'error', code: 'server_error', message: text('The server had an error while processing your request.'), param: null, sequence_number: 50 }, 'error');
  }
  if (api === 'gemini') return sse({ error: { code: 503, message: text('The model is overloaded. Please try again later.'), status: 'UNAVAILABLE' } });
  return sse({ error: { message: text(`${provider}: the server had an error while processing your request`), type: 'server_error', param: null, code: null } });
}

// --- structured output ------------------------------------------------------------------------

/** The structured output a request asks for, where its API carries it (see the header). */
function structuredOf(api: Api, body: Record<string, unknown>): FakeAiStructured | undefined {
  if (api === 'responses') {
    const format = (body.text as { format?: Record<string, unknown> } | undefined)?.format;
    if (format?.type === 'json_schema') return { format: 'json_schema', name: str(format.name), strict: bool(format.strict), schema: format.schema };
    if (format?.type === 'json_object') return { format: 'json_object', name: undefined, strict: undefined, schema: undefined };
    return undefined;
  }
  if (api === 'chat') {
    const format = body.response_format as { type?: string; json_schema?: Record<string, unknown> } | undefined;
    if (format?.type === 'json_schema') return { format: 'json_schema', name: str(format.json_schema?.name), strict: bool(format.json_schema?.strict), schema: format.json_schema?.schema };
    if (format?.type === 'json_object') return { format: 'json_object', name: undefined, strict: undefined, schema: undefined };
    return undefined;
  }
  if (api === 'anthropic') {
    // A tool is forced by naming it, or by `any` when it is the only one (Anthropic's tool use guide).
    const choice = body.tool_choice as { type?: string; name?: string } | undefined;
    const tools = (body.tools ?? []) as Array<{ name?: string; input_schema?: unknown }>;
    const name = choice?.type === 'tool' ? choice.name : choice?.type === 'any' && tools.length === 1 ? tools[0]!.name : undefined;
    if (name === undefined) return undefined;
    return { format: 'tool', name, strict: undefined, schema: tools.find((t) => t.name === name)?.input_schema };
  }
  if (api === 'gemini') {
    const config = (body.generationConfig ?? {}) as Record<string, unknown>;
    if (config.responseJsonSchema !== undefined) return { format: 'responseJsonSchema', name: undefined, strict: undefined, schema: config.responseJsonSchema };
    if (config.responseSchema !== undefined) return { format: 'responseSchema', name: undefined, strict: undefined, schema: config.responseSchema };
    if (config.responseMimeType === 'application/json') return { format: 'json_object', name: undefined, strict: undefined, schema: undefined };
  }
  return undefined;
}
const str = (value: unknown) => (typeof value === 'string' ? value : undefined);
const bool = (value: unknown) => (typeof value === 'boolean' ? value : undefined);

/** What each provider answers to a structured request it refuses (its status 400 and error JSON). */
function invalidStructured(provider: TChatProvider, api: Api, body: Record<string, unknown>, structured: FakeAiStructured | undefined): unknown {
  if (api === 'anthropic' && (body.tool_choice as { type?: string } | undefined)?.type === 'tool' && structured?.schema === undefined) {
    return { type: 'error', error: { type: 'invalid_request_error', message: `tool_choice.name: Tool '${structured?.name}' not found in provided tools` }, request_id: 'req_fake' };
  }
  if (!structured) return null;
  if (provider === 'deepseek' && structured.format === 'json_schema') {
    return { error: { message: 'This response_format type is unavailable now', type: 'invalid_request_error', param: null, code: 'invalid_request_error' } };
  }
  if (structured.format === 'json_object' && (api === 'chat' || api === 'responses')) {
    const said = [...messagesOf(api, body).map((m) => m.text), systemPrompt(api, body) ?? ''].some((text) => /json/i.test(text));
    if (!said) {
      return { error: { message: "Prompt must contain the word 'json' in some form to use 'response_format' of type 'json_object'.", type: 'invalid_request_error', param: 'messages', code: null } };
    }
  }
  if (api === 'gemini' && structured.format !== 'json_object' && (body.generationConfig as { responseMimeType?: unknown }).responseMimeType !== 'application/json') {
    return { error: { code: 400, message: 'Invalid JSON payload received. response_mime_type must be application/json when a response schema is set.', status: 'INVALID_ARGUMENT' } };
  }
  if ((provider === 'openai' || provider === 'grok') && structured.format === 'json_schema' && structured.strict === true) {
    const problem = strictSchemaProblem(structured.schema, []);
    if (problem) {
      return { error: { message: `Invalid schema for response_format '${structured.name ?? 'response'}': ${problem}`, type: 'invalid_request_error', param: 'text.format.schema', code: 'invalid_json_schema' } };
    }
  }
  return null;
}

/** OpenAI's strict-mode rules, as its 400 words them: every object lists each property in `required` and sets `additionalProperties: false`; no `oneOf`. */
function strictSchemaProblem(node: unknown, path: string[]): string | null {
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) {
      const problem = strictSchemaProblem(item, [...path, String(i)]);
      if (problem) return problem;
    }
    return null;
  }
  if (!node || typeof node !== 'object') return null;
  const schema = node as Record<string, unknown>;
  const context = `In context=(${path.map((p) => `'${p}'`).join(', ')})`;
  if ('oneOf' in schema) return `${context}, 'oneOf' is not permitted.`;
  if (schema.type === 'object' || schema.properties) {
    const keys = Object.keys((schema.properties as object | undefined) ?? {});
    const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
    const missing = keys.find((k) => !required.includes(k));
    if (missing) return `${context}, 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`;
    if (schema.additionalProperties !== false) return `${context}, 'additionalProperties' is required to be supplied and to be false.`;
  }
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'enum' || key === 'const' || key === 'required') continue;
    const problem = strictSchemaProblem(value, [...path, key]);
    if (problem) return problem;
  }
  return null;
}

/**
 * A structured answer as each API sends it without streaming: the JSON (or the text) where that
 * API puts an answer, a refusal in its own shape, and its usage.
 */
function structuredAnswer(api: Api, model: string, reply: FakeStructuredReply, input: number, limit: number | undefined, toolName = 'json'): unknown {
  const whole = reply.kind === 'json' ? JSON.stringify(reply.value) : reply.kind === 'text' ? reply.text : '';
  // Longer than the output limit: cut there, and the answer says so (Anthropic's tool input aside: it arrives whole or not at all here).
  const cut = api !== 'anthropic' && limit !== undefined && Math.ceil(whole.length / 4) > limit;
  const text = cut ? whole.slice(0, limit * 4) : whole;
  const output = Math.max(1, Math.ceil(text.length / 4));
  const end: End = { text, reported: true, input, output, reasoningTokens: 0, reasoning: null, stop: reply.kind === 'refusal' || reply.kind === 'blocked' ? 'filter' : cut ? 'length' : 'stop', closed: true };
  switch (api) {
    case 'responses': {
      const body = responsesBody(model, reply.kind === 'refusal' ? { ...end, stop: 'stop' } : end);
      if (reply.kind !== 'refusal') return body;
      // A refusal is a content part of its own in a completed message (OpenAI's structured outputs guide).
      const refusal = "I'm sorry, but I can't help with that request.";
      return { ...body, output: [{ ...responsesMessage(''), content: [{ type: 'refusal', refusal }] }], usage: { ...body.usage, output_tokens: Math.ceil(refusal.length / 4) } };
    }
    case 'chat':
      // Chat completions: DeepSeek and Ollama have no refusal field; their filter ends the answer with `content_filter`.
      return WIRE.chat.json(model, text, end);
    case 'anthropic': {
      const usage = { input_tokens: input, output_tokens: output };
      const base = { id: 'msg_fake', type: 'message', role: 'assistant', model, stop_sequence: null, usage };
      if (reply.kind === 'refusal' || reply.kind === 'blocked') return { ...base, content: [], stop_reason: 'refusal', usage: { ...usage, output_tokens: 0 } };
      if (reply.kind === 'text') return { ...base, content: [{ type: 'text', text }], stop_reason: 'end_turn' };
      return { ...base, content: [{ type: 'tool_use', id: 'toolu_fake', name: toolName, input: reply.value }], stop_reason: 'tool_use' };
    }
    case 'gemini': {
      const safety = [{ category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'HIGH', blocked: true }];
      if (reply.kind === 'blocked') return { promptFeedback: { blockReason: 'SAFETY', safetyRatings: safety }, usageMetadata: { promptTokenCount: input, totalTokenCount: input }, modelVersion: model };
      if (reply.kind === 'refusal') {
        return { candidates: [{ content: { role: 'model' }, finishReason: 'SAFETY', safetyRatings: safety, index: 0 }], usageMetadata: { promptTokenCount: input, totalTokenCount: input }, modelVersion: model };
      }
      return WIRE.gemini.json(model, text, end);
    }
    default:
      return WIRE.chat.json(model, text, end);
  }
}

// --- wire formats ----------------------------------------------------------------------------

/**
 * How an answer ends, in every provider's own words (from their API references and streaming
 * guides): `stop` it ended by itself; `length` it reached the output limit it was given (OpenAI
 * and xAI Responses `response.incomplete` with `incomplete_details.reason: "max_output_tokens"`,
 * chat completions `finish_reason: "length"`, Anthropic `stop_reason: "max_tokens"`, Gemini
 * `finishReason: "MAX_TOKENS"`); `filter` a content filter stopped it (`content_filter`,
 * Anthropic's `refusal`, Gemini's `SAFETY`). `reasoning`: what a reasoning model thought before
 * (or instead of) answering, sent as each API streams it (Responses a reasoning output item,
 * DeepSeek `reasoning_content`, Ollama `reasoning`, Anthropic a `thinking` block, Gemini only
 * `thoughtsTokenCount`: it sends no thoughts unless asked). `closed` false: the connection closes
 * after the last text without the provider's closing event (no `response.completed`, finish
 * reason, `[DONE]`, `message_delta`/`message_stop`, last `finishReason` or usage).
 */
type End = {
  text: string;
  /** false: the answer carries no usage. */
  reported: boolean;
  input: number;
  output: number;
  reasoningTokens: number;
  reasoning: string | null;
  stop: 'stop' | 'length' | 'filter';
  closed: boolean;
};

/** The answer and its end, for the ending asked for (a longer answer than the limit allows is cut there whatever the ending). */
function ending(kind: FakeAiEnding, full: string, question: string, limit: number | undefined, input: number): End {
  const base = { input, reasoningTokens: 0, reasoning: null, closed: true, reported: true };
  const tokens = (text: string) => Math.ceil(text.length / 4);
  switch (kind) {
    case 'length': {
      // Cut at the limit: the provider reports the whole limit spent.
      const text = full.slice(0, Math.ceil(full.length / 2));
      return { ...base, text, output: limit ?? tokens(text), stop: 'length' };
    }
    case 'thinking': {
      // A reasoning model that spent the whole limit thinking: no text at all.
      const spent = limit ?? 1024;
      return { ...base, text: '', output: spent, reasoningTokens: spent, reasoning: `Thinking about: ${question}`, stop: 'length' };
    }
    case 'content-filter': {
      const text = full.slice(0, Math.ceil(full.length / 2));
      return { ...base, text, output: tokens(text), stop: 'filter' };
    }
    case 'no-close':
    case 'no-usage':
    case 'complete': {
      const truncated = limit !== undefined && tokens(full) > limit;
      const text = truncated ? full.slice(0, limit * 4) : full;
      return { ...base, text, output: tokens(text), stop: truncated ? 'length' : 'stop', closed: kind !== 'no-close', reported: kind !== 'no-usage' };
    }
  }
}

type WireEvent = { data: string; delta: boolean };
type Wire = { json(model: string, text: string, end: End): unknown; stream(model: string, chunks: string[], end: End): WireEvent[] };

const sse = (data: unknown, event?: string): string => `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;
const now = () => Math.floor(Date.now() / 1000);
/** Two pieces of the reasoning, streamed as deltas before any text. */
const reasoningChunks = (end: End): string[] => (end.reasoning ? split(end.reasoning, 2) : []);

function responsesMessage(text: string) {
  return { type: 'message', id: 'msg_fake', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [], logprobs: [] }] };
}
/** A reasoning output item (xAI also sends its summary; OpenAI only when one is asked for). */
function responsesReasoning(end: End) {
  return { type: 'reasoning', id: 'rs_fake', status: end.stop === 'stop' ? 'completed' : 'incomplete', summary: [{ type: 'summary_text', text: end.reasoning ?? '' }] };
}
const RESPONSES_INCOMPLETE: Record<End['stop'], string | null> = { stop: null, length: 'max_output_tokens', filter: 'content_filter' };
function responsesBody(model: string, end: End | null) {
  const reason = end ? RESPONSES_INCOMPLETE[end.stop] : null;
  return {
    id: 'resp_fake',
    object: 'response',
    created_at: now(),
    model,
    status: end === null ? 'in_progress' : reason ? 'incomplete' : 'completed',
    incomplete_details: reason ? { reason } : null,
    output: end === null ? [] : [...(end.reasoning ? [responsesReasoning(end)] : []), ...(end.text || !end.reasoning ? [responsesMessage(end.text)] : [])],
    ...(end && !end.reported ? { usage: null } : {}),
    ...(end?.reported
      ? {
          usage: {
            input_tokens: end.input,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: end.output,
            output_tokens_details: { reasoning_tokens: end.reasoningTokens },
            total_tokens: end.input + end.output,
          },
        }
      : {}),
  };
}

const CHAT_FINISH: Record<End['stop'], string> = { stop: 'stop', length: 'length', filter: 'content_filter' };
const chatUsage = (end: End) => ({
  prompt_tokens: end.input,
  completion_tokens: end.output,
  total_tokens: end.input + end.output,
  completion_tokens_details: { reasoning_tokens: end.reasoningTokens },
});
const ANTHROPIC_STOP: Record<End['stop'], string> = { stop: 'end_turn', length: 'max_tokens', filter: 'refusal' };
const GEMINI_FINISH: Record<End['stop'], string> = { stop: 'STOP', length: 'MAX_TOKENS', filter: 'SAFETY' };
const geminiUsage = (end: End) => ({
  promptTokenCount: end.input,
  ...(end.output - end.reasoningTokens > 0 ? { candidatesTokenCount: end.output - end.reasoningTokens } : {}),
  ...(end.reasoningTokens > 0 ? { thoughtsTokenCount: end.reasoningTokens } : {}),
  totalTokenCount: end.input + end.output,
});
/** Gemini's candidate as it ends: a filtered one carries the rating that blocked it. */
const geminiEnd = (end: End) => ({
  finishReason: GEMINI_FINISH[end.stop],
  ...(end.stop === 'filter' ? { safetyRatings: [{ category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'HIGH', blocked: true }] } : {}),
});

const WIRE: Record<Exclude<Api, 'image'>, Wire> = {
  responses: {
    json: (model, _text, end) => responsesBody(model, end),
    stream: (model, chunks, end) => {
      const item = { ...responsesMessage(''), status: 'in_progress', content: [] };
      const reasoning = end.reasoning ? responsesReasoning(end) : null;
      const events: WireEvent[] = [{ data: sse({ type: 'response.created', sequence_number: 0, response: responsesBody(model, null) }), delta: false }];
      if (reasoning) {
        events.push(
          { data: sse({ type: 'response.output_item.added', sequence_number: 1, output_index: 0, item: { ...reasoning, status: 'in_progress', summary: [] } }), delta: false },
          ...reasoningChunks(end).map((delta, i) => ({
            data: sse({ type: 'response.reasoning_summary_text.delta', sequence_number: 2 + i, item_id: 'rs_fake', output_index: 0, summary_index: 0, delta }),
            delta: true,
          })),
          { data: sse({ type: 'response.output_item.done', sequence_number: 10, output_index: 0, item: reasoning }), delta: false },
        );
      }
      const at = reasoning ? 1 : 0;
      if (chunks.length > 0 || !reasoning) {
        events.push(
          { data: sse({ type: 'response.output_item.added', sequence_number: 11, output_index: at, item }), delta: false },
          ...chunks.map((delta, i) => ({
            data: sse({ type: 'response.output_text.delta', sequence_number: 12 + i, item_id: 'msg_fake', output_index: at, content_index: 0, delta, logprobs: [] }),
            delta: true,
          })),
        );
        if (end.closed) events.push({ data: sse({ type: 'response.output_item.done', sequence_number: 90, output_index: at, item: responsesMessage(end.text) }), delta: false });
      }
      if (end.closed) {
        const type = RESPONSES_INCOMPLETE[end.stop] ? 'response.incomplete' : 'response.completed';
        events.push({ data: sse({ type, sequence_number: 91, response: responsesBody(model, end) }), delta: false });
      }
      return events;
    },
  },
  chat: {
    json: (model, text, end) => ({
      id: 'chatcmpl-fake',
      object: 'chat.completion',
      created: now(),
      model,
      // DeepSeek names a reasoning model's thoughts `reasoning_content`, Ollama `reasoning`.
      choices: [{ index: 0, message: { role: 'assistant', content: text, ...(end.reasoning ? { reasoning_content: end.reasoning, reasoning: end.reasoning } : {}) }, finish_reason: CHAT_FINISH[end.stop] }],
      ...(end.reported ? { usage: chatUsage(end) } : {}),
    }),
    stream: (model, chunks, end) => {
      const chunk = (choices: unknown[], extra: object = {}) =>
        sse({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: now(), model, choices, ...extra });
      return [
        { data: chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]), delta: false },
        ...reasoningChunks(end).map((thought) => ({ data: chunk([{ index: 0, delta: { content: null, reasoning_content: thought, reasoning: thought }, finish_reason: null }]), delta: true })),
        ...chunks.map((content) => ({ data: chunk([{ index: 0, delta: { content }, finish_reason: null }]), delta: true })),
        ...(end.closed
          ? [
              { data: chunk([{ index: 0, delta: {}, finish_reason: CHAT_FINISH[end.stop] }]), delta: false },
              ...(end.reported ? [{ data: chunk([], { usage: chatUsage(end) }), delta: false }] : []),
              { data: 'data: [DONE]\n\n', delta: false },
            ]
          : []),
      ];
    },
  },
  anthropic: {
    json: (model, text, end) => ({
      id: 'msg_fake',
      type: 'message',
      role: 'assistant',
      model,
      content: [...(end.reasoning ? [{ type: 'thinking', thinking: end.reasoning, signature: 'fake-signature' }] : []), ...(text || !end.reasoning ? [{ type: 'text', text }] : [])],
      stop_reason: ANTHROPIC_STOP[end.stop],
      stop_sequence: null,
      usage: { input_tokens: end.input, output_tokens: end.output },
    }),
    stream: (model, chunks, end) => {
      const events: WireEvent[] = [
        {
          data: sse(
            {
              type: 'message_start',
              message: { id: 'msg_fake', type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: end.input, output_tokens: 1 } },
            },
            'message_start',
          ),
          delta: false,
        },
      ];
      if (end.reasoning) {
        events.push(
          { data: sse({ type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } }, 'content_block_start'), delta: false },
          ...reasoningChunks(end).map((thinking) => ({ data: sse({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking } }, 'content_block_delta'), delta: true })),
          { data: sse({ type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'fake-signature' } }, 'content_block_delta'), delta: false },
          { data: sse({ type: 'content_block_stop', index: 0 }, 'content_block_stop'), delta: false },
        );
      }
      const at = end.reasoning ? 1 : 0;
      if (chunks.length > 0 || !end.reasoning) {
        events.push(
          { data: sse({ type: 'content_block_start', index: at, content_block: { type: 'text', text: '' } }, 'content_block_start'), delta: false },
          ...chunks.map((text) => ({ data: sse({ type: 'content_block_delta', index: at, delta: { type: 'text_delta', text } }, 'content_block_delta'), delta: true })),
        );
        if (end.closed) events.push({ data: sse({ type: 'content_block_stop', index: at }, 'content_block_stop'), delta: false });
      }
      if (end.closed) {
        events.push(
          { data: sse({ type: 'message_delta', delta: { stop_reason: ANTHROPIC_STOP[end.stop], stop_sequence: null }, usage: { output_tokens: end.output } }, 'message_delta'), delta: false },
          { data: sse({ type: 'message_stop' }, 'message_stop'), delta: false },
        );
      }
      return events;
    },
  },
  gemini: {
    json: (model, text, end) => ({
      // A model that used its whole limit thinking answers a candidate with no parts.
      candidates: [{ content: text ? { role: 'model', parts: [{ text }] } : { role: 'model' }, ...geminiEnd(end), index: 0 }],
      ...(end.reported ? { usageMetadata: geminiUsage(end) } : {}),
      modelVersion: model,
    }),
    stream: (model, chunks, end) => {
      const events = chunks.map((text, i) => {
        const last = end.closed && i === chunks.length - 1 && end.stop !== 'filter';
        return {
          data: sse({
            candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0, ...(last ? geminiEnd(end) : {}) }],
            ...(last && end.reported ? { usageMetadata: geminiUsage(end) } : {}),
            modelVersion: model,
          }),
          delta: true,
        };
      });
      // Its end in a chunk of its own when no text carries it: a filter that stopped the answer, a model that only thought.
      if (end.closed && (chunks.length === 0 || end.stop === 'filter')) {
        events.push({ data: sse({ candidates: [{ content: { role: 'model' }, ...geminiEnd(end), index: 0 }], usageMetadata: geminiUsage(end), modelVersion: model }), delta: false });
      }
      return events;
    },
  },
};

// --- prompt reading ----------------------------------------------------------------------------

/** Text of a message's content in any of the formats: a string, or parts with `text`. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '')).join('');
  return '';
}

function messagesOf(api: Api, body: Record<string, unknown>): Array<{ role: string; text: string }> {
  if (api === 'image') return [{ role: 'user', text: String(body.prompt ?? '') }];
  // A user turn that only carries tool results (Anthropic `tool_result` blocks, Gemini `functionResponse` parts) is the tools' turn, not a question.
  const onlyResults = (parts: unknown, key: string) => Array.isArray(parts) && parts.length > 0 && parts.every((p: Record<string, unknown> | null) => !!p && (key in p || p.type === key));
  if (api === 'gemini') {
    const contents = (body.contents ?? []) as Array<{ role?: string; parts?: unknown }>;
    return contents.map((c) => ({ role: c.role === 'model' ? 'assistant' : onlyResults(c.parts, 'functionResponse') ? 'tool' : 'user', text: contentText(c.parts) }));
  }
  const list = (api === 'responses' ? body.input : body.messages) ?? [];
  return (list as Array<{ role?: string; content?: unknown }>).map((m) => ({
    role: api === 'anthropic' && m.role === 'user' && onlyResults(m.content, 'tool_result') ? 'tool' : String(m.role ?? ''),
    text: contentText(m.content),
  }));
}

function lastUserText(api: Api, body: Record<string, unknown>): string {
  return [...messagesOf(api, body)].reverse().find((m) => m.role === 'user')?.text ?? '';
}

/** What the prompt's usage counts: every message, and the system instructions where they are apart from them. */
function promptChars(api: Api, body: Record<string, unknown>): number {
  const messages = messagesOf(api, body).reduce((sum, m) => sum + m.text.length, 0);
  // Responses and chat completions carry the system prompt among their messages already.
  return messages + (api === 'anthropic' || api === 'gemini' ? (systemPrompt(api, body)?.length ?? 0) : 0);
}

/** Splits text into pieces of `size` characters (the last shorter). */
function splitEvery(text: string, size: number): string[] {
  const parts: string[] = [];
  for (let i = 0; i < text.length; i += size) parts.push(text.slice(i, i + size));
  return parts;
}

/** Splits text into n pieces of near-equal length (fewer when the text is short). */
function split(text: string, n: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / n));
  const parts: string[] = [];
  for (let i = 0; i < text.length; i += size) parts.push(text.slice(i, i + size));
  return parts;
}

// --- plumbing ------------------------------------------------------------------------------------

function control(state: State, path: string, body: Record<string, unknown>, res: ServerResponse): void {
  if (path === '/__control/fault') {
    const provider = body.provider as TChatProvider;
    const fault = body.fault as FakeAiFault;
    const message = typeof body.message === 'string' ? body.message : undefined;
    if (!(provider in PREFIX) || !FAKE_AI_FAULTS.includes(fault)) return sendJson(res, 400, { error: 'provider or fault unknown' });
    state.faults.set(provider, { fault, message });
    return sendJson(res, 200, { ok: true });
  }
  if (path === '/__control/ending') {
    const provider = body.provider as TChatProvider;
    const ending = body.ending as FakeAiEnding;
    const prompt = typeof body.prompt === 'string' ? body.prompt : undefined;
    if (!(provider in PREFIX) || !FAKE_AI_ENDINGS.includes(ending)) return sendJson(res, 400, { error: 'provider or ending unknown' });
    state.endings.set(endingKey(provider, prompt), ending);
    return sendJson(res, 200, { ok: true });
  }
  if (path === '/__control/structured') {
    const provider = body.provider as TChatProvider;
    const reply = body.reply as FakeStructuredReply | undefined;
    const prompt = typeof body.prompt === 'string' ? body.prompt : undefined;
    if (!(provider in PREFIX) || !reply || !['json', 'text', 'refusal', 'blocked'].includes(reply.kind)) return sendJson(res, 400, { error: 'provider or reply unknown' });
    state.structured.set(endingKey(provider, prompt), reply);
    return sendJson(res, 200, { ok: true });
  }
  if (path === '/__control/tools') {
    const provider = body.provider as TChatProvider;
    if (!(provider in PREFIX)) return sendJson(res, 400, { error: 'provider unknown' });
    const isCall = (c: unknown) => !!c && typeof c === 'object' && typeof (c as { name?: unknown }).name === 'string' && typeof (c as { arguments?: unknown }).arguments === 'string';
    const steps = body.steps ?? [];
    const stepsOk =
      Array.isArray(steps) &&
      steps.every(
        (step: { text?: unknown; calls?: unknown }) =>
          !!step && (step.text === undefined || typeof step.text === 'string') && (step.calls === undefined || (Array.isArray(step.calls) && step.calls.every(isCall))) && (step.text !== undefined || step.calls !== undefined),
      );
    if (!stepsOk) return sendJson(res, 400, { error: 'steps: each is {text} or {calls: [{name, arguments: string}]} or both' });
    const obey = body.obey as { pattern?: unknown; call?: unknown } | null | undefined;
    if (obey && (typeof obey.pattern !== 'string' || obey.pattern === '' || !isCall(obey.call))) return sendJson(res, 400, { error: 'obey: {pattern: string, call: {name, arguments: string}}' });
    state.toolSteps.set(provider, [...(state.toolSteps.get(provider) ?? []), ...(steps as FakeToolStep[])]);
    if (obey) state.obey.set(provider, obey as FakeObey);
    else if (obey === null) state.obey.delete(provider);
    return sendJson(res, 200, { ok: true });
  }
  if (path === '/__control/latency') {
    const ms = body.ms;
    if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 0) return sendJson(res, 400, { error: 'ms must be a whole number >= 0' });
    state.latencyMs = ms;
    return sendJson(res, 200, { ok: true });
  }
  if (path === '/__control/requests') return sendJson(res, 200, { requests: state.requests, aborted: state.aborted });
  if (path === '/__control/embedding-requests') return sendJson(res, 200, { requests: state.embeddings.requests });
  if (path === '/__control/embed-as') {
    if (typeof body.text !== 'string' || typeof body.as !== 'string') return sendJson(res, 400, { error: 'text and as must be strings' });
    state.embeddings.aliases.set(body.text, body.as);
    return sendJson(res, 200, { ok: true });
  }
  if (path === '/__control/reset') {
    resetState(state);
    return sendJson(res, 200, { ok: true });
  }
  sendJson(res, 404, { error: 'unknown control' });
}

function resetState(state: State): void {
  state.faults.clear();
  state.embeddings.aliases.clear();
  state.embeddings.requests.length = 0;
  state.endings.clear();
  state.structured.clear();
  state.toolSteps.clear();
  state.obey.clear();
  state.latencyMs = 0;
  state.hold = null;
  state.requests.length = 0;
  state.aborted = 0;
}

const endingKey = (provider: TChatProvider, prompt?: string) => (prompt === undefined ? provider : `${provider}\u0000${prompt}`);
/** The ending set for this question, else for the provider, else 'complete'. */
const stateEnding = (state: State, provider: TChatProvider, question: string): FakeAiEnding =>
  state.endings.get(endingKey(provider, question)) ?? state.endings.get(endingKey(provider)) ?? 'complete';

/** Connections the fake itself destroyed ('cut'): not client aborts. */
const cutByUs = new WeakSet<ServerResponse>();
function cut(res: ServerResponse): void {
  cutByUs.add(res);
  res.destroy();
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));


await runStandalone(import.meta.url, () => startFakeAiProviders({ port: Number(process.env.FAKE_AI_PORT ?? 0) }));
