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
 * few milliseconds apart (`chunkDelayMs` slows them down, for answers still in flight).
 * Usage: input = ceil(prompt chars / 4), output = ceil(answer chars / 4).
 * Faults per provider, set at runtime: '401', '429', '500' answer that status in the
 * provider's error format; 'hang' never answers; 'cut' streams some chunks then destroys the
 * socket. Requests are recorded, and requests whose socket closed before the answer ended
 * are counted as aborted.
 *
 * Standalone (for Playwright): `node tests/fakes/ai-providers.ts` prints the env lines
 * (KEY=value) to point the server at it. FAKE_AI_PORT picks the port (default random). A
 * separate process is steered over HTTP: POST /__control/fault {provider, fault}, GET
 * /__control/requests.
 */
import { readJson, runStandalone, sendJson, startFakeHttpServer } from './http.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TChatProvider } from '../../contracts/chat.ts';

export const FAKE_AI_FAULTS = ['none', '401', '429', '500', 'hang', 'cut'] as const;
export type FakeAiFault = (typeof FAKE_AI_FAULTS)[number];

export type FakeAiRequest = { provider: TChatProvider; path: string; model: string; stream: boolean; body: Record<string, unknown> };

export type FakeAiProviders = {
  /** Each provider's base URL, as its SDK expects it. */
  baseUrls: Record<TChatProvider, string>;
  /** Every *_BASE_URL and *_API_KEY variable for createTestApp or a server process. */
  env: Record<string, string>;
  /** The keys the fake accepts. */
  keys: Record<Exclude<TChatProvider, 'llama'>, string>;
  setFault(provider: TChatProvider, fault: FakeAiFault): void;
  requests(): FakeAiRequest[];
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
  faults: Map<TChatProvider, FakeAiFault>;
  chunkDelayMs: number;
  requests: FakeAiRequest[];
  aborted: number;
  keys: Record<Exclude<TChatProvider, 'llama'>, string>;
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

export async function startFakeAiProviders(options: { port?: number; chunkDelayMs?: number } = {}): Promise<FakeAiProviders> {
  const state: State = { faults: new Map(), chunkDelayMs: options.chunkDelayMs ?? CHUNK_DELAY_MS, requests: [], aborted: 0, keys: FAKE_AI_KEYS };
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
    setFault: (provider, fault) => void state.faults.set(provider, fault),
    requests: () => [...state.requests],
    abortedCount: () => state.aborted,
    async waitForAborted(n, timeoutMs = 5_000) {
      const until = Date.now() + timeoutMs;
      while (state.aborted < n) {
        if (Date.now() > until) throw new Error(`expected ${n} aborted requests, saw ${state.aborted}`);
        await sleep(10);
      }
    },
    reset() {
      state.faults.clear();
      state.requests.length = 0;
      state.aborted = 0;
    },
    close,
  };
}

// ---------------------------------------------------------------------------------------------

