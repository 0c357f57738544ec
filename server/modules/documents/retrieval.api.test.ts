import { and, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EmbeddingsConfig } from '../../config.ts';
import { chatUsage, documentPassages, documentVersions } from '../../db/schema.ts';
import { startFakeAiProviders, type FakeAiProviders } from '../../../tests/fakes/ai-providers.ts';
import { memoryLogger } from '../../test/memory-logger.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { seedDocument, seedProject, sessionUser } from '../../test/documents-seed.ts';
import type { SessionUser } from '../../lib/http/types.ts';
import { createRetrievalService, type RetrievalService } from './retrieval.service.ts';

/**
 * Retrieval (issue 32, docs/decisions/0081) on a hand-made set where the right passage is known,
 * against the fake providers' embeddings (vectors of word stems; `embedAs` makes a question mean
 * a passage it shares no word with), on both databases.
 */
const HANDBOOK = [
  'Refunds are issued within 14 days once the returned parcel has been received. Keep your receipt.',
  'Our office is closed on public holidays; support answers email within one business day.',
  'Shipping to Canada takes five to eight business days with tracked delivery.',
  'The warranty covers manufacturing defects for two years from purchase.',
];
const NOTES = ['Quarterly revenue grew 12 percent, driven by subscription renewals.', 'Error code E42 means the sensor cable is loose; reseat it and restart the unit.'];
/** Passages on other things, so ranks matter (none shares a word with the questions below). */
const FILLER = Array.from({ length: 30 }, (_, i) => `Garden note ${i + 1}: tomatoes like sunny soil, basil ${i % 2 ? 'prefers' : 'wants'} shade, water at dawn.`);

const never = new AbortController().signal;

