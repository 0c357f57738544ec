import { eq } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CHAT_PROVIDERS, type TChatProvider } from '../../../contracts/chat.ts';
import { startFakeAiProviders, type FakeAiProviders } from '../../../tests/fakes/ai-providers.ts';
import { chatReservations, users } from '../../db/schema.ts';
import { chat, chatBody, parseEvents, usageRows } from '../../test/chat-helpers.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { until } from '../../test/until.ts';
import { createChatBudget } from './budget.ts';

// DESIGN section 11: budgets are reserved before work and settled after, so parallel requests
// can never spend more than the limit (issue 13, item 4). Runs on PGlite and on PostgreSQL.

const BUDGET = 3_000;
const MAX_OUTPUT = 200;
/** 2,000 ASCII characters: 500 tokens to the fake provider, estimated at 504 with the message overhead. */
const BIG = 'q'.repeat(2_000);
const spentOf = (rows: Awaited<ReturnType<typeof usageRows>>, userId: string) =>
  rows.filter((r) => r.userId === userId).reduce((n, r) => n + r.inputTokens + r.outputTokens, 0);

async function userId(t: TestApp, email: string): Promise<string> {
  const [row] = await t.database.db.select({ id: users.id }).from(users).where(eq(users.email, email));
  return row!.id;
}

