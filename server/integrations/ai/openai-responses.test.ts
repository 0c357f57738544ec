import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createOpenAI } from '@ai-sdk/openai';
// The SDK's own request builder: what our request must stay equal to (only read by this test).
import { OpenAIResponsesLanguageModel } from '@ai-sdk/openai/internal';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CHAT_PROVIDER_INFO } from '../../../contracts/chat.ts';
import { freePort } from '../../../tests/e2e/support/app-server.ts';
import { startFakeAiProviders, TINY_PNG_BASE64, type FakeAiProviders } from '../../../tests/fakes/ai-providers.ts';
import { classifyProviderError } from './errors.ts';
import type { AiChatMessage, AiToolCall, AiToolSpec, AiToolTurn, ChatStreamPart } from './chat-types.ts';
import { partOf, responsesRequestBody, statusOf, streamResponses, type ResponsesTurn } from './openai-responses.ts';

/** Every part of a streamed turn, or what it threw. */
async function collect(turn: ResponsesTurn, signal = new AbortController().signal): Promise<{ parts: ChatStreamPart[]; thrown?: unknown }> {
  const parts: ChatStreamPart[] = [];
  try {
    for await (const part of streamResponses(turn, signal)) parts.push(part);
    return { parts };
  } catch (thrown) {
    return { parts, thrown };
  }
}

const textOf = (parts: ChatStreamPart[]) => parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
const png = Buffer.from(TINY_PNG_BASE64, 'base64');

describe('responsesRequestBody', () => {
  const sdkConfig = (createOpenAI({ apiKey: 'k', baseURL: 'http://127.0.0.1:1/v1' }).responses('gpt-4o') as unknown as { config: ConstructorParameters<typeof OpenAIResponsesLanguageModel>[1] }).config;
  const conversations: { system?: string; messages: AiChatMessage[] }[] = [
    { messages: [{ role: 'user', content: 'Hello' }] },
    {
      system: 'Answer in one sentence.',
      messages: [
        { role: 'user', content: 'What is this?', images: [{ mediaType: 'image/png', data: png }] },
        { role: 'assistant', content: 'A pixel.' },
        { role: 'user', content: 'And this?', images: [{ mediaType: 'image/jpeg', data: new Uint8Array([0xff, 0xd8, 0xff]) }, { mediaType: 'image/png', data: png }] },
      ],
    },
  ];

  // Our model list is fixed (contracts/chat.ts): each model, with and without a system prompt,
  // images, a temperature (where the model takes one) and an output limit.
  const cases = CHAT_PROVIDER_INFO.openai.models.flatMap((model) =>
    conversations.flatMap((conversation) =>
      [{}, { maxOutputTokens: 512, temperature: model.temperature === false ? undefined : 0.3 }].map(
        (limits): { model: string; system?: string; messages: AiChatMessage[]; maxOutputTokens?: number; temperature?: number } => ({ model: model.id, ...conversation, ...limits }),
      ),
    ),
  );

  it.each(cases)('is what @ai-sdk/openai sends for $model (system: $system, limit: $maxOutputTokens, temperature: $temperature)', async ({ model, system, messages, maxOutputTokens, temperature }) => {
    const prompt = [
      ...(system ? [{ role: 'system' as const, content: system }] : []),
      ...messages.map((m) =>
        m.role === 'assistant'
          ? { role: 'assistant' as const, content: [{ type: 'text' as const, text: m.content }] }
          : {
              role: 'user' as const,
              content: [
                ...(m.images ?? []).map((image) => ({ type: 'file' as const, data: { type: 'data' as const, data: image.data }, mediaType: image.mediaType })),
                { type: 'text' as const, text: m.content },
              ],
            },
      ),
    ];
    const sdk = await OpenAIResponsesLanguageModel.prepareRequest({ modelId: model, config: sdkConfig, options: { prompt, maxOutputTokens, temperature } });
    expect(sdk.warnings).toEqual([]);
    const ours = responsesRequestBody({ apiKey: 'k', model, system, messages, maxOutputTokens, temperature });
    expect(ours).toEqual(JSON.parse(JSON.stringify({ ...sdk.args, stream: true })));
  });
});

