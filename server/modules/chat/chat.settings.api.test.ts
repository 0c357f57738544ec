import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CHAT_PROVIDER_INFO, CHAT_PROVIDERS, type TChatProvider } from '../../../contracts/chat.ts';
import { startFakeAiProviders, type FakeAiProviders } from '../../../tests/fakes/ai-providers.ts';
import { chat, chatBody, parseEvents, TEST_MODELS, usageRows } from '../../test/chat-helpers.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';

const SYSTEM = 'You are a terse assistant. Answer in French.';

/** Where each API carries the system prompt, read from the raw request the fake received. */
function systemAsSent(provider: TChatProvider, body: Record<string, unknown>): unknown {
  switch (provider) {
    case 'anthropic':
      return body.system; // top-level, as text blocks
    case 'gemini':
      return body.systemInstruction; // { parts: [{ text }] }
    case 'openai':
    case 'grok':
      return (body.input as Array<{ role: string }>)[0]; // the first input item
    default:
      return (body.messages as Array<{ role: string }>)[0]; // the first chat message
  }
}

const EXPECTED_SYSTEM: Record<TChatProvider, unknown> = {
  openai: { role: 'system', content: SYSTEM },
  grok: { role: 'system', content: SYSTEM },
  anthropic: [{ type: 'text', text: SYSTEM }],
  gemini: { parts: [{ text: SYSTEM }] },
  deepseek: { role: 'system', content: SYSTEM },
  llama: { role: 'system', content: SYSTEM },
};

describe('a chat’s system prompt and temperature reach each provider as its API takes them', () => {
  let fake: FakeAiProviders;
  let t: TestApp;
  let admin: string;

  beforeAll(async () => {
    fake = await startFakeAiProviders();
    t = await createTestApp({ env: { ...fake.env, ADMIN_EMAILS: 'admin@example.com', CHAT_RATE_LIMIT: '10000' } });
    admin = await t.signIn('admin@example.com', 'Ada Admin');
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });
  beforeEach(() => fake.reset());

  it.each(CHAT_PROVIDERS.flatMap((provider) => [[provider, false] as const, [provider, true] as const]))('%s (stream: %s)', async (provider, stream) => {
    const res = await chat(t, admin, provider, { stream, body: { ...chatBody(provider, 'Bonjour?'), system: `  ${SYSTEM}\n`, temperature: 0.3 } });
    expect(res.statusCode).toBe(200);
    if (stream) expect(parseEvents(res.body).at(-1)!.event).toBe('done');
    else expect(res.json().error).toBe(false);
    const [request] = fake.requests();
    expect(request).toMatchObject({ provider, system: SYSTEM, temperature: 0.3 });
    expect(systemAsSent(provider, request!.body)).toEqual(EXPECTED_SYSTEM[provider]);
    // Providers bill the system prompt as input: so does the budget's estimate and the usage.
    expect((await usageRows(t)).at(-1)!.inputTokens).toBe(Math.ceil((SYSTEM.length + 'Bonjour?'.length) / 4));
  });

  it('sends no temperature to OpenAI’s reasoning models, which refuse one, and the system prompt as a developer message', async () => {
    for (const model of ['o3', 'o4-mini']) {
      const res = await chat(t, admin, 'openai', { body: { ...chatBody('openai', 'Think', model), system: SYSTEM, temperature: 0.2 } });
      expect(res.json(), model).toMatchObject({ error: false });
    }
    expect(fake.requests().map((r) => [r.model, r.temperature, r.system, (r.body.input as Array<{ role: string }>)[0]!.role])).toEqual([
      ['o3', undefined, SYSTEM, 'developer'],
      ['o4-mini', undefined, SYSTEM, 'developer'],
    ]);
  });

  it('the fake refuses a temperature to a reasoning model, as OpenAI does', async () => {
    const res = await fetch(`${fake.baseUrls.openai}/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fake.keys.openai}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'o3', input: [{ role: 'user', content: 'x' }], temperature: 0.5 }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { param: 'temperature', code: 'unsupported_parameter' } });
  });

  it('sends no temperature to DeepSeek’s reasoner nor a system prompt to image generation', async () => {
    await chat(t, admin, 'deepseek', { body: { ...chatBody('deepseek', 'Think', 'deepseek-reasoner'), system: SYSTEM, temperature: 1.2 } });
    await chat(t, admin, 'grok', { body: { ...chatBody('grok', 'A red fox', 'grok-2-image-1212'), system: SYSTEM, temperature: 1 } });
    expect(fake.requests().map((r) => [r.model, r.temperature, r.system])).toEqual([
      ['deepseek-reasoner', undefined, SYSTEM],
      ['grok-2-image-1212', undefined, undefined],
    ]);
    expect(fake.requests()[1]!.body.prompt).toBe('A red fox');
  });

  it('refuses a temperature beyond the provider’s range on the field, without calling it', async () => {
    const claude = await chat(t, admin, 'anthropic', { body: { ...chatBody('anthropic'), temperature: 1.5 } });
    expect(claude.statusCode).toBe(400);
    expect(claude.json().details).toEqual([{ path: 'temperature', message: 'Claude takes a temperature from 0 to 1' }]);
    const any = await chat(t, admin, 'openai', { body: { ...chatBody('openai'), temperature: 2.5 } });
    expect(any.json().details).toEqual([{ path: 'temperature', message: 'Temperature must be from 0 to 2' }]);
    const negative = await chat(t, admin, 'gemini', { body: { ...chatBody('gemini'), temperature: -0.1 } });
    expect(negative.json().details).toEqual([{ path: 'temperature', message: 'Temperature must be from 0 to 2' }]);
    expect(fake.requests()).toEqual([]);
    expect(CHAT_PROVIDER_INFO.anthropic.temperatureMax).toBe(1);
    // Claude at its own maximum is fine.
    expect((await chat(t, admin, 'anthropic', { body: { ...chatBody('anthropic'), temperature: 1 } })).json().error).toBe(false);
  });

  it('refuses a system prompt over 8,000 characters on the field', async () => {
    const res = await chat(t, admin, 'openai', { body: { ...chatBody('openai'), system: 'x'.repeat(8_001) } });
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual([{ path: 'system', message: 'The system prompt must be at most 8,000 characters' }]);
    expect(fake.requests()).toEqual([]);
  });

  it('a blank system prompt is none; SPEC’s {messages, model} alone still works', async () => {
    await chat(t, admin, 'anthropic', { body: { ...chatBody('anthropic'), system: '   ' } });
    await chat(t, admin, 'anthropic', { body: { model: TEST_MODELS.anthropic, messages: [{ role: 'user', content: 'Hi' }] } });
    expect(fake.requests().map((r) => [r.system, r.temperature, 'system' in r.body])).toEqual([
      [undefined, undefined, false],
      [undefined, undefined, false],
    ]);
  });
});