describe('chat budget: reserved before the provider is called', () => {
  let fake: FakeAiProviders;
  let t: TestApp;

  beforeAll(async () => {
    fake = await startFakeAiProviders();
    t = await createTestApp({
      env: {
        ...fake.env,
        ADMIN_EMAILS: 'admin@example.com',
        // Every assistant open to every user, so each test has budgets of its own.
        CHAT_POLICY: 'openai=signedIn,anthropic=signedIn,gemini=signedIn,grok=signedIn',
        CHAT_RATE_LIMIT: '10000',
        CHAT_DAILY_TOKEN_BUDGET: String(BUDGET),
        CHAT_MAX_OUTPUT_TOKENS: String(MAX_OUTPUT),
        CHAT_DAILY_IMAGE_BUDGET: '2',
        CHAT_TIMEOUT_MS: '1000',
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });
  beforeEach(() => fake.reset());

  it('20 parallel requests against a slow provider never spend more than the budget', async () => {
    const guest = await t.signIn('parallel@example.com');
    fake.setLatency(300);
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => chat(t, guest, 'deepseek', { stream: i % 2 === 1, body: chatBody('deepseek', BIG) })),
    );
    const answered = responses.filter((r) => r.statusCode === 200);
    const refused = responses.filter((r) => r.statusCode === 429);
    expect(answered.length + refused.length).toBe(20);
    expect(answered.length).toBeGreaterThanOrEqual(1);
    expect(refused.length).toBeGreaterThanOrEqual(15);
    for (const res of refused) {
      expect(res.json().message).toMatch(/daily AI budget of 3,000 tokens/);
      expect(res.json().message).toMatch(/It resets at 00:00 UTC \(in \d+ h \d+ min\)\.$/);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
    for (const res of answered) {
      const ok = res.headers['content-type']?.startsWith('text/event-stream') ? parseEvents(res.body).at(-1)?.event === 'done' : res.json().error === false;
      expect(ok).toBe(true);
    }

    // Only the answered ones reached the provider, each told to stop within what was left.
    const id = await userId(t, 'parallel@example.com');
    expect(fake.requests()).toHaveLength(answered.length);
    for (const request of fake.requests()) {
      expect(request.maxOutputTokens).toBeGreaterThanOrEqual(16);
      expect(request.maxOutputTokens).toBeLessThanOrEqual(MAX_OUTPUT);
    }
    const rows = (await usageRows(t)).filter((r) => r.userId === id);
    expect(rows).toHaveLength(20); // every call recorded: answered ones 'ok', refused ones 'rejected'
    expect(rows.filter((r) => r.outcome === 'rejected')).toHaveLength(refused.length);
    expect(spentOf(rows, id)).toBeLessThanOrEqual(BUDGET);
    expect(await t.database.db.select().from(chatReservations)).toEqual([]);

    // The next answer may use what is left after its input, and no more.
    const spent = spentOf(rows, id);
    const small = await chat(t, guest, 'deepseek', { body: chatBody('deepseek', 'hello') });
    expect(small.json().error).toBe(false);
    expect(fake.requests().at(-1)!.maxOutputTokens).toBe(Math.min(MAX_OUTPUT, BUDGET - spent - 6)); // 'hello': 2 tokens + 4 overhead

    // A conversation whose input alone is more than what is left: 429, nothing sent.
    const before = fake.requests().length;
    const tooBig = await chat(t, guest, 'deepseek', { body: chatBody('deepseek', BIG) });
    expect(tooBig.statusCode).toBe(429);
    const left = BUDGET - spentOf(await usageRows(t), id);
    expect(tooBig.json()).toEqual({
      error: 'Too Many Requests',
      message: expect.stringMatching(
        new RegExp(`^This conversation needs about 504 tokens, but only ${left.toLocaleString('en-US')} of your daily AI budget of 3,000 tokens are left\\. Start a new chat or send less text\\. It resets at 00:00 UTC \\(in \\d+ h \\d+ min\\)\\.$`),
      ),
    });
    expect(Number(tooBig.headers['retry-after'])).toBeGreaterThan(60);
    expect(fake.requests()).toHaveLength(before);
  });

  it('sends each provider its output limit in the provider’s own field, and the answer stops there', async () => {
    const field: Record<TChatProvider, (body: Record<string, unknown>) => unknown> = {
      openai: (b) => b.max_output_tokens,
      anthropic: (b) => b.max_tokens,
      gemini: (b) => (b.generationConfig as Record<string, unknown>).maxOutputTokens,
      grok: (b) => b.max_output_tokens,
      deepseek: (b) => b.max_tokens,
      llama: (b) => b.max_tokens,
    };
    for (const provider of CHAT_PROVIDERS) {
      const user = await t.signIn(`limit-${provider}@example.com`);
      for (const stream of [false, true]) {
        fake.reset();
        // 1,200 characters: an answer of 303 tokens, cut at the limit of 200.
        const res = await chat(t, user, provider, { stream, body: chatBody(provider, 'w'.repeat(1_200)) });
        const usage = stream ? (parseEvents(res.body).at(-1)!.data as { usage: { outputTokens: number } }).usage : res.json().usage;
        const request = fake.requests()[0]!;
        expect(field[provider](request.body), `${provider} stream=${stream}`).toBe(MAX_OUTPUT);
        expect(request.maxOutputTokens, `${provider} stream=${stream}`).toBe(MAX_OUTPUT);
        expect(usage.outputTokens, `${provider} stream=${stream}`).toBe(MAX_OUTPUT);
      }
    }
  });

  it('frees the reservation of a call that fails or times out, and records what it may have cost', async () => {
    const guest = await t.signIn('failing@example.com');
    const id = await userId(t, 'failing@example.com');
    fake.setFault('deepseek', '500');
    expect((await chat(t, guest, 'deepseek', { body: chatBody('deepseek', BIG) })).json()).toMatchObject({ error: true, message: 'DeepSeek is unavailable right now' });
    fake.setFault('deepseek', 'hang');
    expect((await chat(t, guest, 'deepseek', { stream: true, body: chatBody('deepseek', BIG) })).body).toContain('DeepSeek did not answer within 1 seconds');
    const rows = (await usageRows(t)).filter((r) => r.userId === id);
    expect(rows.map((r) => [r.outcome, r.inputTokens])).toEqual([
      ['error', 0], // refused by the provider: not billed
      ['error', 504], // stopped by us while it worked: the input is counted
    ]);
    expect(await t.database.db.select().from(chatReservations).where(eq(chatReservations.userId, id))).toEqual([]);
  });

  it('counts a reservation left by a process that died only until its lease runs out', async () => {
    const guest = await t.signIn('crashed@example.com');
    const id = await userId(t, 'crashed@example.com');
    // A call in flight in a process that was killed: it held the whole budget, and nobody will settle it.
    await t.database.db.insert(chatReservations).values({ userId: id, tokens: BUDGET, images: 0, expiresAt: new Date(t.now().getTime() + 60_000) });
    const held = await chat(t, guest, 'deepseek');
    expect(held.statusCode).toBe(429);
    expect(held.json().message).toMatch(/^Your answers still in progress hold the rest of your daily AI budget of 3,000 tokens \(0 left/);
    expect(held.headers['retry-after']).toBe('10');

    t.advanceTime(61_000);
    expect((await chat(t, guest, 'deepseek')).json().error).toBe(false);
    // Settling that call also swept the dead process's reservation away.
    expect(await t.database.db.select().from(chatReservations).where(eq(chatReservations.userId, id))).toEqual([]);
  });

  it('keeps a long call’s reservation alive while it runs', async () => {
    const id = await userId(t, 'crashed@example.com');
    const budget = createChatBudget({ db: t.database.db, limits: { tokens: BUDGET, images: 0 }, now: t.now, leaseMs: 300 });
    const reservation = await budget.reserve(id, { kind: 'text', inputTokens: 10, maxOutputTokens: 100 });
    if ('ok' in reservation) throw new Error(`not reserved: ${reservation.reason}`);
    const expiry = async () => (await t.database.db.select().from(chatReservations).where(eq(chatReservations.id, reservation.id!)))[0]!.expiresAt.getTime();
    const first = await expiry();
    const lease = budget.hold(reservation, pino({ level: 'silent' }));
    try {
      await until(expiry, (at) => at > first, 3_000);
    } finally {
      lease.stop();
    }
    await budget.release(reservation);
    expect(await t.database.db.select().from(chatReservations).where(eq(chatReservations.id, reservation.id!))).toEqual([]);
  });

  it('gives images their own daily quota: parallel requests never exceed it, then 429, and the report shows them with their cost', async () => {
    const user = await t.signIn('images@example.com', 'Ivy Images');
    const id = await userId(t, 'images@example.com');
    const body = chatBody('grok', 'a lighthouse at dusk', 'grok-2-image-1212');
    fake.setLatency(200);
    const responses = await Promise.all(Array.from({ length: 5 }, (_, i) => chat(t, user, 'grok', { body, stream: i % 2 === 0 })));
    const answered = responses.filter((r) => r.statusCode === 200).length;
    expect(answered).toBeGreaterThanOrEqual(1);
    expect(answered).toBeLessThanOrEqual(2);
    for (const res of responses.filter((r) => r.statusCode === 429)) expect(res.json().message).toMatch(/daily image budget of 2 images/);
    fake.setLatency(0);
    // Once those are settled, what is left can be used, and then no more.
    for (let i = answered; i < 2; i++) expect((await chat(t, user, 'grok', { body })).json().error).toBe(false);
    const usedUp = await chat(t, user, 'grok', { body });
    expect(usedUp.statusCode).toBe(429);
    expect(usedUp.json().message).toMatch(/^Your daily image budget of 2 images is used up\. It resets at 00:00 UTC \(in \d+ h \d+ min\)\.$/);
    expect(fake.requests().filter((r) => r.path.endsWith('/images/generations'))).toHaveLength(2);

    const rows = (await usageRows(t)).filter((r) => r.userId === id);
    expect(rows.reduce((n, r) => n + r.images, 0)).toBe(2);
    const admin = await t.signIn('admin@example.com');
    const report = (await t.request({ url: '/api/admin/usage?days=1', cookie: admin })).json();
    const row = report.rows.find((r: { user: { email: string }; model: string }) => r.user.email === 'images@example.com' && r.model === 'grok-2-image-1212');
    expect(row).toMatchObject({ provider: 'grok', requests: rows.length, failed: rows.length - 2, images: 2, inputTokens: 0, outputTokens: 0, costUsd: 0.14 });
    expect(report.totals.images).toBeGreaterThanOrEqual(2);
  });
});

describe('chat budget: the defaults', () => {
  let fake: FakeAiProviders;
  let t: TestApp;

  beforeAll(async () => {
    fake = await startFakeAiProviders();
    // The default daily budget (200,000 tokens); the output limit above every model's own.
    t = await createTestApp({ env: { ...fake.env, ADMIN_EMAILS: 'admin@example.com', CHAT_RATE_LIMIT: '10000', CHAT_MAX_OUTPUT_TOKENS: '1000000' } });
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  it('refuses 20 parallel requests of ~1 MB each from a guest without calling the provider', async () => {
    const guest = await t.signIn('bulk@example.com');
    fake.setLatency(3_000);
    // 31 messages of 32,000 characters: just under the 1 MB body limit, ~248,000 tokens.
    const messages = Array.from({ length: 31 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: String.fromCharCode(97 + (i % 26)).repeat(32_000) }));
    const responses = await Promise.all(Array.from({ length: 20 }, () => chat(t, guest, 'deepseek', { body: { model: 'deepseek-chat', messages } })));
    expect(responses.map((r) => r.statusCode)).toEqual(Array(20).fill(429));
    expect(responses[0]!.json().message).toMatch(/^This conversation needs about 248,124 tokens, but only 200,000 of your daily AI budget of 200,000 tokens are left\./);
    expect(fake.requests()).toHaveLength(0);
    expect((await usageRows(t)).map((r) => r.outcome)).toEqual(Array(20).fill('rejected'));
  });

  it('asks no model for more output than it can give', async () => {
    fake.setLatency(0);
    const admin = await t.signIn('admin@example.com');
    await chat(t, admin, 'openai');
    await chat(t, admin, 'deepseek');
    const spent = (await usageRows(t)).reduce((n, r) => n + r.inputTokens + r.outputTokens, 0);
    await chat(t, admin, 'llama');
    expect(fake.requests().map((r) => [r.model, r.maxOutputTokens])).toEqual([
      ['gpt-4o', 16_384],
      ['deepseek-chat', 8_192],
      // No smaller limit is known for a local model: what the budget leaves after the input ('hello there': 7).
      ['llama3.1', 200_000 - spent - 7],
    ]);
  });
});