describe('responsesRequestBody with tools (issue 31)', () => {
  const sdkConfig = (createOpenAI({ apiKey: 'k', baseURL: 'http://127.0.0.1:1/v1' }).responses('gpt-4o') as unknown as { config: ConstructorParameters<typeof OpenAIResponsesLanguageModel>[1] }).config;
  const tools: AiToolSpec[] = [
    { name: 'list_agents', description: 'List the agents.', parameters: { type: 'object', properties: {}, additionalProperties: false } },
    { name: 'get_agent', description: 'One agent.', parameters: { type: 'object', properties: { agentId: { type: 'string', description: 'Its id' } }, required: ['agentId'], additionalProperties: false } },
  ];
  const calls: AiToolCall[] = [
    { id: 'call_1', name: 'list_agents', argsText: '{}' },
    { id: 'call_2', name: 'get_agent', argsText: '{"agentId":"a1"}' },
  ];
  const turns: AiToolTurn[] = [
    { role: 'tool-calls', text: 'Let me look.', calls },
    {
      role: 'tool-results',
      results: [
        { callId: 'call_1', name: 'list_agents', output: '{"data":[]}' },
        { callId: 'call_2', name: 'get_agent', output: '{"error":"No such agent"}' },
      ],
    },
  ];

  const toolCases = CHAT_PROVIDER_INFO.openai.models.filter((m) => m.tools).flatMap((m) => (['auto', 'none'] as const).map((toolChoice) => [m.id, toolChoice] as const));
  it.each(toolCases)('is what @ai-sdk/openai sends for a tool loop’s turns to %s, with tool choice %s', async (model, toolChoice) => {
    const prompt = [
      { role: 'system' as const, content: 'Help.' },
      { role: 'user' as const, content: [{ type: 'text' as const, text: 'Which agents fail?' }] },
      {
        role: 'assistant' as const,
        content: [{ type: 'text' as const, text: 'Let me look.' }, ...calls.map((c) => ({ type: 'tool-call' as const, toolCallId: c.id, toolName: c.name, input: JSON.parse(c.argsText) as unknown }))],
      },
      {
        role: 'tool' as const,
        content: turns[1]!.role === 'tool-results' ? turns[1]!.results.map((r) => ({ type: 'tool-result' as const, toolCallId: r.callId, toolName: r.name, output: { type: 'text' as const, value: r.output } })) : [],
      },
    ];
    const sdk = await OpenAIResponsesLanguageModel.prepareRequest({
      modelId: model,
      config: sdkConfig,
      options: { prompt, tools: tools.map((t) => ({ type: 'function' as const, name: t.name, description: t.description, inputSchema: t.parameters })), toolChoice: { type: toolChoice } },
    });
    expect(sdk.warnings).toEqual([]);
    const ours = responsesRequestBody({ apiKey: 'k', model, system: 'Help.', messages: [{ role: 'user', content: 'Which agents fail?' }], tools, toolChoice, toolTurns: turns });
    expect(ours).toEqual(JSON.parse(JSON.stringify({ ...sdk.args, stream: true })));
  });

  it('sends a call’s arguments back exactly as the model wrote them, JSON or not', () => {
    const body = responsesRequestBody({
      apiKey: 'k',
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Hi' }],
      tools,
      toolTurns: [
        { role: 'tool-calls', text: '', calls: [{ id: 'call_9', name: 'get_agent', argsText: '{"agentId": ' }] },
        { role: 'tool-results', results: [{ callId: 'call_9', name: 'get_agent', output: '{"error":"The arguments are not JSON"}' }] },
      ],
    });
    expect(body.input).toEqual([
      { role: 'user', content: [{ type: 'input_text', text: 'Hi' }] },
      { type: 'function_call', call_id: 'call_9', name: 'get_agent', arguments: '{"agentId": ' },
      { type: 'function_call_output', call_id: 'call_9', output: '{"error":"The arguments are not JSON"}' },
    ]);
    expect(body).toMatchObject({ tool_choice: 'auto', tools: [{ type: 'function', name: 'list_agents', strict: false }, { type: 'function', name: 'get_agent', strict: false }] });
  });
});

