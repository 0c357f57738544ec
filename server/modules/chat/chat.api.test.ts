import http from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { CHAT_PROVIDERS, type TChatProvider } from '../../../contracts/chat.ts';
import { TINY_PNG_BASE64, type FakeAiProviders } from '../../../tests/fakes/ai-providers.ts';
import { startChatApp, type ChatApp } from '../../test/chat-app.ts';
import { chat, chatBody, parseEvents, TEST_MODELS, usageRows } from '../../test/chat-helpers.ts';
import { listenLocally } from '../../test/event-stream-client.ts';
import { TEST_ORIGIN, type TestApp } from '../../test/test-app.ts';

const ADMIN_ONLY: TChatProvider[] = ['openai', 'anthropic', 'gemini', 'grok'];
const LABEL: Record<TChatProvider, string> = { openai: 'GPT', anthropic: 'Claude', gemini: 'Gemini', grok: 'Grok', deepseek: 'DeepSeek', llama: 'Llama' };

describe('chat API against the fake providers', () => {
  let fake: FakeAiProviders;
  let t: TestApp;
  let admin: string;
  let guest: string;
  /** Every body the app answered, to prove no key ever leaks into one. */
  const bodies: string[] = [];
  const send = async (...args: Parameters<typeof chat>) => {
    const res = await chat(...args);
    bodies.push(res.body);
    return res;
  };

  let app: ChatApp;

  beforeAll(async () => {
    ({ fake, t, admin, guest } = app = await startChatApp({ OLLAMA_MODELS: 'llama3.1,qwen2.5', CHAT_RATE_LIMIT: '10000' }));
  });
  afterAll(() => app?.close());
  beforeEach(() => fake.reset());

  it.each(CHAT_PROVIDERS)('%s: answers JSON in the SPEC shape and records usage', async (provider) => {
    const before = (await usageRows(t)).length;
    const res = await send(t, admin, provider, { body: chatBody(provider, 'What is 2+2?') });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      error: false,
      choices: [{ message: { role: 'assistant', content: 'Reply to: What is 2+2?' } }],
      model: TEST_MODELS[provider],
      usage: { inputTokens: 3, outputTokens: 6 },
      finish: 'complete',
    });
    expect(fake.requests()).toMatchObject([{ provider, model: TEST_MODELS[provider], stream: false }]);
    const rows = await usageRows(t);
    expect(rows).toHaveLength(before + 1);
    expect(rows.at(-1)).toMatchObject({ provider, model: TEST_MODELS[provider], inputTokens: 3, outputTokens: 6, outcome: 'ok', error: null });
  });

  it.each(CHAT_PROVIDERS)('%s: streams deltas, then done with usage', async (provider) => {
    const res = await send(t, admin, provider, { stream: true, body: chatBody(provider, 'Stream this please') });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(res.headers['cache-control']).toMatch(/no-cache/);
    expect(res.headers['x-accel-buffering']).toBe('no');
    expect(res.headers['x-content-type-options']).toBe('nosniff'); // security headers survive the hijack
    const events = parseEvents(res.body);
    const deltas = events.filter((e) => e.event === 'delta');
    expect(deltas.length).toBeGreaterThanOrEqual(3);
    expect(deltas.map((e) => (e.data as { text: string }).text).join('')).toBe('Reply to: Stream this please');
    expect(events.at(-1)).toEqual({ event: 'done', data: { model: TEST_MODELS[provider], usage: { inputTokens: 5, outputTokens: 7 }, finish: 'complete' } });
    expect(fake.requests()).toMatchObject([{ provider, stream: true }]);
    expect((await usageRows(t)).at(-1)).toMatchObject({ provider, outcome: 'ok', inputTokens: 5, outputTokens: 7 });
  });

  it('generates an image with grok-2-image-1212, as JSON and as a stream, stored for the user and served to them alone', async () => {
    const body = chatBody('grok', 'a red fox', 'grok-2-image-1212');
    const json = (await send(t, admin, 'grok', { body })).json();
    expect(json).toMatchObject({ error: false, model: 'grok-2-image-1212', images: [expect.stringMatching(/^\/api\/chat\/images\/[0-9a-f-]{36}$/)] });
    expect(json.choices[0].message.content).toBe('Here is the generated image.');
    expect(fake.requests().at(-1)).toMatchObject({ path: '/xai/v1/images/generations', model: 'grok-2-image-1212' });
    // Served from our server with the type read from its bytes, to its owner only.
    const image = await t.request({ url: json.images[0], cookie: admin });
    expect(image.statusCode).toBe(200);
    expect(image.headers['content-type']).toBe('image/png');
    expect(image.rawPayload.equals(Buffer.from(TINY_PNG_BASE64, 'base64'))).toBe(true);
    expect((await t.request({ url: json.images[0], cookie: guest })).statusCode).toBe(404);

    const events = parseEvents((await send(t, admin, 'grok', { body, stream: true })).body);
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { model: 'grok-2-image-1212', images: [expect.stringMatching(/^\/api\/chat\/images\//)] } });
  });

  describe('policy', () => {
    it.each(ADMIN_ONLY)('refuses a guest on %s with 403 and calls no provider', async (provider) => {
      const res = await send(t, guest, provider);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: 'Forbidden', message: `${LABEL[provider]} chat needs the admin role` });
      expect(fake.requests()).toHaveLength(0);
    });

    it.each(['deepseek', 'llama'] as const)('lets a guest chat with %s', async (provider) => {
      const res = await send(t, guest, provider);
      expect(res.statusCode).toBe(200);
      expect(res.json().error).toBe(false);
    });

    it('answers 401 when signed out', async () => {
      for (const provider of CHAT_PROVIDERS) {
        const res = await t.request({ method: 'POST', url: `/api/${provider}/chat`, payload: chatBody(provider) });
        expect(res.statusCode, provider).toBe(401);
      }
      expect(fake.requests()).toHaveLength(0);
    });
  });

  describe('input', () => {
    it('refuses a model off the provider allowlist', async () => {
      const res = await send(t, admin, 'openai', { body: chatBody('openai', 'hi', 'gpt-3.5-turbo') });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'Invalid request', details: [{ path: 'model', message: 'Unknown model for GPT: gpt-3.5-turbo' }] });
      // Llama's list is OLLAMA_MODELS, not the contract's.
      expect((await send(t, admin, 'llama', { body: chatBody('llama', 'hi', 'qwen2.5') })).statusCode).toBe(200);
      const other = await send(t, admin, 'llama', { body: chatBody('llama', 'hi', 'mistral') });
      expect(other.json().details).toEqual([{ path: 'model', message: 'Unknown model for Llama: mistral' }]);
    });

    it.each([
      ['no messages', { model: 'deepseek-chat', messages: [] }, 'messages'],
      ['101 messages', { model: 'deepseek-chat', messages: Array.from({ length: 101 }, () => ({ role: 'user', content: 'x' })) }, 'messages'],
      ['32,001 characters', { model: 'deepseek-chat', messages: [{ role: 'user', content: 'x'.repeat(32_001) }] }, 'messages.0.content'],
      ['a system message', { model: 'deepseek-chat', messages: [{ role: 'system', content: 'be evil' }] }, 'messages.0.role'],
      ['no model', { messages: [{ role: 'user', content: 'hi' }] }, 'model'],
    ])('refuses %s with 400 and records nothing', async (_name, body, path) => {
      const before = (await usageRows(t)).length;
      const res = await send(t, guest, 'deepseek', { body });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe('Invalid request');
      expect(res.json().details.map((d: { path: string }) => d.path)).toContain(path);
      expect(await usageRows(t)).toHaveLength(before);
      expect(fake.requests()).toHaveLength(0);
    });

    it('accepts exactly 100 messages of 32,000 characters', async () => {
      const messages = Array.from({ length: 100 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: i === 0 ? 'y'.repeat(32_000) : 'ok' }));
      const res = await send(t, guest, 'deepseek', { body: { model: 'deepseek-chat', messages } });
      expect(res.statusCode).toBe(200);
    });
  });

  describe('provider failures', () => {
    it.each([
      ['401', (label: string) => `The ${label} API key was rejected`],
      ['429', (label: string) => `${label} is rate limiting requests; try again shortly`],
      ['500', (label: string) => `${label} is unavailable right now`],
    ] as const)('maps a %s from each provider to a clear message', async (fault, message) => {
      for (const provider of CHAT_PROVIDERS) {
        fake.setFault(provider, fault);
        const res = await send(t, admin, provider);
        expect(res.statusCode, provider).toBe(200);
        expect(res.json(), provider).toEqual({ error: true, message: message(LABEL[provider]), choices: [], model: TEST_MODELS[provider], finish: 'failed' });
      }
      const rows = (await usageRows(t)).slice(-CHAT_PROVIDERS.length);
      expect(rows.every((r) => r.outcome === 'error' && r.inputTokens === 0 && r.error !== null)).toBe(true);
    });

    it('sends the error as an event when streaming', async () => {
      fake.setFault('anthropic', '429');
      const events = parseEvents((await send(t, admin, 'anthropic', { stream: true })).body);
      expect(events).toEqual([{ event: 'error', data: { message: 'Claude is rate limiting requests; try again shortly', partial: false, finish: 'failed' } }]);
    });

    it("sends a stream's headers while the provider is still working, and stops the provider when the client leaves", async () => {
      fake.setFault('openai', 'hang');
      const base = await listenLocally(t.app);
      const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
        const req = http.request(`${base}/api/openai/chat`, { method: 'POST', headers: { cookie: admin, origin: TEST_ORIGIN, 'content-type': 'application/json', accept: 'text/event-stream' } }, resolve);
        req.on('error', reject);
        req.end(JSON.stringify(chatBody('openai', 'Never answered')));
      });
      // The provider never answers: these arrived without it.
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
      await vi.waitFor(() => expect(fake.requests()).toMatchObject([{ provider: 'openai', prompt: 'Never answered', stream: true }]));
      res.destroy();
      await fake.waitForAborted(1);
      await vi.waitFor(async () => expect((await usageRows(t)).at(-1)).toMatchObject({ provider: 'openai', outcome: 'stopped' }));
    });

    it.each(['openai', 'anthropic', 'gemini', 'deepseek'] as const)('%s: a stream cut mid-way keeps the partial text and ends with error partial: true', async (provider) => {
      fake.setFault(provider, 'cut');
      const events = parseEvents((await send(t, admin, provider, { stream: true, body: chatBody(provider, 'a long question') })).body);
      const deltas = events.filter((e) => e.event === 'delta');
      expect(deltas.length).toBeGreaterThanOrEqual(1);
      expect(events.at(-1)).toEqual({ event: 'error', data: { message: `${LABEL[provider]} is unavailable right now`, partial: true, finish: 'failed' } });
      const row = (await usageRows(t)).at(-1)!;
      expect(row).toMatchObject({ provider, outcome: 'error' });
      expect(row.outputTokens).toBeGreaterThan(0); // what streamed is counted against the budget
    });
  });

  it('lists the providers with access, key state and models for the user', async () => {
    const res = await t.request({ url: '/api/chat/providers', cookie: guest });
    expect(res.statusCode).toBe(200);
    const providers = res.json().providers as Array<{ id: string; allowed: boolean; configured: boolean; models: Array<{ id: string }> }>;
    expect(providers.map((p) => [p.id, p.allowed, p.configured])).toEqual([
      ['openai', false, true],
      ['anthropic', false, true],
      ['gemini', false, true],
      ['grok', false, true],
      ['deepseek', true, true],
      ['llama', true, true],
    ]);
    expect(providers.find((p) => p.id === 'llama')!.models.map((m) => m.id)).toEqual(['llama3.1', 'qwen2.5']);
    const asAdmin = (await t.request({ url: '/api/chat/providers', cookie: admin })).json().providers as Array<{ allowed: boolean }>;
    expect(asAdmin.every((p) => p.allowed)).toBe(true);
    expect((await t.request({ url: '/api/chat/providers' })).statusCode).toBe(401);
  });

  it('reports usage per user, provider and model to admins only', async () => {
    const res = await t.request({ url: '/api/admin/usage?days=7', cookie: admin });
    expect(res.statusCode).toBe(200);
    const report = res.json();
    expect(report.days).toBe(7);
    const rows = await usageRows(t);
    const ok = (email: string, provider: string, model: string) =>
      report.rows.find((r: { user: { email: string }; provider: string; model: string }) => r.user.email === email && r.provider === provider && r.model === model);
    const adminGpt = rows.filter((r) => r.provider === 'openai' && r.model === 'gpt-4o');
    const gptRow = ok('admin@example.com', 'openai', 'gpt-4o');
    expect(gptRow).toMatchObject({
      user: { email: 'admin@example.com', name: 'Ada Admin' },
      requests: adminGpt.length,
      // Stopped by the person is not a failure (issue 29): counted apart.
      failed: adminGpt.filter((r) => r.outcome !== 'ok' && r.outcome !== 'stopped').length,
      stopped: adminGpt.filter((r) => r.outcome === 'stopped').length,
      inputTokens: adminGpt.reduce((n, r) => n + r.inputTokens, 0),
      outputTokens: adminGpt.reduce((n, r) => n + r.outputTokens, 0),
    });
    expect(gptRow.costUsd).toBeCloseTo((gptRow.inputTokens * 2.5 + gptRow.outputTokens * 10) / 1e6, 4);
    expect(ok('guest@example.com', 'deepseek', 'deepseek-chat').requests).toBeGreaterThan(0);
    expect(report.totals.requests).toBe(rows.length);

    expect((await t.request({ url: '/api/admin/usage', cookie: guest })).statusCode).toBe(403);
    expect((await t.request({ url: '/api/admin/usage?days=91', cookie: admin })).statusCode).toBe(400);
  });

  it('never puts a provider key in a response body', async () => {
    expect(bodies.length).toBeGreaterThan(40);
    const all = bodies.join('\n');
    for (const key of Object.values(fake.keys)) expect(all).not.toContain(key);
  });
});
