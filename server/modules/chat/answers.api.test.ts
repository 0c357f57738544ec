import http from 'node:http';
import pg from 'pg';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TConversation, TConversationList } from '../../../contracts/chat-history.ts';
import type { TAnswerTarget, TChatStreamEvent } from '../../../contracts/chat.ts';
import { startFakeAiProviders, type FakeAiProviders } from '../../../tests/fakes/ai-providers.ts';
import { chat, chatBody, conversationBody, newTestChatId, parseEvents, usageRows } from '../../test/chat-helpers.ts';
import { listenLocally, openEventStream, type EventStreamClient } from '../../test/event-stream-client.ts';
import { createTestApp, TEST_ORIGIN, type TestApp } from '../../test/test-app.ts';
import { until } from '../../test/until.ts';

const onPostgres = process.env.TEST_DATABASE === 'postgres';
const QUESTION = 'Tell me about invoices';
const ANSWER = `Reply to: ${QUESTION}`;

const target = (chatId: string, overrides: Partial<TAnswerTarget> = {}): TAnswerTarget => ({ chatId, id: 'a1', questionId: 'q1', questionParentId: null, title: QUESTION, ...overrides });
const keptBody = (chatId: string, overrides: Partial<TAnswerTarget> = {}) => ({ ...chatBody('openai', QUESTION), answer: target(chatId, overrides) });
const textOf = (events: Array<{ event: string; data: unknown }>) =>
  events
    .filter((e) => e.event === 'delta')
    .map((e) => (e.data as { text: string }).text)
    .join('');

