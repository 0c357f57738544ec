import { and, asc, count, desc, eq, inArray, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { documentPassages, documents, documentVersions, projects } from '../../db/schema.ts';
import type { Passage } from './chunk.ts';

/** Any connection or transaction: repo functions run inside the caller's transaction. */
type Tx = Pick<Db, 'select' | 'insert' | 'update' | 'delete' | 'execute'>;

export type DocumentRow = typeof documents.$inferSelect & { embeddingModel: string | null };

/** Serialises one user's document writes across processes (the per-user count is checked under it). */
const DOCUMENTS_LOCK_CLASS = 72432;
/** Passages inserted per statement (PostgreSQL's 65,535 parameters over a row's 7). */
const PASSAGE_BATCH = 1_000;

/**
 * The model of a document's vectors, when its passages have them. Written out by hand: drizzle
 * leaves the table off a column in a one-table select, so `${documents.id}` here would read as
 * the passage's own id inside the subquery (and the model was always null).
 */
const embeddingModel = sql<string | null>`(select p.embedding_model from document_passages p where p.document_id = "documents"."id" and p.embedding_model is not null limit 1)`;
const columns = {
  id: documents.id,
  userId: documents.userId,
  projectId: documents.projectId,
  conversationId: documents.conversationId,
  name: documents.name,
  type: documents.type,
  bytes: documents.bytes,
  status: documents.status,
  error: documents.error,
  pages: documents.pages,
  passages: documents.passages,
  createdAt: documents.createdAt,
  embeddingModel,
};

export async function lockUserDocuments(tx: Tx, userId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${DOCUMENTS_LOCK_CLASS}::int, hashtext(${userId}::text))`);
}

export async function countDocuments(db: Tx, userId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(documents).where(eq(documents.userId, userId));
  return row?.n ?? 0;
}

/** How many knowledge documents a project holds (issue 32: at most PROJECT_LIMITS.maxKnowledgeDocuments). */
export async function countProjectDocuments(db: Tx, projectId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(documents).where(eq(documents.projectId, projectId));
  return row?.n ?? 0;
}

export async function projectOwned(db: Tx, userId: string, projectId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: projects.id })
    .from(projects)
    .where(and(eq(projects.id, projectId), eq(projects.userId, userId)));
  return row !== undefined;
}

/** Bumps the user's documents version (a vector cache reading an older one reloads). */
export async function bumpDocumentsVersion(db: Tx, userId: string): Promise<void> {
  await db
    .insert(documentVersions)
    .values({ userId, version: 1 })
    .onConflictDoUpdate({ target: documentVersions.userId, set: { version: sql`${documentVersions.version} + 1` } });
}

export async function insertDocument(db: Tx, row: typeof documents.$inferInsert): Promise<DocumentRow> {
  const [created] = await db.insert(documents).values(row).returning();
  return { ...created!, embeddingModel: null };
}

export async function insertPassages(db: Tx, userId: string, documentId: string, passages: readonly Passage[]): Promise<void> {
  for (let i = 0; i < passages.length; i += PASSAGE_BATCH) {
    await db.insert(documentPassages).values(
      passages.slice(i, i + PASSAGE_BATCH).map((p) => ({ documentId, userId, ord: p.ord, page: p.page, sheet: p.sheet, heading: p.heading, text: p.text })),
    );
  }
}

/** The user's documents, newest first: all, a project's (`projectId`), or those in no project (`projectId: null`). */
export async function listDocuments(db: Tx, userId: string, filter: { projectId?: string | null }): Promise<DocumentRow[]> {
  const project = filter.projectId === undefined ? undefined : filter.projectId === null ? isNull(documents.projectId) : eq(documents.projectId, filter.projectId);
  return db
    .select(columns)
    .from(documents)
    .where(and(eq(documents.userId, userId), project))
    .orderBy(desc(documents.createdAt), desc(documents.id));
}

/** The user's documents among `ids` (others' and unknown ids are left out). */
export async function documentsByIds(db: Tx, userId: string, ids: readonly string[]): Promise<DocumentRow[]> {
  if (ids.length === 0) return [];
  return db
    .select(columns)
    .from(documents)
    .where(and(eq(documents.userId, userId), inArray(documents.id, [...ids])));
}

/** Ties the user's documents among `ids` that are in no chat and no project to a conversation. */
export async function attachDocuments(db: Tx, userId: string, ids: readonly string[], conversationId: string): Promise<void> {
  if (ids.length === 0) return;
  await db
    .update(documents)
    .set({ conversationId })
    .where(and(eq(documents.userId, userId), inArray(documents.id, [...ids]), isNull(documents.conversationId), isNull(documents.projectId)));
}

/** Deletes the user's document (its passages and vectors go with it by the foreign key); false when they have none with this id. */
export async function deleteDocument(db: Tx, userId: string, id: string): Promise<boolean> {
  const removed = await db
    .delete(documents)
    .where(and(eq(documents.id, id), eq(documents.userId, userId)))
    .returning({ id: documents.id });
  return removed.length > 0;
}

/** Deletes documents in no chat and no project stored before `before`; the owner of each one that went. */
export async function purgeUnattachedDocuments(db: Tx, before: Date): Promise<string[]> {
  const removed = await db
    .delete(documents)
    .where(and(isNull(documents.conversationId), isNull(documents.projectId), lt(documents.createdAt, before)))
    .returning({ userId: documents.userId });
  return removed.map((r) => r.userId);
}

export type PassageRow = {
  id: string;
  documentId: string;
  fileName: string;
  ord: number;
  page: number | null;
  sheet: string | null;
  heading: string | null;
  text: string;
};

/** The user's passage with the one before and after it in its document. */
export async function findPassageWithNeighbours(db: Tx, userId: string, passageId: string): Promise<{ passage: PassageRow; before: string; after: string } | null> {
  const [passage] = await db
    .select({
      id: documentPassages.id,
      documentId: documentPassages.documentId,
      fileName: documents.name,
      ord: documentPassages.ord,
      page: documentPassages.page,
      sheet: documentPassages.sheet,
      heading: documentPassages.heading,
      text: documentPassages.text,
    })
    .from(documentPassages)
    .innerJoin(documents, eq(documents.id, documentPassages.documentId))
    .where(and(eq(documentPassages.id, passageId), eq(documentPassages.userId, userId)));
  if (!passage) return null;
  const neighbours = await db
    .select({ ord: documentPassages.ord, text: documentPassages.text })
    .from(documentPassages)
    .where(and(eq(documentPassages.documentId, passage.documentId), inArray(documentPassages.ord, [passage.ord - 1, passage.ord + 1])))
    .orderBy(asc(documentPassages.ord));
  const textAt = (ord: number) => neighbours.find((n) => n.ord === ord)?.text ?? '';
  return { passage, before: textAt(passage.ord - 1), after: textAt(passage.ord + 1) };
}

/** The scope of a question: the named documents and the project's knowledge, the user's only. */
export function scopeCondition(userId: string, documentIds: readonly string[], projectId: string | null): SQL | undefined {
  const inScope = [documentIds.length > 0 ? inArray(documents.id, [...documentIds]) : undefined, projectId ? eq(documents.projectId, projectId) : undefined].filter(
    (c): c is SQL => c !== undefined,
  );
  if (inScope.length === 0) return undefined;
  return and(eq(documents.userId, userId), or(...inScope));
}

