import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeAiProviders, type FakeAiProviders } from '../../../tests/fakes/ai-providers.ts';
import { chatReservations } from '../../db/schema.ts';
import { chat, chatBody, parseEvents, usageRows } from '../../test/chat-helpers.ts';
import { createTestApp, TEST_ORIGIN, type TestApp } from '../../test/test-app.ts';

describe('chat limits: timeout, rate, budget, disconnect', () => {
  let fake: FakeAiProviders;
  let t: TestApp;
  let admin: string;

  beforeAll(async () => {
    fake = await startFakeAiProviders();
    t = await createTestApp({
      env: { ...fake.env, ADMIN_EMAILS: 'admin@example.com', CHAT_TIMEOUT_MS: '300', CHAT_RATE_LIMIT: '3', CHAT_DAILY_TOKEN_BUDGET: '60' },
    });
    admin = await t.signIn('admin@example.com');
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });
  beforeEach(() => fake.reset());

  it('gives up on a provider that does not answer, and cancels its request', async () => {
    fake.setFault('openai', 'hang');
    const json = await chat(t, admin, 'openai');
    expect(json.json()).toMatchObject({ error: true, message: 'GPT did not answer within 300 ms' });
    fake.setFault('gemini', 'hang');
    const events = parseEvents((await chat(t, admin, 'gemini', { stream: true })).body);
    expect(events).toEqual([{ event: 'error', data: { message: 'Gemini did not answer within 300 ms', partial: false, finish: 'failed' } }]);
    await fake.waitForAborted(2);
    expect((await usageRows(t)).slice(-2).map((r) => [r.provider, r.outcome, r.error])).toEqual([
      ['openai', 'error', 'GPT did not answer within 300 ms'],
      ['gemini', 'error', 'Gemini did not answer within 300 ms'],
    ]);
  });

  it('limits each user to CHAT_RATE_LIMIT requests a minute, with Retry-After', async () => {
    const user = await t.signIn('rate@example.com');
    for (let i = 0; i < 3; i++) expect((await chat(t, user, 'deepseek')).statusCode).toBe(200);
    const refused = await chat(t, user, 'llama'); // one limit across all assistants
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ error: 'Too Many Requests' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(fake.requests()).toHaveLength(3);
    // Another user is not affected.
    expect((await chat(t, await t.signIn('other@example.com'), 'deepseek')).statusCode).toBe(200);
  });

  it('stops a user whose daily token budget is spent until 00:00 UTC', async () => {
    const user = await t.signIn('budget@example.com');
    // 100 characters in and the answer to them: 53 of the 60 tokens, too little left for any other call.
    const first = await chat(t, user, 'deepseek', { body: chatBody('deepseek', 'b'.repeat(100)) });
    expect(first.json().error).toBe(false);
    const refused = await chat(t, user, 'deepseek');
    expect(refused.statusCode).toBe(429);
    expect(refused.json().message).toMatch(/^Your daily AI budget of 60 tokens is used up\. It resets at 00:00 UTC \(in \d+ h \d+ min\)\.$/);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    expect((await usageRows(t)).at(-1)).toMatchObject({ outcome: 'rejected', inputTokens: 0, outputTokens: 0 });
    expect(fake.requests()).toHaveLength(1);

    t.advanceTime(retryAfter * 1000 + 1000); // the next UTC day
    expect((await chat(t, user, 'deepseek')).json().error).toBe(false);
  });

  it('cancels the provider call when the client disconnects mid-stream, and records it as stopped (by the person: not a failure)', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const body = JSON.stringify(chatBody('anthropic', 'tell me a long story'));
    // The rest of the answer waits until the test lets it go: the browser leaves while the
    // provider call is still going, however loaded the machine (else the whole answer can be
    // in before the disconnect is noticed, and there is nothing left to cancel).
    const held = fake.holdAfterFirstChunk();
    const firstDelta = await new Promise<string>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/api/anthropic/chat',
          headers: { 'content-type': 'application/json', accept: 'text/event-stream', origin: TEST_ORIGIN, cookie: admin },
        },
        (res: IncomingMessage) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            text += chunk;
            if (text.includes('event: delta')) {
              req.destroy(); // the user closed the tab
              resolve(text);
            }
          });
          res.on('error', () => {});
        },
      );
      req.on('error', () => {});
      req.setTimeout(5_000, () => reject(new Error('no delta within 5 s')));
      req.end(body);
    });
    expect(firstDelta).toContain('event: delta');
    await fake.waitForAborted(1).finally(() => held.release());
    let row;
    for (let i = 0; i < 100 && row?.outcome !== 'stopped'; i++) {
      await new Promise((r) => setTimeout(r, 20));
      row = (await usageRows(t)).at(-1);
    }
    expect(row).toMatchObject({ provider: 'anthropic', outcome: 'stopped' });
    expect(row!.inputTokens).toBeGreaterThan(0); // stopped mid-answer still counts
    // Settled to that estimate: the call's budget reservation is gone with it.
    expect(await t.database.db.select().from(chatReservations)).toEqual([]);
  });
});

describe('chat without provider keys', () => {
  let t: TestApp;
  let admin: string;
  let fake: FakeAiProviders;

  beforeAll(async () => {
    fake = await startFakeAiProviders();
    const urlsOnly = Object.fromEntries(Object.entries(fake.env).filter(([k]) => k.endsWith('_BASE_URL')));
    t = await createTestApp({ env: { ...urlsOnly, ADMIN_EMAILS: 'admin@example.com' } });
    admin = await t.signIn('admin@example.com');
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  it('answers SPEC’s "API key not configured" text, as JSON and as an event, without calling out', async () => {
    const json = await chat(t, admin, 'openai');
    expect(json.statusCode).toBe(200);
    expect(json.json()).toEqual({
      error: true,
      message: 'API key not configured: OpenAI API key is not configured. Please contact the administrator.',
      choices: [],
      model: 'gpt-4o',
      finish: 'failed',
    });
    const events = parseEvents((await chat(t, admin, 'anthropic', { stream: true })).body);
    expect(events).toEqual([
      { event: 'error', data: { message: 'API key not configured: Anthropic API key is not configured. Please contact the administrator.', partial: false, finish: 'failed' } },
    ]);
    expect(fake.requests()).toHaveLength(0);
    expect((await usageRows(t)).map((r) => r.outcome)).toEqual(['rejected', 'rejected']);

    const providers = (await t.request({ url: '/api/chat/providers', cookie: admin })).json().providers as Array<{ id: string; configured: boolean }>;
    expect(providers.filter((p) => p.configured).map((p) => p.id)).toEqual(['llama']);
    // Llama needs no key.
    expect((await chat(t, admin, 'llama')).json().error).toBe(false);
  });
});