/** Answers the server keeps writing into the user's chat whoever listens (docs/decisions/0056). */
describe('answers that survive a reload', () => {
  let fake: FakeAiProviders;
  let t: TestApp;
  let base: string;
  let owner: string;
  let other: string;
  const open: EventStreamClient[] = [];

  beforeAll(async () => {
    fake = await startFakeAiProviders();
    t = await createTestApp({ env: { ...fake.env, ADMIN_EMAILS: 'owner@example.com,other@example.com', CHAT_RATE_LIMIT: '1000' } });
    base = await listenLocally(t.app);
    owner = await t.signIn('owner@example.com', 'Owner');
    other = await t.signIn('other@example.com', 'Other');
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });
  beforeEach(() => fake.reset());
  afterEach(() => {
    for (const stream of open.splice(0)) stream.close();
  });

  const conversation = async (chatId: string, cookie = owner) => (await t.request({ url: `/api/chat/conversations/${chatId}`, cookie })).json<TConversation>();
  const ask = async (chatId: string, body: object = keptBody(chatId)) => {
    const stream = await openEventStream(base, '/api/openai/chat', owner, { method: 'POST', body });
    open.push(stream);
    return stream;
  };
  const join = async (chatId: string, answerId = 'a1', cookie = owner) => {
    const stream = await openEventStream(base, `/api/chat/conversations/${chatId}/stream?answer=${answerId}`, cookie);
    open.push(stream);
    return stream;
  };
  const stop = (chatId: string, answer = 'a1', cookie = owner) => t.request({ method: 'POST', url: `/api/chat/conversations/${chatId}/stop`, cookie, payload: { answer } });
  const ended = (e: { event: string }) => e.event === 'done' || e.event === 'error';

  it('goes on when the browser goes away; a reload finds it in the chat and joins it: what came so far, then the rest', async () => {
    const hold = fake.holdAfterFirstChunk();
    const chatId = newTestChatId();
    const first = await ask(chatId);
    const firstDelta = await first.next((e) => e.event === 'delta');
    first.close(); // the reload
    await first.closed;

    // The chat lists it as answering, and shows the answer being written.
    const listed = (await t.request({ url: '/api/chat/conversations?provider=openai', cookie: owner })).json<TConversationList>();
    expect(listed.conversations.find((c) => c.id === chatId)).toMatchObject({ answering: true, title: QUESTION });
    const during = await conversation(chatId);
    expect(during).toMatchObject({ leafId: 'a1', answering: true });
    expect(during.messages).toMatchObject([
      { id: 'q1', parentId: null, role: 'user', content: QUESTION },
      { id: 'a1', parentId: 'q1', role: 'assistant', model: 'gpt-4o', streaming: true },
    ]);

    const joined = await join(chatId);
    expect(joined.status).toBe(200);
    expect(await joined.next(() => true)).toMatchObject({ event: 'delta', data: firstDelta.data }); // the text so far, first
    hold.release();
    const last = await joined.next(ended);
    expect(last).toMatchObject({ event: 'done', data: { model: 'gpt-4o' } });
    expect(textOf(joined.events)).toBe(ANSWER);
    expect(fake.abortedCount()).toBe(0); // the provider call was never cut

    const after = await conversation(chatId);
    expect(after.messages[1]).toEqual({ id: 'a1', parentId: 'q1', role: 'assistant', content: ANSWER, model: 'gpt-4o', finish: 'complete', timestamp: expect.any(String) });
    expect(after.answering).toBe(false);
    expect((await usageRows(t)).at(-1)).toMatchObject({ provider: 'openai', outcome: 'ok' });
  });

  it('a second tab joins while the first still follows: both get the whole answer once', async () => {
    const hold = fake.holdAfterFirstChunk();
    const chatId = newTestChatId();
    const first = await ask(chatId);
    await first.next((e) => e.event === 'delta');
    const second = await join(chatId);
    await second.next((e) => e.event === 'delta');
    hold.release();
    await Promise.all([first.next(ended), second.next(ended)]);
    expect(textOf(first.events)).toBe(ANSWER);
    expect(textOf(second.events)).toBe(ANSWER);
  });

  it('joins an answer that has ended: its text and its end; after a reload the chat shows it whole', async () => {
    const chatId = newTestChatId();
    const res = await chat(t, owner, 'openai', { stream: true, body: keptBody(chatId) });
    expect(parseEvents(res.body).at(-1)).toMatchObject({ event: 'done' });
    const joined = await t.request({ url: `/api/chat/conversations/${chatId}/stream?answer=a1`, cookie: owner });
    expect(parseEvents(joined.body)).toEqual([
      { event: 'delta', data: { text: ANSWER } },
      { event: 'done', data: { model: 'gpt-4o', finish: 'complete' } },
    ]);
  });

  it('only its owner can join or stop it: anyone else gets 404, for a running, an ended or an unknown answer alike', async () => {
    const hold = fake.holdAfterFirstChunk();
    const chatId = newTestChatId();
    const first = await ask(chatId);
    await first.next((e) => e.event === 'delta');
    const stranger = await t.signIn('stranger@example.com', 'Stranger');
    for (const cookie of [other, stranger]) {
      for (const answer of ['a1', 'q1', 'zz']) {
        const res = await t.request({ url: `/api/chat/conversations/${chatId}/stream?answer=${answer}`, cookie });
        expect([res.statusCode, res.headers['content-type']]).toEqual([404, 'application/json; charset=utf-8']);
        expect(res.json()).toEqual({ error: 'Not Found', message: 'Answer not found' });
        expect((await stop(chatId, answer, cookie)).statusCode).toBe(404);
      }
    }
    // The owner's own question or an unknown id is not an answer to join either.
    expect((await t.request({ url: `/api/chat/conversations/${chatId}/stream?answer=q1`, cookie: owner })).statusCode).toBe(404);
    expect((await t.request({ url: `/api/chat/conversations/${chatId}/stream?answer=zz`, cookie: owner })).statusCode).toBe(404);
    expect((await t.request({ url: `/api/chat/conversations/${chatId}/stream?answer=a1` })).statusCode).toBe(401);
    // Nobody else's request stopped it.
    hold.release();
    expect(await first.next(ended)).toMatchObject({ event: 'done' });
    expect(fake.abortedCount()).toBe(0);
    // Ended, it is still 404 for them.
    expect((await t.request({ url: `/api/chat/conversations/${chatId}/stream?answer=a1`, cookie: other })).statusCode).toBe(404);
  });

  it('Stop ends it, from any request of the owner: the provider call is cut and the chat keeps it as far as it got, marked', async () => {
    fake.holdAfterFirstChunk();
    const chatId = newTestChatId();
    const first = await ask(chatId);
    const firstDelta = await first.next((e) => e.event === 'delta');
    expect((await stop(chatId)).statusCode).toBe(204);
    expect(await first.next(ended)).toEqual({ id: null, event: 'error', data: { message: 'Stopped', partial: true, stopped: true, finish: 'stopped' } });
    await fake.waitForAborted(1);
    const text = (firstDelta.data as { text: string }).text;
    expect((await conversation(chatId)).messages[1]).toMatchObject({ id: 'a1', content: text, note: '(stopped)' });
    expect((await conversation(chatId)).messages[1]!.streaming).toBeUndefined();
    expect((await usageRows(t)).at(-1)).toMatchObject({ outcome: 'stopped' });
    // Stop again: nothing left to stop, still fine.
    expect((await stop(chatId)).statusCode).toBe(204);
  });

  it('an answer that fails before any text is not kept (the browser shows its own error); one cut short after some text is, with why', async () => {
    fake.setFault('openai', '500');
    const failed = newTestChatId();
    const events = parseEvents((await chat(t, owner, 'openai', { stream: true, body: keptBody(failed) })).body);
    expect(events).toEqual([{ event: 'error', data: { message: 'GPT is unavailable right now', partial: false, finish: 'failed' } }]);
    expect(await conversation(failed)).toMatchObject({ leafId: 'q1', messages: [{ id: 'q1' }] });

    fake.setFault('openai', 'stream-error');
    const cut = newTestChatId();
    const cutEvents = parseEvents((await chat(t, owner, 'openai', { stream: true, body: keptBody(cut) })).body);
    expect(cutEvents.at(-1)).toMatchObject({ event: 'error', data: { partial: true } });
    const message = (cutEvents.at(-1) as Extract<TChatStreamEvent, { event: 'error' }>).data.message;
    expect((await conversation(cut)).messages[1]).toMatchObject({ id: 'a1', content: textOf(cutEvents), note: `The answer was cut short: ${message}` });
  });

  it("answers SPEC's JSON to a client that asks for JSON, and keeps the answer too", async () => {
    const chatId = newTestChatId();
    const res = await chat(t, owner, 'openai', { body: keptBody(chatId) });
    expect(res.json()).toEqual({ error: false, choices: [{ message: { role: 'assistant', content: ANSWER } }], model: 'gpt-4o', usage: { inputTokens: expect.any(Number), outputTokens: expect.any(Number) }, finish: 'complete' });
    expect((await conversation(chatId)).messages[1]).toMatchObject({ id: 'a1', content: ANSWER });
  });

  it("a browser's save while the answer is written leaves the chat's branch on the answer, so a reload finds it", async () => {
    const hold = fake.holdAfterFirstChunk();
    const chatId = newTestChatId();
    const first = await ask(chatId);
    await first.next((e) => e.event === 'delta');
    // The browser saves its question with the branch ending there (the answer is not saved by it yet).
    const save = conversationBody(chatId);
    const saved = await t.request({ method: 'POST', url: '/api/chat/conversations', cookie: owner, payload: { ...save, title: QUESTION, leafId: 'q1', messages: [{ ...save.messages[0], content: QUESTION }] } });
    expect(saved.statusCode).toBe(200);
    expect((await conversation(chatId)).leafId).toBe('a1');
    hold.release();
    await first.next(ended);
  });

  it('goes on in a chat the server does not hold yet, and into an existing one after its last saved message', async () => {
    const saved = conversationBody();
    await t.request({ method: 'POST', url: '/api/chat/conversations', cookie: owner, payload: saved });
    const res = await chat(t, owner, 'openai', { stream: true, body: { model: 'gpt-4o', messages: [{ role: 'user', content: 'Hello there' }, { role: 'assistant', content: 'Reply to: Hello there' }, { role: 'user', content: 'And then?' }], answer: { chatId: saved.id, id: 'a2', questionId: 'q2', questionParentId: 'a1', title: 'Hello there' } } });
    expect(parseEvents(res.body).at(-1)).toMatchObject({ event: 'done' });
    const after = await conversation(saved.id);
    expect(after.leafId).toBe('a2');
    expect(after.messages.map((m) => [m.id, m.parentId, m.content])).toEqual([
      ['q1', null, 'Hello there'],
      ['a1', 'q1', 'Reply to: Hello there'],
      ['q2', 'a1', 'And then?'],
      ['a2', 'q2', 'Reply to: And then?'],
    ]);
  });

  it('still answers when the question follows a message the server has not got yet (the browser saves it a second later)', async () => {
    const chatId = newTestChatId();
    const res = await chat(t, owner, 'openai', { stream: true, body: keptBody(chatId, { questionParentId: 'not-saved-yet' }) });
    expect(parseEvents(res.body).at(-1)).toMatchObject({ event: 'done' });
    expect(textOf(parseEvents(res.body))).toBe(ANSWER);
  });

  it('refuses a target in a chat with another assistant, or an answer id the chat holds, before calling anyone', async () => {
    const saved = conversationBody();
    await t.request({ method: 'POST', url: '/api/chat/conversations', cookie: owner, payload: { ...saved, provider: 'deepseek', model: 'deepseek-chat' } });
    const wrong = await chat(t, owner, 'openai', { stream: true, body: keptBody(saved.id, { id: 'a9', questionId: 'q9', questionParentId: 'a1' }) });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().details).toEqual([{ path: 'answer.chatId', message: 'must be a chat with GPT: this one is with DeepSeek' }]);

    const mine = conversationBody();
    await t.request({ method: 'POST', url: '/api/chat/conversations', cookie: owner, payload: mine });
    const twice = await chat(t, owner, 'openai', { stream: true, body: keptBody(mine.id, { id: 'a1', questionId: 'q9', questionParentId: 'a1' }) });
    expect(twice.statusCode).toBe(409);
    expect(twice.json().details).toEqual([{ path: 'answer.id', message: 'is an answer this chat holds already: ask again for a new one' }]);
    const same = await chat(t, owner, 'openai', { stream: true, body: keptBody(newTestChatId(), { id: 'q1' }) });
    expect(same.json().details).toEqual([{ path: 'answer.id', message: 'The answer id must differ from the question id' }]);
    expect(fake.requests()).toEqual([]);
    // The budget those calls reserved is released.
    expect((await usageRows(t)).filter((r) => r.outcome !== 'ok' && r.outcome !== 'stopped' && r.outcome !== 'error')).toEqual([]);
  });

  it('when the process closes mid-answer the chat keeps the answer as far as it got, saying why', async () => {
    const local = await createTestApp({ env: { ...fake.env, ADMIN_EMAILS: 'owner@example.com' } });
    const localBase = await listenLocally(local.app);
    const cookie = await local.signIn('owner@example.com');
    const hold = fake.holdAfterFirstChunk();
    const chatId = newTestChatId();
    const stream = await openEventStream(localBase, '/api/openai/chat', cookie, { method: 'POST', body: keptBody(chatId) });
    open.push(stream);
    await stream.next((e) => e.event === 'delta');
    const closing = local.close();
    expect(await stream.next(ended)).toMatchObject({ event: 'error', data: { message: 'The server restarted before the answer was complete. Please try again.', partial: true, finish: 'interrupted' } });
    hold.release();
    await closing;
  });
});