describe('partOf: what each event means', () => {
  const read = (event: unknown) => partOf(JSON.stringify(event), 'http://openai.test/v1/responses', {}, {});
  const errorOf = (event: unknown) => {
    const part = read(event);
    if (part?.type !== 'error') throw new Error(`not an error part: ${JSON.stringify(part)}`);
    return classifyProviderError(part.error);
  };

  it('reads text, refusals, and the usage and end of a completed or cut-off answer, and skips the rest', () => {
    expect(read({ type: 'response.output_text.delta', delta: 'Hi', item_id: 'msg_1' })).toEqual({ type: 'text', text: 'Hi' });
    expect(read({ type: 'response.refusal.delta', delta: 'I cannot help with that.' })).toEqual({ type: 'refusal', text: 'I cannot help with that.' });
    expect(read({ type: 'response.completed', response: { usage: { input_tokens: 12, output_tokens: 5, total_tokens: 17 } } })).toEqual({
      type: 'finish',
      usage: { inputTokens: 12, outputTokens: 5 },
      finish: 'complete',
    });
    // Cut at the output limit is not a whole answer (issue 29: it was read like response.completed).
    expect(read({ type: 'response.incomplete', response: { incomplete_details: { reason: 'max_output_tokens' }, usage: { input_tokens: 3, output_tokens: 16 } } })).toEqual({
      type: 'finish',
      usage: { inputTokens: 3, outputTokens: 16 },
      finish: 'length',
      raw: 'max_output_tokens',
    });
    expect(read({ type: 'response.incomplete', response: { incomplete_details: { reason: 'content_filter' }, usage: null } })).toEqual({ type: 'finish', usage: null, finish: 'content-filter', raw: 'content_filter' });
    expect(read({ type: 'response.incomplete', response: { incomplete_details: { reason: 'something_new' } } })).toEqual({ type: 'finish', usage: null, finish: 'other', raw: 'something_new' });
    expect(read({ type: 'response.completed', response: { usage: null } })).toEqual({ type: 'finish', usage: null, finish: 'complete' });
    for (const type of ['response.created', 'response.in_progress', 'response.output_item.added', 'response.output_text.done', 'response.reasoning_summary_text.delta', 'something.new']) {
      expect(read({ type, delta: 'not text' })).toBeNull();
    }
  });

  it('sorts an error event into the kind its code stands for, in the documented shape and in the one sent in practice', () => {
    expect(errorOf({ type: 'error', code: 'server_error', message: 'The server had an error', param: null, sequence_number: 3 }).kind).toBe('unavailable');
    expect(errorOf({ type: 'error', sequence_number: 2, error: { type: 'invalid_request_error', code: null, message: 'There was an issue with your request.', param: null } }).kind).toBe('failed');
    expect(errorOf({ type: 'error', error: { type: 'insufficient_quota', code: 'insufficient_quota', message: 'You exceeded your current quota' } }).kind).toBe('quota');
    expect(errorOf({ type: 'error', code: 'rate_limit_exceeded', message: 'Rate limit reached' }).kind).toBe('rate_limited');
    const failed = errorOf({ type: 'response.failed', response: { status: 'failed', error: { code: 'server_error', message: 'Something went wrong' } } });
    expect(failed).toMatchObject({ kind: 'unavailable', logCause: { status: 500, providerMessage: 'Something went wrong' } });
    expect(errorOf({ type: 'response.failed', response: { status: 'failed', error: null } }).kind).toBe('unavailable');
  });

  it('maps error codes to statuses as the SDK does', () => {
    expect(statusOf('429', undefined)).toBe(429);
    expect(statusOf(503, 'server_error')).toBe(503);
    expect(statusOf('authentication_error', undefined)).toBe(401);
    expect(statusOf(null, 'permission_denied')).toBe(403);
    expect(statusOf('model_not_found', 'invalid_request_error')).toBe(404);
    expect(statusOf('context_length_exceeded', undefined)).toBe(400);
    expect(statusOf('overloaded', undefined)).toBe(503);
    expect(statusOf('timeout', undefined)).toBe(504);
    expect(statusOf(null, null)).toBe(500);
  });

  it('reports an event that is not JSON as an error', () => {
    const part = partOf('{"type":"response.output_text.delta",', 'http://openai.test/v1/responses', {}, {});
    expect(part).toMatchObject({ type: 'error' });
    expect(classifyProviderError((part as { error: unknown }).error).kind).toBe('failed');
  });
});

