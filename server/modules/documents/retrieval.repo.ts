import { and, desc, eq, inArray, isNotNull, ne, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { documentPassages, documents, documentVersions } from '../../db/schema.ts';

/** Any connection or transaction: repo functions run inside the caller's transaction. */
type Tx = Pick<Db, 'select' | 'selectDistinct' | 'insert' | 'update' | 'delete' | 'execute'>;

/** The embedding a passage must have to be searched by vector: this model, at these dimensions (null: any). */
export type EmbeddingTarget = { model: string; dims: number | null };

/** The user's documents in a scope: those named (their own only) and their project's knowledge. */
export async function scopeDocuments(db: Tx, userId: string, scope: { documentIds: readonly string[]; projectId: string | null }) {
  const named = scope.documentIds.length > 0 ? inArray(documents.id, [...scope.documentIds]) : undefined;
  const project = scope.projectId !== null ? eq(documents.projectId, scope.projectId) : undefined;
  if (!named && !project) return [];
  return db
    .select({ id: documents.id, name: documents.name, status: documents.status })
    .from(documents)
    .where(and(eq(documents.userId, userId), or(named, project)));
}

/** The user's documents version (0 before their first change). One indexed read per question. */
export async function documentsVersion(db: Tx, userId: string): Promise<number> {
  const [row] = await db.select({ version: documentVersions.version }).from(documentVersions).where(eq(documentVersions.userId, userId));
  return row?.version ?? 0;
}

/** Every passage of the user embedded with the target model (without the vectors): the rows of their vector index. */
export async function embeddedPassageIds(db: Tx, userId: string, target: EmbeddingTarget) {
  return db
    .select({ id: documentPassages.id, documentId: documentPassages.documentId })
    .from(documentPassages)
    .where(and(eq(documentPassages.userId, userId), ...currentEmbedding(target)));
}

function currentEmbedding(target: EmbeddingTarget) {
  return [isNotNull(documentPassages.embedding), eq(documentPassages.embeddingModel, target.model), ...(target.dims !== null ? [eq(documentPassages.embeddingDims, target.dims)] : [])];
}

/** Ids per read of vectors by id (PostgreSQL's 65,535 parameters; smaller reads keep the pool shared). */
const IDS_PER_READ = 2_000;

/** The stored float32 vectors of some passages (an index's new rows, the re-scoring of its candidates). */
export async function passageEmbeddings(db: Tx, userId: string, ids: readonly string[]) {
  const rows: { id: string; documentId: string; embedding: Buffer | null }[] = [];
  for (let i = 0; i < ids.length; i += IDS_PER_READ) {
    rows.push(
      ...(await db
        .select({ id: documentPassages.id, documentId: documentPassages.documentId, embedding: documentPassages.embedding })
        .from(documentPassages)
        .where(and(eq(documentPassages.userId, userId), inArray(documentPassages.id, ids.slice(i, i + IDS_PER_READ))))),
    );
  }
  return rows;
}

/**
 * Passages in the documents that answer the question's words, best first (`ts_rank_cd`). The
 * question is read by `websearch_to_tsquery` (quoted phrases, `-word`), but its words are then
 * joined by OR, not AND: a question in a sentence ("what is the refund window for Canada?")
 * rarely has every word in one passage, and `ts_rank_cd` still ranks the passages with more of
 * them, closer together, first.
 */
export async function fullTextSearch(db: Tx, userId: string, documentIds: readonly string[], question: string, limit: number): Promise<string[]> {
  if (documentIds.length === 0) return [];
  const query = sql`replace(websearch_to_tsquery('english', ${question})::text, ' & ', ' | ')::tsquery`;
  const rank = sql<number>`ts_rank_cd(${documentPassages.tsv}, ${query})`;
  const rows = await db
    .select({ id: documentPassages.id })
    .from(documentPassages)
    // The owner and documents are compared as text so the planner cannot take their btree
    // indexes: it did (the user's index, every one of their rows read and each tsvector
    // detoasted to test it: 40-80 ms at 10,000 passages), where the GIN index on tsv finds the
    // few that match in under 10 ms and the owner and scope are then checked on those alone.
    .where(
      and(
        sql`${documentPassages.userId}::text = ${userId}`,
        sql`${documentPassages.documentId}::text in (${sql.join(
          documentIds.map((id) => sql`${id}`),
          sql`, `,
        )})`,
        sql`${documentPassages.tsv} @@ ${query}`,
      ),
    )
    .orderBy(desc(rank), documentPassages.id)
    .limit(limit);
  return rows.map((r) => r.id);
}

/** The passages to give the model, with their file's name. */
export async function passagesByIds(db: Tx, userId: string, ids: readonly string[]) {
  if (ids.length === 0) return [];
  return db
    .select({
      id: documentPassages.id,
      documentId: documentPassages.documentId,
      fileName: documents.name,
      page: documentPassages.page,
      sheet: documentPassages.sheet,
      heading: documentPassages.heading,
      text: documentPassages.text,
    })
    .from(documentPassages)
    .innerJoin(documents, eq(documents.id, documentPassages.documentId))
    .where(and(eq(documentPassages.userId, userId), inArray(documentPassages.id, [...ids])));
}

/** The passages of the user's readable documents (the index holds this many once all are embedded). */
export async function readyPassageCount(db: Tx, userId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`coalesce(sum(${documents.passages}), 0)`.mapWith(Number) })
    .from(documents)
    .where(and(eq(documents.userId, userId), eq(documents.status, 'ready')));
  return row?.n ?? 0;
}

function needsEmbedding(target: EmbeddingTarget) {
  return or(
    sql`${documentPassages.embedding} is null`,
    sql`${documentPassages.embeddingModel} is distinct from ${target.model}`,
    ...(target.dims !== null ? [ne(documentPassages.embeddingDims, target.dims)] : []),
  );
}

/** The next passages of the user to embed (none embedded with the target), oldest documents first. */
export async function passagesToEmbed(db: Tx, userId: string, target: EmbeddingTarget, limit: number) {
  return db
    .select({ id: documentPassages.id, heading: documentPassages.heading, text: documentPassages.text })
    .from(documentPassages)
    .where(and(eq(documentPassages.userId, userId), needsEmbedding(target)))
    .orderBy(documentPassages.documentId, documentPassages.ord)
    .limit(limit);
}

/** Users with passages to embed with the target (the start's re-embedding after a change of model). */
export async function usersWithPassagesToEmbed(db: Tx, target: EmbeddingTarget): Promise<string[]> {
  const rows = await db.selectDistinct({ userId: documentPassages.userId }).from(documentPassages).where(needsEmbedding(target));
  return rows.map((r) => r.userId);
}

/** Stores passages' vectors (a passage deleted meanwhile is simply not there to update). */
export async function storeEmbeddings(db: Tx, userId: string, rows: readonly { id: string; embedding: Uint8Array }[], target: { model: string; dims: number }): Promise<void> {
  for (const row of rows) {
    await db
      .update(documentPassages)
      .set({ embedding: Buffer.from(row.embedding.buffer, row.embedding.byteOffset, row.embedding.byteLength), embeddingModel: target.model, embeddingDims: target.dims })
      .where(and(eq(documentPassages.id, row.id), eq(documentPassages.userId, userId)));
  }
}
