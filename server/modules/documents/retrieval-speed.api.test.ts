import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { documentPassages } from '../../db/schema.ts';
import { startFakeAiProviders, type FakeAiProviders } from '../../../tests/fakes/ai-providers.ts';
import { memoryLogger } from '../../test/memory-logger.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { seedDocument, sessionUser } from '../../test/documents-seed.ts';
import type { SessionUser } from '../../lib/http/types.ts';
import { fullTextSearch } from './retrieval.repo.ts';
import { createRetrievalService, type RetrievalService } from './retrieval.service.ts';

/**
 * What keeps retrieval fast (docs/decisions/0087), asserted by what it does rather than by time:
 * full text ranks a bounded set of passages, the rarer words' first, and a question of common
 * words still finds passages; the vector index is built once a user's passages are embedded, not
 * at their next question. On both databases.
 */
const BOUND = 10;
/** 40 passages with "tomato" or "basil" (every one of them more than the bound), 3 with both. */
const GARDEN = Array.from({ length: 40 }, (_, i) => `Row ${i + 1}: the ${i % 2 ? 'tomato' : 'basil'} bed by the fence, watered at dawn.`);
const BOTH = ['Tomato and basil share a bed.', 'Basil keeps flies off the tomato; plant tomato and basil together, tomato first.', 'A tomato sauce wants basil.'];
const RARE = ['The zucchini flowers early.', 'Zucchini and tomato both like sun.'];

describe('retrieval, bounded', () => {
  let fake: FakeAiProviders;
  let t: TestApp;
  let ada: SessionUser;
  const services: RetrievalService[] = [];
  const { logger } = memoryLogger();

  beforeAll(async () => {
    fake = await startFakeAiProviders();
  });
  afterAll(() => fake.close());
  beforeEach(async () => {
    fake.reset();
    t = await createTestApp();
    await t.signIn('ada@example.com', 'Ada');
    ada = await sessionUser(t.database.db, 'ada@example.com');
  });
  afterEach(async () => {
    await Promise.all(services.splice(0).map((s) => s.close()));
    await t.close();
  });

  async function seedGarden() {
    const garden = await seedDocument(t.database.db, ada.id, { name: 'garden.txt', passages: [...GARDEN, ...BOTH] });
    const rare = await seedDocument(t.database.db, ada.id, { name: 'rare.txt', passages: RARE });
    return { garden, rare, all: [garden.id, rare.id] };
  }

  it('a question of common words only: at most twice the bound ranked, and the passages holding them all come first', async () => {
    const docs = await seedGarden();
    const found = await fullTextSearch(t.database.db, ada.id, docs.all, 'tomato basil', 5, BOUND);
    expect(found.ranked).toBeGreaterThan(0);
    expect(found.ranked).toBeLessThanOrEqual(2 * BOUND);
    // "Basil keeps flies off the tomato...": the most of both words, closest together.
    expect(found.ids[0]).toBe(docs.garden.passageIds[GARDEN.length + 1]);
    expect(found.ids.slice(0, 3).sort()).toEqual(docs.garden.passageIds.slice(GARDEN.length).sort());
  });

  it("a rare word's passages are all ranked, the common word's only up to the bound", async () => {
    const docs = await seedGarden();
    // Asked for more than the bound: every candidate comes back, so the set ranked is in view.
    const found = await fullTextSearch(t.database.db, ada.id, docs.all, 'What about tomato and zucchini?', 50, BOUND);
    expect(found.ranked).toBeLessThanOrEqual(BOUND);
    expect(found.ids).toHaveLength(found.ranked);
    // The passage with both words first; the other zucchini passage among the few ranked.
    expect(found.ids[0]).toBe(docs.rare.passageIds[1]);
    expect(found.ids).toContain(docs.rare.passageIds[0]);
  });

  it('a word in no passage, or a question of stop words only: nothing, without ranking anything', async () => {
    const docs = await seedGarden();
    expect(await fullTextSearch(t.database.db, ada.id, docs.all, 'aubergine', 5, BOUND)).toEqual({ ids: [], ranked: 0 });
    expect(await fullTextSearch(t.database.db, ada.id, docs.all, 'what is the', 5, BOUND)).toEqual({ ids: [], ranked: 0 });
  });

  it("builds the user's vector index once their passages are embedded, before their next question", async () => {
    const docs = await seedGarden();
    const retrieval = createRetrievalService({
      db: t.database.db,
      embeddings: {
        setup: { provider: 'openai', settings: { apiKey: fake.keys.openai, baseUrl: fake.baseUrls.openai }, model: 'text-embedding-3-small', dimensions: 512 },
        cacheBytes: 64 * 1024 * 1024,
        timeoutMs: 5_000,
      },
      chat: { dailyTokenBudget: 0, dailyImageBudget: 0 },
      invalidations: t.app.invalidations,
      logger,
    });
    services.push(retrieval);
    retrieval.embedInBackground(ada.id);
    await retrieval.idle();
    // The stored vectors relabelled behind the service's back (the documents version unchanged):
    // an index read now would find none of the configured model's and answer from full text; the
    // one built ahead still answers by vector.
    await t.database.db.update(documentPassages).set({ embeddingModel: 'another-model' }).where(eq(documentPassages.userId, ada.id));
    fake.embedAs('vegetables in flower', RARE[0]!);
    const result = await retrieval.retrieve(ada, 'vegetables in flower', { documentIds: docs.all, projectId: null }, { signal: new AbortController().signal, log: logger, limit: 1 });
    expect(result.info.mode).toBe('hybrid');
    expect(result.passages[0]!.passageId).toBe(docs.rare.passageIds[0]);
  });
});
