import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TConversation } from '../../../contracts/chat-history.ts';
import { CHAT_PROVIDERS, type TAnswerTarget, type TChatProvider, type TChatStreamEvent } from '../../../contracts/chat.ts';
import { startChatApp, type ChatApp } from '../../test/chat-app.ts';
import { chat, chatBody, newTestChatId, parseEvents, TEST_MODELS, usageRows } from '../../test/chat-helpers.ts';
import type { FakeAiProviders } from '../../../tests/fakes/ai-providers.ts';
import type { TestApp } from '../../test/test-app.ts';

const LABEL: Record<TChatProvider, string> = { openai: 'GPT', anthropic: 'Claude', gemini: 'Gemini', grok: 'Grok', deepseek: 'DeepSeek', llama: 'Llama' };
const QUESTION = 'Tell me about invoices';
const WHOLE = `Reply to: ${QUESTION}`;
const HALF = WHOLE.slice(0, Math.ceil(WHOLE.length / 2));
/** CHAT_MAX_OUTPUT_TOKENS here: the limit each answer is given (the budget is unlimited). */
const LIMIT = 500;

const textOf = (events: TChatStreamEvent[]) => events.flatMap((e) => (e.event === 'delta' ? [e.data.text] : [])).join('');
const last = (body: string) => parseEvents(body).at(-1);

/**
 * How each provider's answer ended, carried to the person (DESIGN section 11; issue 29 item 1;
 * docs/decisions/0061): through the chat endpoints, streamed and as SPEC's JSON, into the kept
 * chat and its exports, and into the usage records. The fake providers end each answer in the
 * provider's own shape.
 */