describe.runIf(onPostgres)('answers across two processes on PostgreSQL (docs/decisions/0056)', () => {
  let fake: FakeAiProviders;
  let a: TestApp;
  let b: TestApp;
  let aBase: string;
  let bBase: string;
  let owner: string;

  beforeAll(async () => {
    fake = await startFakeAiProviders();
    a = await createTestApp({ env: { ...fake.env, ADMIN_EMAILS: 'owner@example.com' } });
    b = await createTestApp({ env: { ...fake.env, ADMIN_EMAILS: 'owner@example.com' }, sameDatabaseAs: a });
    aBase = await listenLocally(a.app);
    bBase = await listenLocally(b.app);
    owner = await a.signIn('owner@example.com', 'Owner');
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await fake?.close();
  });
  beforeEach(() => fake.reset());

  it('a join that lands on another process follows the answer as it is saved, to its end', async () => {
    const hold = fake.holdAfterFirstChunk();
    const chatId = newTestChatId();
    const asked = await openEventStream(aBase, '/api/openai/chat', owner, { method: 'POST', body: keptBody(chatId) });
    const firstDelta = await asked.next((e) => e.event === 'delta');
    asked.close();
    // Saved every second: the other process sees the first words once they are.
    await until(
      async () => (await b.request({ url: `/api/chat/conversations/${chatId}`, cookie: owner })).json<TConversation>().messages[1]?.content,
      (content) => content === (firstDelta.data as { text: string }).text,
    );
    const joined = await openEventStream(bBase, `/api/chat/conversations/${chatId}/stream?answer=a1`, owner);
    expect(await joined.next(() => true)).toMatchObject({ event: 'delta', data: firstDelta.data });
    hold.release();
    expect(await joined.next((e) => e.event !== 'delta')).toMatchObject({ event: 'done', data: { model: 'gpt-4o' } });
    expect(textOf(joined.events)).toBe(ANSWER);
    joined.close();
  });

  it('Stop pressed on another process reaches the one writing the answer', async () => {
    fake.holdAfterFirstChunk();
    const chatId = newTestChatId();
    const asked = await openEventStream(aBase, '/api/openai/chat', owner, { method: 'POST', body: keptBody(chatId) });
    await asked.next((e) => e.event === 'delta');
    const res = await fetch(`${bBase}/api/chat/conversations/${chatId}/stop`, { method: 'POST', headers: { cookie: owner, origin: 'http://localhost:3000', 'content-type': 'application/json' }, body: JSON.stringify({ answer: 'a1' }) });
    expect(res.status).toBe(204);
    expect(await asked.next((e) => e.event !== 'delta', 5_000)).toMatchObject({ event: 'error', data: { stopped: true } });
    await fake.waitForAborted(1);
    asked.close();
  });
});

