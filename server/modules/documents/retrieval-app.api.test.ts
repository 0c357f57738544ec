import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TChatUsageReport } from '../../../contracts/chat.ts';
import type { TDocument, TDocumentList } from '../../../contracts/documents.ts';
import { startFakeAiProviders, type FakeAiProviders } from '../../../tests/fakes/ai-providers.ts';
import { sessionUser } from '../../test/documents-seed.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { until } from '../../test/until.ts';

/**
 * Retrieval through the app as it is assembled (issue 32): an upload's passages embedded after it
 * answers, `app.documents.retrieve` hybrid, the embedding calls at Usage, a deleted document gone
 * from the next question, in this process and (PostgreSQL) another one on the same database.
 */
const never = new AbortController().signal;
const REFUND = 'Refunds are issued within 14 days once the returned parcel has been received.';
const GARDEN = 'Tomatoes like sunny soil and basil wants shade.';

describe('retrieval in the app', () => {
  let fake: FakeAiProviders;
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    fake = await startFakeAiProviders();
  });
  afterAll(() => fake.close());
  beforeEach(async () => {
    fake.reset();
    t = await createTestApp({ env: { ...fake.env, ADMIN_EMAILS: 'admin@example.com', EMBEDDING_PROVIDER: 'openai' } });
    admin = await t.signIn('admin@example.com', 'Ada Admin');
  });
  afterEach(() => t.close());

  const upload = (app: TestApp, name: string, text: string) =>
    app.request({ method: 'POST', url: `/api/documents?name=${encodeURIComponent(name)}`, cookie: admin, headers: { 'content-type': 'application/octet-stream' }, payload: Buffer.from(text) });
  const listed = async (app: TestApp) => (await app.request({ url: '/api/documents', cookie: admin })).json<TDocumentList>().documents;

  it('embeds an upload after answering it; the next question is hybrid; the calls show at Usage as embeddings', async () => {
    const refund = (await upload(t, 'refunds.txt', REFUND)).json<TDocument>();
    const garden = (await upload(t, 'garden.txt', GARDEN)).json<TDocument>();
    const docs = await until(
      () => listed(t),
      (list) => list.every((d) => d.embeddingModel === 'text-embedding-3-small'),
    );
    expect(docs).toHaveLength(2);
    const user = await sessionUser(t.database.db, 'admin@example.com');
    fake.embedAs('how do I get my money back', REFUND);
    const found = await t.app.documents.retrieve(user, 'how do I get my money back', { documentIds: [refund.id, garden.id], projectId: null }, { signal: never, log: t.app.log });
    expect(found.info.mode).toBe('hybrid');
    expect(found.passages[0]).toMatchObject({ documentId: refund.id, fileName: 'refunds.txt', text: REFUND });

    const usage = (await t.request({ url: '/api/admin/usage?days=7', cookie: admin })).json<TChatUsageReport>();
    const embedding = usage.rows.find((r) => r.purpose === 'embedding');
    expect(embedding).toMatchObject({ provider: 'openai', model: 'text-embedding-3-small' });
    // Every call to the provider, and only those: the two uploads (one batch when the second came
    // before the first was embedded, as on a busy machine) and the question.
    expect(embedding!.requests).toBe(fake.embeddingRequests().length);
    expect(embedding!.requests).toBeGreaterThanOrEqual(2);
    expect(embedding!.inputTokens).toBeGreaterThan(0);
  });

  it("a document deleted in one process is gone from the other's next question (its cached vectors too)", async () => {
    const other = process.env.TEST_DATABASE === 'postgres' ? await createTestApp({ sameDatabaseAs: t, env: { ...fake.env, EMBEDDING_PROVIDER: 'openai' } }) : t;
    try {
      const refund = (await upload(t, 'refunds.txt', REFUND)).json<TDocument>();
      await until(
        () => listed(t),
        (list) => list.every((d) => d.embeddingModel !== null),
      );
      const user = await sessionUser(t.database.db, 'admin@example.com');
      fake.embedAs('reimbursement please', REFUND);
      const ask = () => other.app.documents.retrieve(user, 'reimbursement please', { documentIds: [refund.id], projectId: null }, { signal: never, log: other.app.log });
      expect((await ask()).passages.map((p) => p.documentId)).toEqual([refund.id]);
      expect((await t.request({ method: 'DELETE', url: `/api/documents/${refund.id}`, cookie: admin })).statusCode).toBe(204);
      expect((await ask()).passages).toEqual([]);
    } finally {
      if (other !== t) await other.close();
    }
  });

  it('without EMBEDDING_PROVIDER nothing is embedded and retrieval is full text', async () => {
    const plain = await createTestApp({ env: { ...fake.env } });
    try {
      const cookie = await plain.signIn('solo@example.com', 'Solo');
      const doc = (
        await plain.request({ method: 'POST', url: '/api/documents?name=r.txt', cookie, headers: { 'content-type': 'application/octet-stream' }, payload: Buffer.from(REFUND) })
      ).json<TDocument>();
      const user = await sessionUser(plain.database.db, 'solo@example.com');
      const found = await plain.app.documents.retrieve(user, 'refunds parcel', { documentIds: [doc.id], projectId: null }, { signal: never, log: plain.app.log });
      expect(found.info.mode).toBe('full-text');
      expect(found.passages).toHaveLength(1);
      expect(fake.embeddingRequests()).toEqual([]);
    } finally {
      await plain.close();
    }
  });
});
