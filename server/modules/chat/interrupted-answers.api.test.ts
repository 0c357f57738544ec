import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TConversation } from '../../../contracts/chat-history.ts';
import type { TChatUsageReport } from '../../../contracts/chat.ts';
import { startFakeAiProviders, type FakeAiProviders } from '../../../tests/fakes/ai-providers.ts';
import { chatConversations, chatMessages, chatReservations, users } from '../../db/schema.ts';
import { startChatApp, type ChatApp } from '../../test/chat-app.ts';
import { newTestChatId, usageRows } from '../../test/chat-helpers.ts';
import { listenLocally, openEventStream } from '../../test/event-stream-client.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { until } from '../../test/until.ts';
import { createChatBudget } from './budget.ts';
import { createConversationsService, WRITER_GONE_NOTE } from './conversations.service.ts';
import { createImagesService } from './images.service.ts';
import { createInterruptedAnswers } from './interrupted-answers.ts';
import { estimateTextTokens } from './token-estimate.ts';

const onPostgres = process.env.TEST_DATABASE === 'postgres';

/** The answer a1 of the chat, as its row is stored. */
async function answerRow(on: TestApp, chatId: string) {
  const [row] = await on.database.db
    .select({ conversationId: chatMessages.conversationId, content: chatMessages.content, createdAt: chatMessages.createdAt })
    .from(chatMessages)
    .innerJoin(chatConversations, eq(chatConversations.id, chatMessages.conversationId))
    .where(and(eq(chatConversations.chatId, chatId), eq(chatMessages.id, 'a1')));
  return row;
}

/** Moves the answer's lease to `until` (its writer stopped renewing it). */
async function leaseOf(on: TestApp, chatId: string, until: Date) {
  const row = await answerRow(on, chatId);
  await on.database.db.update(chatMessages).set({ streamingUntil: until }).where(and(eq(chatMessages.conversationId, row!.conversationId), eq(chatMessages.id, 'a1')));
}
const QUESTION = 'Tell me about invoices';
const PARTIAL = 'Invoices are documents that a seller sends';
const INPUT_TOKENS = 42;
const BUDGET = 100_000;
/** The writers' lease these apps run with (CHAT_ANSWER_LEASE_SECONDS, 15 unless set). */
const LEASE_MS = 15_000;

/**
 * An answer whose process died mid-answer (kill -9) keeps its partial text; the sweep that runs
 * when a process starts (and every minute after) settles its usage, estimated, as interrupted
 * (issue 29 item 9; docs/decisions/0061). The row is left as a dead writer leaves it: begun and
 * saved by the same modules the writer uses, its reservation held, its lease run out. The real
 * kill -9 and restart: tests/process/interrupted-answers.process.test.ts.
 */