describe('streamResponses against the fake OpenAI', () => {
  let fake: FakeAiProviders;
  let turn: ResponsesTurn;

  beforeAll(async () => {
    fake = await startFakeAiProviders();
    turn = { apiKey: fake.keys.openai, baseUrl: fake.baseUrls.openai, model: 'gpt-4o', messages: [{ role: 'user', content: 'Tell me' }] };
  });
  afterAll(async () => {
    await fake?.close();
  });
  beforeEach(() => fake.reset());

  it('streams the text in pieces, then the usage, sending the request the SDK would', async () => {
    const { parts, thrown } = await collect({ ...turn, system: 'Be brief.', temperature: 0.5, maxOutputTokens: 100 });
    expect(thrown).toBeUndefined();
    expect(parts.filter((p) => p.type === 'text').length).toBeGreaterThan(1);
    expect(textOf(parts)).toBe('Reply to: Tell me');
    expect(parts.at(-1)).toEqual({ type: 'finish', usage: { inputTokens: 4, outputTokens: 5 }, finish: 'complete' });
    expect(fake.requests()).toMatchObject([{ provider: 'openai', path: '/openai/v1/responses', model: 'gpt-4o', stream: true, system: 'Be brief.', temperature: 0.5, maxOutputTokens: 100, prompt: 'Tell me' }]);
  });

  it('ends an answer cut at its output limit as such, with its usage', async () => {
    const { parts } = await collect({ ...turn, messages: [{ role: 'user', content: 'x'.repeat(400) }], maxOutputTokens: 16 });
    expect(textOf(parts)).toHaveLength(64);
    expect(parts.at(-1)).toEqual({ type: 'finish', usage: { inputTokens: 100, outputTokens: 16 }, finish: 'length', raw: 'max_output_tokens' });
  });

  // Each way OpenAI ends an answer (tests/fakes/ai-providers.ts sends them in OpenAI's shape).
  it.each([
    ['length', 'Reply to', { finish: 'length', raw: 'max_output_tokens', usage: { inputTokens: 2, outputTokens: 200 } }],
    ['thinking', '', { finish: 'length', raw: 'max_output_tokens', usage: { inputTokens: 2, outputTokens: 200 } }],
    ['content-filter', 'Reply to', { finish: 'content-filter', raw: 'content_filter', usage: { inputTokens: 2, outputTokens: 3 } }],
    // No response.completed: the connection closed after the last text (issue 29: read as whole).
    ['no-close', 'Reply to: Tell me', { finish: 'connection-lost', usage: null }],
  ] as const)('ends an answer that ends %s as OpenAI says it ended', async (ending, text, end) => {
    fake.setEnding('openai', ending);
    const { parts, thrown } = await collect({ ...turn, maxOutputTokens: 200 });
    expect(thrown).toBeUndefined();
    expect(textOf(parts)).toContain(text);
    if (text === '') expect(parts.filter((p) => p.type === 'text')).toEqual([]);
    expect(parts.at(-1)).toEqual({ type: 'finish', ...end });
  });

  it('ends a refusal the model completed as a content filter’s end', async () => {
    const server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(
        'data: {"type":"response.refusal.delta","delta":"I cannot help with that."}\n\n' +
          'data: {"type":"response.completed","response":{"usage":{"input_tokens":2,"output_tokens":6}}}\n\n',
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { parts } = await collect({ apiKey: 'k', baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] });
      expect(parts).toEqual([
        { type: 'text', text: 'I cannot help with that.' },
        { type: 'finish', usage: { inputTokens: 2, outputTokens: 6 }, finish: 'content-filter' },
      ]);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it.each([
    ['401', 'auth', 401],
    ['quota', 'quota', 429],
    ['429', 'rate_limited', 429],
    ['404', 'model_unavailable', 404],
    ['500', 'unavailable', 500],
  ] as const)('throws a refusal by status (%s) as the SDK does, sorted into its kind', async (fault, kind, status) => {
    fake.setFault('openai', fault, 'details only the provider knows');
    const { parts, thrown } = await collect(turn);
    expect(parts).toEqual([]);
    const { kind: sorted, logCause } = classifyProviderError(thrown);
    expect(sorted).toBe(kind);
    expect(logCause).toMatchObject({ name: 'AI_APICallError', status, url: fake.baseUrls.openai + '/responses' });
    expect(String(logCause.providerMessage)).toContain('details only the provider knows');
  });

  it('ends with an error part when the stream reports one after some text', async () => {
    fake.setFault('openai', 'stream-error');
    const { parts, thrown } = await collect({ ...turn, messages: [{ role: 'user', content: 'a long question' }] });
    expect(thrown).toBeUndefined();
    expect(textOf(parts).length).toBeGreaterThan(0);
    const last = parts.at(-1)!;
    expect(last.type).toBe('error');
    expect(classifyProviderError((last as { error: unknown }).error).kind).toBe('unavailable');
  });

  it('throws a connection that breaks mid-answer, after the text so far, as unavailable', async () => {
    fake.setFault('openai', 'cut');
    const { parts, thrown } = await collect({ ...turn, messages: [{ role: 'user', content: 'a long question' }] });
    expect(textOf(parts).length).toBeGreaterThan(0);
    expect(thrown).toBeDefined();
    expect(classifyProviderError(thrown).kind).toBe('unavailable');
  });

  it('stops the provider call when aborted, throwing the reason', async () => {
    fake.setFault('openai', 'hang');
    const controller = new AbortController();
    const reading = collect(turn, controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort(new Error('client went away'));
    const { thrown } = await reading;
    expect(thrown).toMatchObject({ message: 'client went away' });
    await fake.waitForAborted(1);
  });

  it('stops reading mid-answer when aborted', async () => {
    const held = fake.holdAfterFirstChunk();
    const controller = new AbortController();
    const parts: ChatStreamPart[] = [];
    let thrown: unknown;
    try {
      for await (const part of streamResponses(turn, controller.signal)) {
        parts.push(part);
        controller.abort(new Error('stopped'));
      }
    } catch (err) {
      thrown = err;
    } finally {
      held.release();
    }
    expect(parts).toHaveLength(1);
    expect(thrown).toMatchObject({ message: 'stopped' });
    await fake.waitForAborted(1);
  });
});

describe('streamResponses: function calls (issue 31)', () => {
  let server: Server;
  let base: string;
  let events: unknown[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(events.map((event) => `event: ${(event as { type: string }).type}\ndata: ${JSON.stringify(event)}\n\n`).join(''));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const turn = (): ResponsesTurn => ({ apiKey: 'k', baseUrl: base, model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] });
  const added = (index: number, callId: string, name: string) => ({ type: 'response.output_item.added', output_index: index, item: { type: 'function_call', id: `fc_${index}`, call_id: callId, name, arguments: '', status: 'in_progress' } });
  const delta = (index: number, piece: string) => ({ type: 'response.function_call_arguments.delta', item_id: `fc_${index}`, output_index: index, delta: piece });
  const completed = { type: 'response.completed', response: { status: 'completed', usage: { input_tokens: 9, output_tokens: 7 } } };

  it('puts parallel calls together from interleaved argument deltas, each handed on when its item is done, in the model’s order', async () => {
    events = [
      added(0, 'call_a', 'list_agents'),
      added(1, 'call_b', 'get_agent'),
      delta(1, '{"agentId":'),
      delta(0, '{}'),
      delta(1, '"a1"}'),
      // An item done without its arguments: the deltas are the arguments.
      { type: 'response.output_item.done', output_index: 0, item: { type: 'function_call', id: 'fc_0', call_id: 'call_a', name: 'list_agents', status: 'completed' } },
      { type: 'response.function_call_arguments.done', item_id: 'fc_1', output_index: 1, arguments: '{"agentId":"a1"}' },
      { type: 'response.output_item.done', output_index: 1, item: { type: 'function_call', id: 'fc_1', call_id: 'call_b', name: 'get_agent', arguments: '{"agentId":"a1"}', status: 'completed' } },
      completed,
    ];
    const { parts, thrown } = await collect(turn());
    expect(thrown).toBeUndefined();
    // Every event of a call is the provider talking (the caller's silence timer restarts on it).
    expect(parts.filter((p) => p.type === 'progress')).toHaveLength(6);
    expect(parts.filter((p) => p.type !== 'progress')).toEqual([
      { type: 'tool-call', call: { id: 'call_a', name: 'list_agents', argsText: '{}' } },
      { type: 'tool-call', call: { id: 'call_b', name: 'get_agent', argsText: '{"agentId":"a1"}' } },
      { type: 'finish', usage: { inputTokens: 9, outputTokens: 7 }, finish: 'complete' },
    ]);
  });

  it('hands on arguments that are not JSON as they are', async () => {
    events = [added(0, 'call_x', 'get_agent'), delta(0, '{"agentId": '), { type: 'response.output_item.done', output_index: 0, item: { type: 'function_call', call_id: 'call_x', name: 'get_agent', arguments: '{"agentId": ' } }, completed];
    expect((await collect(turn())).parts.find((p) => p.type === 'tool-call')).toEqual({ type: 'tool-call', call: { id: 'call_x', name: 'get_agent', argsText: '{"agentId": ' } });
  });

  it('drops a call the answer never finished (cut at the output limit) and says how it ended', async () => {
    events = [added(0, 'call_x', 'get_agent'), delta(0, '{"agent'), { type: 'response.incomplete', response: { incomplete_details: { reason: 'max_output_tokens' }, usage: { input_tokens: 3, output_tokens: 16 } } }];
    expect((await collect(turn())).parts.filter((p) => p.type !== 'progress')).toEqual([{ type: 'finish', usage: { inputTokens: 3, outputTokens: 16 }, finish: 'length', raw: 'max_output_tokens' }]);
  });

  it('reports a call without its call id or name as an error, not as a call nobody can answer', async () => {
    events = [{ type: 'response.output_item.done', output_index: 0, item: { type: 'function_call', name: 'get_agent', arguments: '{}' } }, completed];
    const { parts } = await collect(turn());
    expect(parts).toHaveLength(1);
    expect(parts[0]).toMatchObject({ type: 'error', error: expect.objectContaining({ message: expect.stringMatching(/without its call id or name/) }) });
  });
});

describe('streamResponses: transport', () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        // Byte by byte, a CRLF between lines: every split a network may make, inside characters too.
        const bytes = Buffer.from(
          'event: response.output_text.delta\r\ndata: {"type":"response.output_text.delta","delta":"Grüße, "}\r\n\r\n' +
            ': keep-alive\r\n\r\n' +
            'data: {"type":"response.output_text.delta","delta":"世界 🌍"}\r\n\r\n' +
            'data: {"type":"response.completed","response":{"usage":{"input_tokens":2,"output_tokens":4}}}\r\n\r\n',
        );
        let i = 0;
        const next = () => {
          if (i >= bytes.length) return res.end();
          res.write(bytes.subarray(i, ++i), next);
        };
        next();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('reads events whatever pieces the bytes arrive in', async () => {
    const { parts, thrown } = await collect({ apiKey: 'k', baseUrl: `${base}/`, model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] });
    expect(thrown).toBeUndefined();
    expect(textOf(parts)).toBe('Grüße, 世界 🌍');
    expect(parts.at(-1)).toEqual({ type: 'finish', usage: { inputTokens: 2, outputTokens: 4 }, finish: 'complete' });
  });

  it('throws a connection refused as the SDK does, sorted as unreachable', async () => {
    const port = await freePort();
    const { thrown } = await collect({ apiKey: 'k', baseUrl: `http://127.0.0.1:${port}/v1`, model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] });
    expect(thrown).toMatchObject({ name: 'AI_APICallError', message: expect.stringMatching(/^Cannot connect to API: .*ECONNREFUSED/) });
    expect(classifyProviderError(thrown).kind).toBe('unreachable');
  });
});