describe('how an answer ended, through the chat endpoints', () => {
  let app: ChatApp;
  let fake: FakeAiProviders;
  let t: TestApp;
  let admin: string;

  beforeAll(async () => {
    ({ fake, t, admin } = app = await startChatApp({ CHAT_RATE_LIMIT: '10000', CHAT_DAILY_TOKEN_BUDGET: '0', CHAT_MAX_OUTPUT_TOKENS: String(LIMIT) }));
  });
  afterAll(() => app?.close());
  beforeEach(() => fake.reset());

  const ask = (provider: TChatProvider, stream: boolean, body: object = chatBody(provider, QUESTION)) => chat(t, admin, provider, { stream, body });

  describe.each(CHAT_PROVIDERS)('%s', (provider) => {
    const label = LABEL[provider];

    it('cut at the length limit: the text, finish "length" and a note saying so, streamed and as JSON; its usage is the provider’s', async () => {
      fake.setEnding(provider, 'length');
      const streamed = parseEvents((await ask(provider, true)).body);
      const note = `The answer was cut short: it reached its length limit of ${LIMIT} tokens.`;
      expect(textOf(streamed)).toBe(HALF);
      expect(streamed.at(-1)).toEqual({ event: 'done', data: { model: TEST_MODELS[provider], usage: { inputTokens: expect.any(Number), outputTokens: LIMIT }, finish: 'length', note } });
      const json = (await ask(provider, false)).json();
      expect(json).toMatchObject({ error: false, choices: [{ message: { content: HALF } }], finish: 'length', note, usage: { outputTokens: LIMIT } });
      expect(json.usageEstimated).toBeUndefined();
      expect((await usageRows(t)).slice(-2)).toMatchObject([
        { provider, outcome: 'ok', outputTokens: LIMIT, estimated: false },
        { provider, outcome: 'ok', outputTokens: LIMIT, estimated: false },
      ]);
    });

    it('a reasoning model that spent the whole limit thinking: no text, never a silent empty answer', async () => {
      fake.setEnding(provider, 'thinking');
      const note = `The model used its whole length limit of ${LIMIT} tokens thinking and wrote no answer.`;
      const streamed = parseEvents((await ask(provider, true)).body);
      expect(streamed).toEqual([{ event: 'done', data: { model: TEST_MODELS[provider], usage: { inputTokens: expect.any(Number), outputTokens: LIMIT }, finish: 'length', note } }]);
      expect((await ask(provider, false)).json()).toMatchObject({ error: false, choices: [{ message: { content: '' } }], finish: 'length', note });
    });

    it('stopped by the content filter: the text so far and a note naming the filter', async () => {
      fake.setEnding(provider, 'content-filter');
      const note = `The answer was cut short: ${label}'s content filter stopped it.`;
      expect(last((await ask(provider, true)).body)).toMatchObject({ event: 'done', data: { finish: 'content-filter', note } });
      expect((await ask(provider, false)).json()).toMatchObject({ error: false, choices: [{ message: { content: HALF } }], finish: 'content-filter', note });
    });

    it('a stream that closes after the last text without the closing event: connection lost, the text kept, usage estimated', async () => {
      fake.setEnding(provider, 'no-close');
      const streamed = parseEvents((await ask(provider, true)).body);
      expect(textOf(streamed)).toBe(WHOLE);
      expect(streamed.at(-1)).toEqual({ event: 'error', data: { message: `${label} closed the connection before the answer was complete`, partial: true, finish: 'connection-lost' } });
      expect((await usageRows(t)).at(-1)).toMatchObject({ provider, outcome: 'error', estimated: true, outputTokens: Math.ceil(WHOLE.length / 4) });
    });

    it('a whole answer: finish "complete" and no note', async () => {
      const streamed = last((await ask(provider, true)).body);
      expect(streamed).toMatchObject({ event: 'done', data: { finish: 'complete' } });
      expect(streamed?.event === 'done' && streamed.data.note).toBeUndefined();
      const json = (await ask(provider, false)).json();
      expect(json).toMatchObject({ finish: 'complete' });
      expect(json.note).toBeUndefined();
    });
  });

  it.each(['openai', 'gemini', 'deepseek', 'llama'] as const)('%s: usage the provider did not report is estimated and marked so, streamed and as JSON', async (provider) => {
    fake.setEnding(provider, 'no-usage');
    const streamed = last((await ask(provider, true)).body);
    expect(streamed).toMatchObject({ event: 'done', data: { finish: 'complete', usageEstimated: true, usage: { outputTokens: Math.ceil(WHOLE.length / 4) } } });
    expect((await ask(provider, false)).json()).toMatchObject({ finish: 'complete', usageEstimated: true });
    expect((await usageRows(t)).slice(-2)).toMatchObject([
      { provider, outcome: 'ok', estimated: true },
      { provider, outcome: 'ok', estimated: true },
    ]);
  });

  it('the usage report counts the calls whose tokens were estimated', async () => {
    fake.setEnding('llama', 'no-usage');
    await ask('llama', false);
    const rows = (await t.request({ url: '/api/admin/usage?days=1', cookie: admin })).json().rows as Array<{ provider: string; model: string; estimated: number; requests: number }>;
    const llama = rows.find((r) => r.provider === 'llama')!;
    const recorded = (await usageRows(t)).filter((r) => r.provider === 'llama' && r.model === llama.model);
    expect(llama.estimated).toBe(recorded.filter((r) => r.estimated).length);
    expect(llama.estimated).toBeGreaterThan(0);
  });

  it('an answer cut by a budget that left less than the usual limit says whose limit it was', async () => {
    const budgeted = await startChatApp({ CHAT_RATE_LIMIT: '10000', CHAT_DAILY_TOKEN_BUDGET: '300', CHAT_MAX_OUTPUT_TOKENS: String(LIMIT) });
    try {
      budgeted.fake.setEnding('deepseek', 'length');
      const end = last((await chat(budgeted.t, budgeted.admin, 'deepseek', { stream: true, body: chatBody('deepseek', QUESTION) })).body);
      expect(end).toMatchObject({ event: 'done', data: { finish: 'length', note: expect.stringMatching(/^The answer was cut short: it reached its length limit of \d+ tokens, what your daily AI budget had left for it\.$/) } });
    } finally {
      await budgeted.close();
    }
  });

  describe('kept in the chat (docs/decisions/0056)', () => {
    const target = (chatId: string): TAnswerTarget => ({ chatId, id: 'a1', questionId: 'q1', questionParentId: null, title: QUESTION });
    const kept = (provider: TChatProvider, chatId: string) => ({ ...chatBody(provider, QUESTION), answer: target(chatId) });
    const conversation = async (chatId: string) => (await t.request({ url: `/api/chat/conversations/${chatId}`, cookie: admin })).json<TConversation>();
    const exported = async (chatId: string, format: 'md' | 'json') => (await t.request({ url: `/api/chat/conversations/${chatId}/export?format=${format}`, cookie: admin })).body;

    it.each(['openai', 'anthropic'] as const)('%s: an answer cut at its length limit keeps its finish and note: in the chat, joined again, and in both exports', async (provider) => {
      fake.setEnding(provider, 'length');
      const chatId = newTestChatId();
      const events = parseEvents((await ask(provider, true, kept(provider, chatId))).body);
      const note = `The answer was cut short: it reached its length limit of ${LIMIT} tokens.`;
      expect(events.at(-1)).toMatchObject({ event: 'done', data: { finish: 'length', note } });
      expect((await conversation(chatId)).messages[1]).toMatchObject({ id: 'a1', content: HALF, finish: 'length', note });
      // Joined again after it ended (a reload, another device): its end as it was.
      const joined = parseEvents((await t.request({ url: `/api/chat/conversations/${chatId}/stream?answer=a1`, cookie: admin })).body);
      expect(joined).toEqual([
        { event: 'delta', data: { text: HALF } },
        { event: 'done', data: { model: TEST_MODELS[provider], finish: 'length', note } },
      ]);
      expect(await exported(chatId, 'md')).toContain(`${HALF}\n\n_${note}_\n`);
      expect(JSON.parse(await exported(chatId, 'json')).messages[1]).toMatchObject({ content: HALF, finish: 'length', note });
    });

    it('an answer that is only thought is kept with why it has no text, as JSON too', async () => {
      fake.setEnding('deepseek', 'thinking');
      const chatId = newTestChatId();
      const note = `The model used its whole length limit of ${LIMIT} tokens thinking and wrote no answer.`;
      expect((await ask('deepseek', false, kept('deepseek', chatId))).json()).toMatchObject({ error: false, choices: [{ message: { content: '' } }], finish: 'length', note });
      expect((await conversation(chatId)).messages[1]).toMatchObject({ id: 'a1', content: '', finish: 'length', note });
      expect(await exported(chatId, 'md')).toContain(`_(no text)_\n\n_${note}_\n`);
    });

    it('an answer whose connection was lost keeps its text with why, and ends the same way when joined again', async () => {
      fake.setEnding('gemini', 'no-close');
      const chatId = newTestChatId();
      const events = parseEvents((await ask('gemini', true, kept('gemini', chatId))).body);
      const message = 'Gemini closed the connection before the answer was complete';
      expect(events.at(-1)).toEqual({ event: 'error', data: { message, partial: true, finish: 'connection-lost' } });
      expect((await conversation(chatId)).messages[1]).toMatchObject({ id: 'a1', content: WHOLE, finish: 'connection-lost', note: `The answer was cut short: ${message}` });
      expect(parseEvents((await t.request({ url: `/api/chat/conversations/${chatId}/stream?answer=a1`, cookie: admin })).body).at(-1)).toEqual({
        event: 'error',
        data: { message, partial: true, finish: 'connection-lost' },
      });
      expect(JSON.parse(await exported(chatId, 'json')).messages[1]).toMatchObject({ finish: 'connection-lost' });
    });
  });
});