describe.runIf(onPostgres)('a browser that leaves before its answer begins (Stop at once)', () => {
  let fake: FakeAiProviders;
  let t: TestApp;
  let base: string;
  let owner: string;
  const logged: string[] = [];

  beforeAll(async () => {
    fake = await startFakeAiProviders();
    const logger = pino({ level: 'info' }, { write: (line: string) => void logged.push(line) });
    t = await createTestApp({ env: { ...fake.env, ADMIN_EMAILS: 'owner@example.com', CHAT_RATE_LIMIT: '1000' }, logger });
    base = await listenLocally(t.app);
    owner = await t.signIn('owner@example.com', 'Owner');
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  it('starts nothing and gives the budget back', async () => {
    const { url } = t.config.database as { url: string };
    const locker = new pg.Client({ connectionString: url });
    await locker.connect();
    try {
      // The budget's table locked: the request waits there, its body read, its answer not begun.
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE chat_reservations IN ACCESS EXCLUSIVE MODE');
      const serverSocketClosed = new Promise<void>((resolve) => t.app.server.once('connection', (socket) => socket.once('close', () => resolve())));
      const chatId = newTestChatId();
      const body = JSON.stringify(keptBody(chatId));
      const request = http.request(`${base}/api/openai/chat`, {
        method: 'POST',
        agent: false,
        headers: { cookie: owner, accept: 'text/event-stream', origin: TEST_ORIGIN, 'content-type': 'application/json' },
      });
      request.on('error', () => {});
      request.end(body);
      await until(
        async () => (await locker.query<{ waiting: number }>("SELECT count(*)::int AS waiting FROM pg_locks WHERE NOT granted AND relation = 'chat_reservations'::regclass")).rows[0]!.waiting,
        (waiting) => waiting > 0,
      );
      request.destroy(); // the browser leaves (Stop before the first words)
      await serverSocketClosed;
      await locker.query('COMMIT');

      await until(async () => logged.some((line) => line.includes('chat answer not started')), Boolean);
      expect(fake.requests()).toEqual([]); // no provider was called
      expect((await t.request({ url: `/api/chat/conversations/${chatId}`, cookie: owner })).statusCode).toBe(404); // nothing stored
      expect((await locker.query<{ n: number }>('SELECT count(*)::int AS n FROM chat_reservations')).rows[0]!.n).toBe(0); // the budget given back
      expect((await t.request({ method: 'POST', url: `/api/chat/conversations/${chatId}/stop`, cookie: owner, payload: { answer: 'a1' } })).statusCode).toBe(404);
    } finally {
      await locker.end();
    }
  });
});