describe('retrieval', () => {
  let fake: FakeAiProviders;
  let t: TestApp;
  let ada: SessionUser;
  let bob: SessionUser;
  const services: RetrievalService[] = [];
  const { logger, lines } = memoryLogger();

  function service(overrides: { setup?: EmbeddingsConfig['setup'] | 'none'; dailyTokenBudget?: number; on?: TestApp } = {}): RetrievalService {
    const setup = overrides.setup === 'none' ? null : (overrides.setup ?? { provider: 'openai' as const, settings: { apiKey: fake.keys.openai, baseUrl: fake.baseUrls.openai }, model: 'text-embedding-3-small', dimensions: 512 });
    const app = overrides.on ?? t;
    const made = createRetrievalService({
      db: app.database.db,
      embeddings: { setup, cacheBytes: 64 * 1024 * 1024, timeoutMs: 5_000 },
      chat: { dailyTokenBudget: overrides.dailyTokenBudget ?? 0, dailyImageBudget: 0 },
      invalidations: app.app.invalidations,
      logger,
      now: () => new Date(),
    });
    services.push(made);
    return made;
  }
  const options = { signal: never, log: logger };

  beforeAll(async () => {
    fake = await startFakeAiProviders();
  });
  afterAll(() => fake.close());
  beforeEach(async () => {
    fake.reset();
    t = await createTestApp();
    await t.signIn('ada@example.com', 'Ada');
    await t.signIn('bob@example.com', 'Bob');
    ada = await sessionUser(t.database.db, 'ada@example.com');
    bob = await sessionUser(t.database.db, 'bob@example.com');
  });
  afterEach(async () => {
    await Promise.all(services.splice(0).map((s) => s.close()));
    await t.close();
  });

  async function seedHandbook(user = ada) {
    const handbook = await seedDocument(t.database.db, user.id, { name: 'handbook.txt', passages: HANDBOOK.map((text, i) => ({ text, page: i + 1 })) });
    const notes = await seedDocument(t.database.db, user.id, { name: 'notes.md', passages: NOTES });
    const garden = await seedDocument(t.database.db, user.id, { name: 'garden.txt', passages: FILLER });
    return { handbook, notes, garden, all: [handbook.id, notes.id, garden.id] };
  }

  it('embeds the passages in the background, counted on the budget as embeddings, and bumps the documents version', async () => {
    const docs = await seedHandbook();
    const retrieval = service();
    retrieval.embedInBackground(ada.id);
    await retrieval.idle();
    const rows = await t.database.db.select({ model: documentPassages.embeddingModel, dims: documentPassages.embeddingDims, bytes: documentPassages.embedding }).from(documentPassages).where(eq(documentPassages.userId, ada.id));
    expect(rows).toHaveLength(HANDBOOK.length + NOTES.length + FILLER.length);
    expect(rows.every((r) => r.model === 'text-embedding-3-small' && r.dims === 512 && r.bytes?.byteLength === 512 * 4)).toBe(true);
    const usage = await t.database.db.select().from(chatUsage).where(and(eq(chatUsage.userId, ada.id), eq(chatUsage.purpose, 'embedding')));
    expect(usage).toHaveLength(1);
    expect(usage[0]).toMatchObject({ provider: 'openai', model: 'text-embedding-3-small', outcome: 'ok', estimated: false, outputTokens: 0 });
    expect(usage[0]!.inputTokens).toBe(fake.embeddingRequests()[0]!.inputs.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0));
    const [version] = await t.database.db.select().from(documentVersions).where(eq(documentVersions.userId, ada.id));
    expect(version!.version).toBeGreaterThan(0);
    expect(docs.all).toHaveLength(3);
  });

  it('finds a passage only the vectors find and one only the words find, and the fused list holds both', async () => {
    const docs = await seedHandbook();
    const retrieval = service();
    retrieval.embedInBackground(ada.id);
    await retrieval.idle();
    // The question shares no word with the refund passage, but means it; its words find E42.
    const question = 'How can I get my money back after error E42?';
    fake.embedAs(question, HANDBOOK[0]!);

    const hybrid = await retrieval.retrieve(ada, question, { documentIds: docs.all, projectId: null }, { ...options, limit: 2 });
    expect(hybrid.info.mode).toBe('hybrid');
    expect(hybrid.passages.map((p) => p.passageId).sort()).toEqual([docs.handbook.passageIds[0], docs.notes.passageIds[1]].sort());
    const refund = hybrid.passages.find((p) => p.passageId === docs.handbook.passageIds[0])!;
    expect(refund).toMatchObject({ documentId: docs.handbook.id, fileName: 'handbook.txt', page: 1, text: HANDBOOK[0] });

    // Full text alone misses the refund passage (a vector-only hit)...
    const words = await service({ setup: 'none' }).retrieve(ada, question, { documentIds: docs.all, projectId: null }, { ...options, limit: 2 });
    expect(words.info.mode).toBe('full-text');
    expect(words.passages.map((p) => p.passageId)).toEqual([docs.notes.passageIds[1]]);
    // ...and the vectors alone rank E42 far down (a full-text-only hit): a question meaning E42 only by its vector finds it first.
    fake.embedAs('sensor trouble', NOTES[1]!);
    const [first] = (await retrieval.retrieve(ada, 'sensor trouble', { documentIds: docs.all, projectId: null }, { ...options, limit: 1 })).passages;
    expect(first!.passageId).toBe(docs.notes.passageIds[1]);
  });

  it('with no embedding provider, full text alone: no call to any provider', async () => {
    const docs = await seedHandbook();
    const result = await service({ setup: 'none' }).retrieve(ada, 'warranty defects', { documentIds: docs.all, projectId: null }, options);
    expect(result.info.mode).toBe('full-text');
    expect(result.passages[0]!.passageId).toBe(docs.handbook.passageIds[3]);
    expect(fake.embeddingRequests()).toEqual([]);
  });

  it('searches only the scope: the named documents and the project\'s knowledge, never another user\'s', async () => {
    const project = await seedProject(t.database.db, ada.id, 'Support');
    const knowledge = await seedDocument(t.database.db, ada.id, { name: 'policy.txt', passages: ['Refunds for damaged parcels are paid the same day.'], projectId: project });
    const elsewhere = await seedDocument(t.database.db, ada.id, { name: 'other.txt', passages: ['Refunds in the other file.'] });
    const bobs = await seedDocument(t.database.db, bob.id, { name: 'bob.txt', passages: ['Refunds Bob keeps to himself.'] });
    const scanned = await seedDocument(t.database.db, ada.id, { name: 'scan.pdf', passages: [], status: 'no-text' });
    const retrieval = service();
    retrieval.embedInBackground(ada.id);
    retrieval.embedInBackground(bob.id);
    await retrieval.idle();

    const result = await retrieval.retrieve(ada, 'refunds', { documentIds: [bobs.id, scanned.id], projectId: project }, options);
    expect(result.passages.map((p) => p.passageId)).toEqual([knowledge.passageIds[0]]);
    expect(result.info.noText).toEqual(['scan.pdf']);
    expect(result.passages.map((p) => p.documentId)).not.toContain(elsewhere.id);
    // Bob naming Ada's document finds nothing.
    expect((await retrieval.retrieve(bob, 'refunds', { documentIds: [knowledge.id, elsewhere.id], projectId: project }, options)).passages).toEqual([]);
  });

  it('re-embeds on a change of model: meanwhile full text only, then hybrid with the new model', async () => {
    const docs = await seedHandbook();
    const before = service();
    before.embedInBackground(ada.id);
    await before.idle();
    await before.close();

    const after = service({ setup: { provider: 'openai', settings: { apiKey: fake.keys.openai, baseUrl: fake.baseUrls.openai }, model: 'text-embedding-3-large', dimensions: 256 } });
    const meanwhile = await after.retrieve(ada, 'warranty', { documentIds: docs.all, projectId: null }, options);
    expect(meanwhile.info.mode).toBe('full-text');
    await until(async () => {
      await after.idle();
      const rows = await t.database.db.select({ model: documentPassages.embeddingModel, dims: documentPassages.embeddingDims }).from(documentPassages).where(eq(documentPassages.userId, ada.id));
      return rows.every((r) => r.model === 'text-embedding-3-large' && r.dims === 256);
    });
    const later = await after.retrieve(ada, 'warranty', { documentIds: docs.all, projectId: null }, options);
    expect(later.info.mode).toBe('hybrid');
    expect(later.passages[0]!.passageId).toBe(docs.handbook.passageIds[3]);
    expect(fake.embeddingRequests().at(-1)).toMatchObject({ model: 'text-embedding-3-large', dimensions: 256, inputs: ['warranty'] });
  });

  it('a budget that cannot pay for the question\'s embedding: full text answers, and the refusal is recorded', async () => {
    const docs = await seedHandbook();
    const generous = service();
    generous.embedInBackground(ada.id);
    await generous.idle();
    // 30 tokens a day: already spent by the passages' embedding.
    const tight = service({ dailyTokenBudget: 30 });
    const result = await tight.retrieve(ada, 'warranty', { documentIds: docs.all, projectId: null }, options);
    expect(result.info.mode).toBe('full-text');
    expect(result.passages[0]!.passageId).toBe(docs.handbook.passageIds[3]);
    const refused = await t.database.db.select().from(chatUsage).where(and(eq(chatUsage.userId, ada.id), eq(chatUsage.outcome, 'rejected')));
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ purpose: 'embedding', error: 'daily budget: tokens used up' });
  });

  it('a failing provider: the question is answered from full text, the cause logged', async () => {
    const docs = await seedHandbook();
    const retrieval = service();
    retrieval.embedInBackground(ada.id);
    await retrieval.idle();
    fake.setFault('openai', '500', 'PROVIDER-SAID-THIS');
    const result = await retrieval.retrieve(ada, 'warranty', { documentIds: docs.all, projectId: null }, options);
    expect(result.info.mode).toBe('full-text');
    expect(result.passages[0]!.passageId).toBe(docs.handbook.passageIds[3]);
    const logged = lines.find((line) => line.msg === 'embedding: the provider call failed');
    expect(logged).toMatchObject({ kind: 'unavailable' });
    expect(JSON.stringify(logged)).toContain('PROVIDER-SAID-THIS');
    const failed = await t.database.db.select().from(chatUsage).where(and(eq(chatUsage.userId, ada.id), eq(chatUsage.outcome, 'error')));
    expect(failed[0]).toMatchObject({ purpose: 'embedding', error: 'OpenAI is unavailable right now' });
  });

  it("sees another process's changes at its next question (the documents version), cached in between", async () => {
    const other = process.env.TEST_DATABASE === 'postgres' ? await createTestApp({ sameDatabaseAs: t }) : t;
    try {
      const docs = await seedHandbook();
      const a = service();
      const b = service({ on: other });
      a.embedInBackground(ada.id);
      await a.idle();
      fake.embedAs('reimbursement please', HANDBOOK[0]!);
      expect((await b.retrieve(ada, 'reimbursement please', { documentIds: docs.all, projectId: null }, { ...options, limit: 1 })).passages[0]!.passageId).toBe(docs.handbook.passageIds[0]);

      // A adds a document that means the question better, and embeds it: B's cached index is stale.
      const newer = await seedDocument(t.database.db, ada.id, { name: 'refunds.txt', passages: ['Money back: how refunds reach your card.'] });
      fake.embedAs('reimbursement please', 'Money back: how refunds reach your card.');
      a.embedInBackground(ada.id);
      await a.idle();
      const found = await b.retrieve(ada, 'reimbursement please', { documentIds: [...docs.all, newer.id], projectId: null }, { ...options, limit: 1 });
      expect(found.passages[0]!.passageId).toBe(newer.passageIds[0]);
    } finally {
      if (other !== t) await other.close();
    }
  });
});

async function until(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met');
    await new Promise((r) => setTimeout(r, 50));
  }
}