async function handle(state: State, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://fake');
  const body = req.method === 'POST' ? await readJson(req) : {};
  if (url.pathname.startsWith('/__control/')) return control(state, url.pathname, body, res);

  const route = matchRoute(req.method ?? 'GET', url.pathname);
  if (!route) return sendJson(res, 404, { error: { message: `fake: no route ${req.method} ${url.pathname}` } });
  const { provider, api } = route;
  const stream = api === 'gemini' ? url.pathname.endsWith(':streamGenerateContent') : body.stream === true;
  const model = api === 'gemini' ? decodeURIComponent(/models\/([^:]+):/.exec(url.pathname)?.[1] ?? '') : String(body.model ?? '');
  state.requests.push({ provider, path: url.pathname, model, stream, body });

  if (provider !== 'llama' && !hasKey(provider, state.keys[provider], req)) {
    return sendError(res, api, 401, 'Incorrect API key provided.');
  }
  const fault = state.faults.get(provider) ?? 'none';
  if (fault === '401') return sendError(res, api, 401, 'Incorrect API key provided.');
  if (fault === '429') return sendError(res, api, 429, 'Rate limit reached for requests');
  if (fault === '500') return sendError(res, api, 500, 'The server had an error while processing your request.');
  if (fault === 'hang') return; // never answers; the close listener counts the abort
  if (fault === 'cut' && !stream) {
    cut(res);
    return;
  }

  if (api === 'image') {
    return sendJson(res, 200, { data: [{ b64_json: TINY_PNG_BASE64, revised_prompt: `An image of: ${lastUserText(api, body)}` }] });
  }
  const prompt = promptChars(api, body);
  const reply = `Reply to: ${lastUserText(api, body)}`;
  const usage = { input: Math.ceil(prompt / 4), output: Math.ceil(reply.length / 4) };
  if (!stream) return sendJson(res, 200, WIRE[api].json(model, reply, usage));

  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const chunks = split(reply, CHUNKS);
  const events = WIRE[api].stream(model, chunks, usage);
  let sent = 0;
  for (const event of events) {
    if (res.destroyed) return;
    if (fault === 'cut' && event.delta && sent >= 2) {
      cut(res); // mid-answer: the client has received some text
      return;
    }
    res.write(event.data);
    if (event.delta) {
      sent++;
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

function sendError(res: ServerResponse, api: Api, status: number, message: string): void {
  const type = status === 401 ? 'authentication_error' : status === 429 ? 'rate_limit_error' : 'api_error';
  if (api === 'anthropic') return sendJson(res, status, { type: 'error', error: { type, message } });
  if (api === 'gemini') return sendJson(res, status, { error: { code: status, message, status: type.toUpperCase() } });
  return sendJson(res, status, { error: { message, type, param: null, code: String(status) } });
}

// --- wire formats ----------------------------------------------------------------------------

type Usage = { input: number; output: number };
type WireEvent = { data: string; delta: boolean };
type Wire = { json(model: string, text: string, usage: Usage): unknown; stream(model: string, chunks: string[], usage: Usage): WireEvent[] };

const sse = (data: unknown, event?: string): string => `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;
const now = () => Math.floor(Date.now() / 1000);

function responsesMessage(text: string) {
  return { type: 'message', id: 'msg_fake', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [], logprobs: [] }] };
}
function responsesBody(model: string, text: string | null, usage: Usage | null) {
  return {
    id: 'resp_fake',
    object: 'response',
    created_at: now(),
    model,
    status: text === null ? 'in_progress' : 'completed',
    output: text === null ? [] : [responsesMessage(text)],
    ...(usage ? { usage: { input_tokens: usage.input, output_tokens: usage.output, total_tokens: usage.input + usage.output } } : {}),
  };
}

const WIRE: Record<Exclude<Api, 'image'>, Wire> = {
  responses: {
    json: (model, text, usage) => responsesBody(model, text, usage),
    stream: (model, chunks, usage) => {
      const text = chunks.join('');
      const item = { ...responsesMessage(''), status: 'in_progress', content: [] };
      return [
        { data: sse({ type: 'response.created', sequence_number: 0, response: responsesBody(model, null, null) }), delta: false },
        { data: sse({ type: 'response.output_item.added', sequence_number: 1, output_index: 0, item }), delta: false },
        ...chunks.map((delta, i) => ({
          data: sse({ type: 'response.output_text.delta', sequence_number: 2 + i, item_id: 'msg_fake', output_index: 0, content_index: 0, delta, logprobs: [] }),
          delta: true,
        })),
        { data: sse({ type: 'response.output_item.done', sequence_number: 90, output_index: 0, item: responsesMessage(text) }), delta: false },
        { data: sse({ type: 'response.completed', sequence_number: 91, response: responsesBody(model, text, usage) }), delta: false },
      ];
    },
  },
  chat: {
    json: (model, text, usage) => ({
      id: 'chatcmpl-fake',
      object: 'chat.completion',
      created: now(),
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output },
    }),
    stream: (model, chunks, usage) => {
      const chunk = (choices: unknown[], extra: object = {}) =>
        sse({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: now(), model, choices, ...extra });
      return [
        { data: chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]), delta: false },
        ...chunks.map((content) => ({ data: chunk([{ index: 0, delta: { content }, finish_reason: null }]), delta: true })),
        { data: chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]), delta: false },
        {
          data: chunk([], { usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output } }),
          delta: false,
        },
        { data: 'data: [DONE]\n\n', delta: false },
      ];
    },
  },
  anthropic: {
    json: (model, text, usage) => ({
      id: 'msg_fake',
      type: 'message',
      role: 'assistant',
      model,
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: usage.input, output_tokens: usage.output },
    }),
    stream: (model, chunks, usage) => [
      {
        data: sse(
          {
            type: 'message_start',
            message: { id: 'msg_fake', type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: usage.input, output_tokens: 1 } },
          },
          'message_start',
        ),
        delta: false,
      },
      { data: sse({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, 'content_block_start'), delta: false },
      ...chunks.map((text) => ({ data: sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }, 'content_block_delta'), delta: true })),
      { data: sse({ type: 'content_block_stop', index: 0 }, 'content_block_stop'), delta: false },
      {
        data: sse({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: usage.output } }, 'message_delta'),
        delta: false,
      },
      { data: sse({ type: 'message_stop' }, 'message_stop'), delta: false },
    ],
  },
  gemini: {
    json: (model, text, usage) => ({
      candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: usage.input, candidatesTokenCount: usage.output, totalTokenCount: usage.input + usage.output },
      modelVersion: model,
    }),
    stream: (model, chunks, usage) =>
      chunks.map((text, i) => {
        const last = i === chunks.length - 1;
        return {
          data: sse({
            candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0, ...(last ? { finishReason: 'STOP' } : {}) }],
            ...(last ? { usageMetadata: { promptTokenCount: usage.input, candidatesTokenCount: usage.output, totalTokenCount: usage.input + usage.output } } : {}),
            modelVersion: model,
          }),
          delta: true,
        };
      }),
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
  if (api === 'gemini') {
    const contents = (body.contents ?? []) as Array<{ role?: string; parts?: unknown }>;
    return contents.map((c) => ({ role: c.role === 'model' ? 'assistant' : 'user', text: contentText(c.parts) }));
  }
  const list = (api === 'responses' ? body.input : body.messages) ?? [];
  return (list as Array<{ role?: string; content?: unknown }>).map((m) => ({ role: String(m.role ?? ''), text: contentText(m.content) }));
}

function lastUserText(api: Api, body: Record<string, unknown>): string {
  return [...messagesOf(api, body)].reverse().find((m) => m.role === 'user')?.text ?? '';
}

function promptChars(api: Api, body: Record<string, unknown>): number {
  return messagesOf(api, body).reduce((sum, m) => sum + m.text.length, 0);
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
    if (!(provider in PREFIX) || !FAKE_AI_FAULTS.includes(fault)) return sendJson(res, 400, { error: 'provider or fault unknown' });
    state.faults.set(provider, fault);
    return sendJson(res, 200, { ok: true });
  }
  if (path === '/__control/requests') return sendJson(res, 200, { requests: state.requests, aborted: state.aborted });
  if (path === '/__control/reset') {
    state.faults.clear();
    state.requests.length = 0;
    state.aborted = 0;
    return sendJson(res, 200, { ok: true });
  }
  sendJson(res, 404, { error: 'unknown control' });
}


/** Connections the fake itself destroyed ('cut'): not client aborts. */
const cutByUs = new WeakSet<ServerResponse>();
function cut(res: ServerResponse): void {
  cutByUs.add(res);
  res.destroy();
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));


await runStandalone(import.meta.url, () => startFakeAiProviders({ port: Number(process.env.FAKE_AI_PORT ?? 0) }));
