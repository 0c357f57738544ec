import type { FastifyBaseLogger } from 'fastify';
import { DOCUMENT_LIMITS } from '../../../contracts/documents.ts';
import { EMBEDDING_CHAT_PROVIDER, type ChatConfig, type EmbeddingsConfig } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { AiCallError } from '../../integrations/ai/errors.ts';
import { EMBEDDING_BATCH, embedTexts, estimateTokens, type EmbeddingSetup } from '../../integrations/ai/embeddings.ts';
import type { Invalidations } from '../../lib/invalidations.ts';
import type { SessionUser } from '../../lib/http/types.ts';
import { createChatBudget, type Reservation } from '../chat/budget.ts';
import { fuseByRank } from './fusion.ts';
import { bumpDocumentsVersion } from './documents.repo.ts';
import {
  documentsVersion,
  embeddedPassageIds,
  embeddedPassages,
  fullTextSearch,
  readyPassageCount,
  passageEmbeddings,
  passagesByIds,
  passagesToEmbed,
  scopeDocuments,
  storeEmbeddings,
  usersWithPassagesToEmbed,
  type EmbeddingTarget,
} from './retrieval.repo.ts';
import type { Retrieval, RetrievalScope, RetrievedPassage } from './types.ts';
import { createVectorCache } from './vector-cache.ts';
import { buildQuantizedIndex, bytesToVector, dot, vectorToBytes, type IndexRow, type QuantizedIndex } from './vector-index.ts';

/**
 * Retrieval (issue 32, docs/decisions/0081): a question's passages by a hybrid of vector
 * similarity (an in-process int8 index per user, its best candidates re-scored with their stored
 * float32) and PostgreSQL full text (`websearch_to_tsquery`, `ts_rank_cd`), fused by reciprocal
 * rank; and the embedding of passages, in the background after an upload and again when the
 * configured model changes, each call counted on the user's budget (usage purpose 'embedding').
 */

/** Candidates each side gives the fusion; the vector side's are re-scored exactly. */
export const CANDIDATES = 50;

export type RetrievalDeps = {
  db: Db;
  embeddings: EmbeddingsConfig;
  chat: Pick<ChatConfig, 'dailyTokenBudget' | 'dailyImageBudget'>;
  invalidations: Invalidations;
  logger: FastifyBaseLogger;
  now?: () => Date;
};

export type RetrievalService = {
  retrieve(user: SessionUser, question: string, scope: RetrievalScope, options: { signal: AbortSignal; log: FastifyBaseLogger; limit?: number }): Promise<Retrieval>;
  /** Embeds the user's passages that lack the configured model's vectors, in the background (after an upload, a change of model). */
  embedInBackground(userId: string): void;
  /** Resolves when no embedding job, and no build of an index, runs (tests, and closing). */
  idle(): Promise<void>;
  /** Schedules every user whose passages lack the configured model's vectors (at start: a change of model re-embeds). */
  embedStale(): Promise<void>;
  close(): Promise<void>;
};