describe('answers left by a process that died', () => {
  let app: ChatApp;
  let t: TestApp;
  let admin: string;
  let userId: string;

  beforeAll(async () => {
    app = await startChatApp({ CHAT_RATE_LIMIT: '10000', CHAT_DAILY_TOKEN_BUDGET: String(BUDGET) });
    ({ t, admin } = app);
    userId = (await t.database.db.select({ id: users.id }).from(users).where(eq(users.email, 'admin@example.com')))[0]!.id;
  });
  afterAll(() => app?.close());
  beforeEach(() => app.fake.reset());

  /** A sweep as a starting process runs it (this test process writes no answer itself). */
  const sweep = (on: TestApp = t) => createInterruptedAnswers({ db: on.database.db, now: on.now, leaseMs: LEASE_MS, isLiveHere: () => false }).settle();

  /** What a writer killed mid-answer leaves: the answer begun with its reservation, its text saved, and its lease `leftMs` from now. */
  async function leftByADeadWriter(chatId: string, leftMs: number) {
    const db = t.database.db;
    const conversations = createConversationsService({ db, images: createImagesService({ db, storageBytes: 1e9, decoder: { decode: () => Promise.reject(new Error('this test uploads no image')) } }), projects: t.app.projects, now: t.now });
    const reservation = await createChatBudget({ db, limits: { tokens: BUDGET, images: 10 }, now: t.now }).reserve(userId, { kind: 'text', inputTokens: INPUT_TOKENS, maxOutputTokens: 1_000 });
    if ('ok' in reservation) throw new Error('not reserved');
    const target = { chatId, id: 'a1', questionId: 'q1', questionParentId: null, title: QUESTION };
    const lease = new Date(t.now().getTime() + LEASE_MS);
    const { conversationId } = await conversations.beginAnswer(
      userId,
      { target, provider: 'openai', model: 'gpt-4o', question: { content: QUESTION, images: [] }, systemPrompt: '', temperature: null, unsettled: { inputTokens: INPUT_TOKENS, reservationId: reservation.id } },
      lease,
    );
    await conversations.saveAnswerProgress(conversationId, 'a1', PARTIAL, [], new Date(t.now().getTime() + leftMs));
    return { conversationId, reservationId: reservation.id! };
  }
  const conversation = async (chatId: string) => (await t.request({ url: `/api/chat/conversations/${chatId}`, cookie: admin })).json<TConversation>();

  it('settles one whose lease ran out: partial text kept with why, usage estimated as interrupted, its reservation freed, once', async () => {
    const chatId = newTestChatId();
    const { reservationId } = await leftByADeadWriter(chatId, -1_000);
    const before = (await usageRows(t)).length;
    const began = (await answerRow(t, chatId))!.createdAt;

    expect(await sweep()).toBe(1);

    expect((await conversation(chatId)).messages[1]).toEqual({ id: 'a1', parentId: 'q1', role: 'assistant', content: PARTIAL, model: 'gpt-4o', timestamp: expect.any(String), note: WRITER_GONE_NOTE, finish: 'interrupted' });
    const rows = await usageRows(t);
    expect(rows).toHaveLength(before + 1);
    // Counted on the day it was spent: the budget of that day holds it.
    expect(rows.at(-1)).toMatchObject({ userId, provider: 'openai', model: 'gpt-4o', outcome: 'interrupted', estimated: true, inputTokens: INPUT_TOKENS, outputTokens: estimateTextTokens(PARTIAL), createdAt: began });
    expect(await t.database.db.select().from(chatReservations).where(eq(chatReservations.id, reservationId))).toEqual([]);
    // Usage shows it, as estimated and failed (the server's fault, not the person's Stop).
    const report = (await t.request({ url: '/api/admin/usage?days=1', cookie: admin })).json<TChatUsageReport>();
    expect(report.rows.find((r) => r.model === 'gpt-4o')).toMatchObject({ estimated: 1, failed: 1, stopped: 0, inputTokens: INPUT_TOKENS, outputTokens: estimateTextTokens(PARTIAL) });

    // Settled once: a second sweep (another process, or the next minute) finds nothing.
    expect(await sweep()).toBe(0);
    expect(await usageRows(t)).toHaveLength(before + 1);
  });

  it('leaves an answer whose lease still runs (another process is writing it)', async () => {
    const chatId = newTestChatId();
    const { reservationId } = await leftByADeadWriter(chatId, LEASE_MS);
    const before = (await usageRows(t)).length;
    expect(await sweep()).toBe(0);
    expect((await conversation(chatId)).messages[1]).toMatchObject({ content: PARTIAL, streaming: true });
    expect(await usageRows(t)).toHaveLength(before);
    expect(await t.database.db.select().from(chatReservations).where(eq(chatReservations.id, reservationId))).toHaveLength(1);
    // Its writer dies later: the next sweep after its lease settles it.
    await leaseOf(t, chatId, new Date(t.now().getTime() - 1));
    expect(await sweep()).toBe(1);
    expect((await conversation(chatId)).messages[1]).toMatchObject({ content: PARTIAL, finish: 'interrupted' });
  });

  it('never settles an answer this process is writing, whatever its lease says', async () => {
    const hold = app.fake.holdAfterFirstChunk();
    const chatId = newTestChatId();
    const base = await listenLocally(t.app);
    const target = { chatId, id: 'a1', questionId: 'q1', questionParentId: null, title: QUESTION };
    const stream = await openEventStream(base, '/api/openai/chat', admin, { method: 'POST', body: { model: 'gpt-4o', messages: [{ role: 'user', content: QUESTION }], answer: target } });
    try {
      await stream.next((e) => e.event === 'delta');
      // A save held up (a busy database) let its lease lapse; this process's own sweep must not take it.
      const before = (await usageRows(t)).length;
      await leaseOf(t, chatId, new Date(t.now().getTime() - 1));
      const own = createInterruptedAnswers({ db: t.database.db, now: t.now, leaseMs: LEASE_MS, isLiveHere: (_user, chat, answer) => chat === chatId && answer === 'a1' });
      expect(await own.settle()).toBe(0);
      hold.release();
      expect(await stream.next((e) => e.event !== 'delta')).toMatchObject({ event: 'done', data: { finish: 'complete' } });
      expect((await usageRows(t)).slice(before)).toMatchObject([{ outcome: 'ok', estimated: false }]);
    } finally {
      hold.release();
      stream.close();
    }
  });
});

describe.runIf(onPostgres)('an answer settled by another process while its writer still ran (PostgreSQL)', () => {
  let fake: FakeAiProviders;
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    fake = await startFakeAiProviders();
    a = await createTestApp({ env: { ...fake.env, ADMIN_EMAILS: 'owner@example.com', CHAT_DAILY_TOKEN_BUDGET: String(BUDGET) } });
    b = await createTestApp({ env: { ...fake.env, ADMIN_EMAILS: 'owner@example.com' }, sameDatabaseAs: a });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await fake?.close();
  });

  it('is counted once: the writer finding it settled records no second usage', async () => {
    const owner = await a.signIn('owner@example.com', 'Owner');
    const hold = fake.holdAfterFirstChunk();
    const chatId = newTestChatId();
    const stream = await openEventStream(await listenLocally(a.app), '/api/openai/chat', owner, {
      method: 'POST',
      body: { model: 'gpt-4o', messages: [{ role: 'user', content: QUESTION }], answer: { chatId, id: 'a1', questionId: 'q1', questionParentId: null, title: QUESTION } },
    });
    try {
      await stream.next((e) => e.event === 'delta');
      await until(async () => (await answerRow(a, chatId))?.content, Boolean);
      // A's saves stalled past its lease (its database link was down, say): B takes it for dead.
      await leaseOf(a, chatId, new Date(Date.now() - 1));
      const before = (await usageRows(a)).length;
      expect(await createInterruptedAnswers({ db: b.database.db, now: b.now, leaseMs: LEASE_MS, isLiveHere: () => false }).settle()).toBe(1);
      hold.release();
      await stream.next((e) => e.event !== 'delta');
      expect((await usageRows(a)).slice(before)).toMatchObject([{ outcome: 'interrupted', estimated: true }]);
      expect(await a.database.db.select().from(chatReservations)).toEqual([]);
    } finally {
      hold.release();
      stream.close();
    }
  });
});
