import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CHAT_PROVIDERS, type TChatProvider } from '../../../contracts/chat.ts';
import { startFakeAiProviders, type FakeAiFault, type FakeAiProviders } from '../../../tests/fakes/ai-providers.ts';
import { freePort } from '../../../tests/e2e/support/app-server.ts';
import { chat, parseEvents, TEST_MODELS, usageRows } from '../../test/chat-helpers.ts';
import { capturingLogger } from '../../test/secret-scan.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';

// Issue 13, item 7: text from an outside service never reaches users. Each kind of failure has
// one fixed sentence; what the provider said goes to the log only.

const LABEL: Record<TChatProvider, string> = { openai: 'GPT', anthropic: 'Claude', gemini: 'Gemini', grok: 'Grok', deepseek: 'DeepSeek', llama: 'Llama' };
/** Short words: the log masks anything shaped like a key (20+ characters in a row). */
const MARK = 'quokka marmalade lantern 7731';

const SENTENCE: Record<Exclude<FakeAiFault, 'none' | 'hang' | 'cut' | 'stream-error'>, (label: string) => string> = {
  '401': (label) => `The ${label} API key was rejected`,
  quota: (label) => `The ${label} account has no credit left; please tell the administrator`,
  '429': (label) => `${label} is rate limiting requests; try again shortly`,
  '404': (label) => `${label} does not offer this model right now`,
  '500': (label) => `${label} is unavailable right now`,
};

describe('chat errors: the provider’s words stay in the log', () => {
  const { logger, lines } = capturingLogger();
  let fake: FakeAiProviders;
  let t: TestApp;
  let admin: string;

  beforeAll(async () => {
    fake = await startFakeAiProviders();
    t = await createTestApp({ logger, env: { ...fake.env, ADMIN_EMAILS: 'admin@example.com', CHAT_RATE_LIMIT: '10000' } });
    admin = await t.signIn('admin@example.com');
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });
  beforeEach(() => fake.reset());

  /** Log lines written since `from` that quote the provider's text. */
  const quoted = (from: number) => lines.slice(from).filter((line) => line.includes(MARK));

  // Ollama has no keys or credit: it has no such answers.
  const cases = CHAT_PROVIDERS.flatMap((provider) =>
    (Object.keys(SENTENCE) as Array<keyof typeof SENTENCE>).filter((f) => provider !== 'llama' || (f !== '401' && f !== 'quota')).map((fault) => [provider, fault] as const),
  );

  it.each(cases)('%s %s: one fixed sentence, as JSON and as an event', async (provider, fault) => {
    fake.setFault(provider, fault, `${MARK}: details only the provider knows`);
    const from = lines.length;
    const json = await chat(t, admin, provider);
    const stream = await chat(t, admin, provider, { stream: true });
    // An admin asking Llama for a model Ollama lacks is told what to do (item 7, below); Google's
    // spent quota is a rate limit that resets, not an empty account.
    const sentence =
      provider === 'llama' && fault === '404'
        ? expect.stringMatching(/^Ollama at .* does not have the model llama3\.1\./)
        : SENTENCE[provider === 'gemini' && fault === 'quota' ? '429' : fault](LABEL[provider]);
    expect(json.json()).toEqual({ error: true, message: sentence, choices: [], model: TEST_MODELS[provider], finish: 'failed' });
    expect(parseEvents(stream.body)).toEqual([{ event: 'error', data: { message: sentence, partial: false, finish: 'failed' } }]);
    for (const body of [json.body, stream.body]) expect(body).not.toContain(MARK);
    expect(quoted(from).length).toBeGreaterThanOrEqual(2);
    expect(JSON.parse(quoted(from)[0]!)).toMatchObject({ msg: 'chat provider call failed', provider });
  });

  it('llama 404: an admin is told which Ollama lacks the model and what to do; a guest gets the short sentence', async () => {
    fake.setFault('llama', '404');
    const guest = await t.signIn('guest@example.com');
    expect((await chat(t, admin, 'llama')).json().message).toBe(
      `Ollama at ${fake.baseUrls.llama} does not have the model llama3.1. Run "ollama pull llama3.1" there, or change OLLAMA_MODELS.`,
    );
    expect((await chat(t, guest, 'llama')).json().message).toBe('Llama does not offer this model right now');
  });

  it.each(CHAT_PROVIDERS)('%s: an error event in the middle of a stream keeps the text so far and says one fixed sentence', async (provider) => {
    fake.setFault(provider, 'stream-error', `${MARK}: upstream worker crashed`);
    const from = lines.length;
    const res = await chat(t, admin, provider, { stream: true, body: { model: TEST_MODELS[provider], messages: [{ role: 'user', content: 'a long question' }] } });
    const events = parseEvents(res.body);
    expect(events.filter((e) => e.event === 'delta').length).toBeGreaterThanOrEqual(1);
    expect(events.at(-1)).toEqual({ event: 'error', data: { message: `${LABEL[provider]} is unavailable right now`, partial: true, finish: 'failed' } });
    expect(res.body).not.toContain(MARK);
    expect(quoted(from).length).toBeGreaterThanOrEqual(1);
    // The usage report keeps our sentence too, never the provider's.
    const row = (await usageRows(t)).at(-1)!;
    expect(row).toMatchObject({ provider, outcome: 'error', error: `${LABEL[provider]} is unavailable right now` });
  });
});

describe('chat errors: an Ollama that is not there', () => {
  const { logger, lines } = capturingLogger();
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    port = await freePort(); // nothing listens there
    t = await createTestApp({
      logger,
      env: { ADMIN_EMAILS: 'admin@example.com', OLLAMA_BASE_URL: `http://ollama-user:ollama-Pa55word@127.0.0.1:${port}/?token=abc123` },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('tells an admin where Ollama was looked for (without the URL’s credentials), and others the short sentence', async () => {
    const admin = await t.signIn('admin@example.com');
    const guest = await t.signIn('guest@example.com');
    const detail = `Ollama was not reachable at http://127.0.0.1:${port} (OLLAMA_BASE_URL). Check that Ollama is running there and that this server can connect to it.`;

    expect((await chat(t, admin, 'llama')).json()).toMatchObject({ error: true, message: detail });
    expect(parseEvents((await chat(t, admin, 'llama', { stream: true })).body)).toEqual([{ event: 'error', data: { message: detail, partial: false, finish: 'failed' } }]);
    const short = 'Llama cannot be reached right now';
    expect((await chat(t, guest, 'llama')).json()).toMatchObject({ error: true, message: short });
    expect(parseEvents((await chat(t, guest, 'llama', { stream: true })).body)).toEqual([{ event: 'error', data: { message: short, partial: false, finish: 'failed' } }]);

    // What is stored and logged names neither the password nor the token.
    expect((await usageRows(t)).map((r) => r.error)).toEqual([short, short, short, short]);
    const failures = lines.filter((line) => line.includes('chat provider call failed'));
    expect(failures).toHaveLength(4);
    expect(failures[0]).toContain('ECONNREFUSED');
    for (const line of lines) {
      expect(line).not.toContain('ollama-Pa55word');
      expect(line).not.toContain('abc123');
    }
  });
});