export function createRetrievalService({ db, embeddings, chat, invalidations, logger, now = () => new Date() }: RetrievalDeps): RetrievalService {
  const setup: EmbeddingSetup | null = embeddings.setup;
  const target: EmbeddingTarget | null = setup ? { model: setup.model, dims: setup.dimensions } : null;
  const cacheKey = target ? `${target.model}\u0000${target.dims ?? ''}` : '';
  const cache = createVectorCache(embeddings.cacheBytes);
  const budget = createChatBudget({ db, limits: { tokens: chat.dailyTokenBudget, images: chat.dailyImageBudget }, now });
  const closing = new AbortController();
  // A removed user's index goes at once; a lost invalidation channel drops everything (the
  // version read per question keeps entries right regardless: this only frees memory sooner).
  invalidations.on('user', (userId) => cache.drop(userId));
  invalidations.onReset(() => cache.clear());

  async function retrieve(user: SessionUser, question: string, scope: RetrievalScope, options: { signal: AbortSignal; log: FastifyBaseLogger; limit?: number }): Promise<Retrieval> {
    const limit = options.limit ?? DOCUMENT_LIMITS.retrieved;
    const docs = await scopeDocuments(db, user.id, scope);
    const noText = docs.filter((d) => d.status === 'no-text').map((d) => d.name);
    const readable = docs.filter((d) => d.status === 'ready').map((d) => d.id);
    if (readable.length === 0) return { passages: [], info: { mode: setup ? 'hybrid' : 'full-text', noText } };

    const [{ ids: fullText }, vector] = await Promise.all([fullTextSearch(db, user.id, readable, question, CANDIDATES), searchVectors(user.id, question, readable, options)]);
    const fused = fuseByRank(vector ? [vector, fullText] : [fullText], limit);
    const rows = new Map((await passagesByIds(db, user.id, fused.map((f) => f.id))).map((row) => [row.id, row]));
    const passages: RetrievedPassage[] = [];
    for (const { id, score } of fused) {
      const row = rows.get(id);
      if (!row) continue; // deleted since the search
      passages.push({ passageId: row.id, documentId: row.documentId, fileName: row.fileName, page: row.page, sheet: row.sheet, heading: row.heading, text: row.text, score });
    }
    return { passages, info: { mode: vector ? 'hybrid' : 'full-text', noText } };
  }

  /**
   * The vector side: the passages nearest the question among the documents, best first, or null
   * when it cannot run (no provider, nothing embedded in scope, the question's embedding refused
   * by the budget or failed: full text answers alone, and the log says why).
   */
  async function searchVectors(userId: string, question: string, documentIds: readonly string[], options: { signal: AbortSignal; log: FastifyBaseLogger }): Promise<string[] | null> {
    if (!setup || !target) return null;
    const index = await vectorIndex(userId);
    if (index.size === 0) return null;
    const scope = new Set(documentIds);
    const query = await embedQuestion(userId, question, options);
    if (!query) return null;
    if (query.length !== index.dims) {
      options.log.warn({ dims: query.length, indexDims: index.dims }, 'the question was embedded at other dimensions than the passages');
      return null;
    }
    const candidates = index.search(query, scope, CANDIDATES);
    if (candidates.length === 0) return null;
    const exact = await passageEmbeddings(
      db,
      userId,
      candidates.map((c) => c.passageId),
    );
    return exact
      .filter((row) => row.embedding !== null)
      .map((row) => ({ id: row.id, score: dot(query, bytesToVector(row.embedding!)) }))
      .sort((a, b) => b.score - a.score || a.id.localeCompare(b.id))
      .map((row) => row.id);
  }

  /**
   * The user's index for this documents version: cached, or being built (one build per user at a
   * time: questions asked meanwhile wait for it rather than read it again), or built now.
   */
  const building = new Map<string, { version: number; index: Promise<QuantizedIndex> }>();
  async function vectorIndex(userId: string): Promise<QuantizedIndex> {
    // Read before the rows: a change committed between the two is newer than the version the
    // entry is kept under, so the next question looks again.
    const version = await documentsVersion(db, userId);
    const cached = cache.get(userId, version, cacheKey);
    if (cached) return cached;
    const inFlight = building.get(userId);
    if (inFlight && inFlight.version === version) return inFlight.index;
    const index = buildIndex(userId, version).finally(() => {
      if (building.get(userId)?.index === index) building.delete(userId);
    });
    building.set(userId, { version, index });
    return index;
  }

  /** Builds on the index before (its rows carried, only new passages' vectors read), or reads it whole the first time. */
  async function buildIndex(userId: string, version: number): Promise<QuantizedIndex> {
    const before = cache.stale(userId, cacheKey);
    const rows: IndexRow[] = [];
    let dims = before?.dims ?? target!.dims ?? 0;
    const add = (row: { id: string; documentId: string; embedding: Buffer | null }) => {
      if (!row.embedding) return;
      const vector = bytesToVector(row.embedding);
      if (dims === 0) dims = vector.length;
      if (vector.length === dims) rows.push({ passageId: row.id, documentId: row.documentId, vector });
    };
    let embedded: number;
    if (before) {
      const current = await embeddedPassageIds(db, userId, target!);
      const missing: string[] = [];
      for (const { id, documentId } of current) {
        const carried = before.row(id);
        if (carried) rows.push({ passageId: id, documentId, ...carried });
        else missing.push(id);
      }
      for (const row of await passageEmbeddings(db, userId, missing)) add(row);
      embedded = current.length;
    } else {
      for await (const batch of embeddedPassages(db, userId, target!)) for (const row of batch) add(row);
      embedded = rows.length;
    }
    const index = buildQuantizedIndex(rows, dims);
    cache.set(userId, { version, model: cacheKey, index });
    // Checked once per documents version, not per question: passages of another model (or none
    // yet) are found by their words until embedded.
    if (embedded < (await readyPassageCount(db, userId))) embedInBackground(userId);
    return index;
  }

  /**
   * Builds the user's index ahead of their next question (after their passages were embedded: an
   * upload, a change of model), so that question does not wait for the whole read. A failure is
   * only logged: the question builds it again.
   */
  const warming = new Set<Promise<void>>();
  function warm(userId: string): void {
    if (!setup || closing.signal.aborted) return;
    const job: Promise<void> = vectorIndex(userId)
      .then(() => {})
      .catch((err: unknown) => logger.warn({ err, userId }, 'could not build the vector index ahead'))
      .finally(() => warming.delete(job));
    warming.add(job);
  }

  /** The question's vector, its call counted on the user's budget; null when refused or failed. */
  async function embedQuestion(userId: string, question: string, options: { signal: AbortSignal; log: FastifyBaseLogger }): Promise<Float32Array | null> {
    const embedded = await embedCounted(userId, [question], options.signal, options.log);
    return embedded?.[0] ?? null;
  }

  /**
   * One embedding call under the daily budget: reserved before (the texts' estimated tokens),
   * settled after with a usage row of purpose 'embedding' (refusals and failures recorded as the
   * chat records them). Null when refused or failed; the log says why.
   */
  async function embedCounted(userId: string, texts: string[], signal: AbortSignal, log: FastifyBaseLogger): Promise<Float32Array[] | null> {
    const record = budget.usageRecorder({ userId, provider: EMBEDDING_CHAT_PROVIDER[setup!.provider], model: setup!.model, purpose: 'embedding' });
    const inputTokens = estimateTokens(texts);
    const reserved = await budget.reserve(userId, { kind: 'text', inputTokens, maxOutputTokens: 0 });
    if ('ok' in reserved) {
      log.info({ reason: reserved.reason, left: reserved.left }, 'embedding not made: the daily budget refused it');
      await record(null, 'rejected', null, 0, `daily budget: ${reserved.reason.replaceAll('_', ' ')}`);
      return null;
    }
    const lease = budget.hold(reserved, log);
    let reservation: Reservation | null = reserved;
    const started = performance.now();
    try {
      const result = await embedTexts(setup!, texts, { signal: AbortSignal.any([signal, closing.signal]), timeoutMs: embeddings.timeoutMs });
      await record(reserved, 'ok', { inputTokens: result.tokens, outputTokens: 0 }, performance.now() - started, null, result.estimated);
      reservation = null;
      return result.vectors;
    } catch (err) {
      const failure = err instanceof AiCallError ? err : null;
      if (failure) log.warn({ kind: failure.kind, cause: failure.logCause }, 'embedding: the provider call failed');
      else log.error({ err }, 'embedding failed unexpectedly');
      await record(reserved, 'error', null, performance.now() - started, failure?.message ?? 'embedding failed').catch((e: unknown) => log.warn({ err: e }, 'could not record an embedding failure'));
      reservation = null;
      return null;
    } finally {
      lease.stop();
      if (reservation) await budget.release(reservation).catch(() => {});
    }
  }

  // --- Embedding passages in the background -------------------------------------------------

  const running = new Map<string, Promise<void>>();
  const again = new Set<string>();

  function embedInBackground(userId: string): void {
    if (!setup || closing.signal.aborted) return;
    if (running.has(userId)) {
      again.add(userId);
      return;
    }
    const job = embedUser(userId)
      .then((finished) => {
        // Every passage embedded: their index is built now, not at their next question.
        if (finished && !again.has(userId)) warm(userId);
      })
      .catch((err: unknown) => logger.error({ err, userId }, 'embedding passages failed'))
      .finally(() => {
        running.delete(userId);
        if (again.delete(userId)) embedInBackground(userId);
      });
    running.set(userId, job);
  }

  /**
   * Embeds the user's passages batch by batch until none lack the target's vectors, the budget
   * refuses, or a call fails; true when none lack them.
   */
  async function embedUser(userId: string): Promise<boolean> {
    const log = logger.child({ userId, job: 'embed-passages' });
    for (;;) {
      if (closing.signal.aborted) return false;
      const rows = await passagesToEmbed(db, userId, target!, EMBEDDING_BATCH);
      if (rows.length === 0) return true;
      const vectors = await embedCounted(
        userId,
        rows.map((r) => (r.heading ? `${r.heading}\n\n${r.text}` : r.text)),
        closing.signal,
        log,
      );
      if (!vectors) return false; // refused or failed: said in the log; the next upload or question tries again
      const dims = vectors[0]!.length;
      await db.transaction(async (tx) => {
        await storeEmbeddings(
          tx,
          userId,
          rows.map((row, i) => ({ id: row.id, embedding: vectorToBytes(vectors[i]!) })),
          { model: setup!.model, dims },
        );
        await bumpDocumentsVersion(tx, userId);
      });
      log.info({ passages: rows.length, model: setup!.model, dims }, 'passages embedded');
      if (rows.length < EMBEDDING_BATCH) return true;
    }
  }

  async function idle(): Promise<void> {
    while (running.size > 0 || building.size > 0 || warming.size > 0) await Promise.allSettled([...running.values(), ...[...building.values()].map((b) => b.index), ...warming]);
  }

  async function embedStale(): Promise<void> {
    if (!target) return;
    for (const userId of await usersWithPassagesToEmbed(db, target)) embedInBackground(userId);
  }

  return {
    retrieve,
    embedInBackground,
    idle,
    embedStale,
    async close() {
      closing.abort(new Error('closing'));
      await idle();
      cache.clear();
    },
  };
}
