import { and, eq, inArray, isNotNull, ne, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { documentPassages, documents, documentVersions } from '../../db/schema.ts';
import { FULL_TEXT_BOUND, planCandidates, positiveLexemes } from './retrieval.full-text.ts';

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

/**
 * The owner's check on rows another index finds (passages by id, by document, by word): compared
 * as text, so the planner cannot take the user's btree index for it. PGlite, which keeps no
 * statistics, ANDed that index with the other and read all of a user's entries each time: 40 ms
 * at 50,000 passages for a read of 50 by id (docs/decisions/0087).
 */
const ownedBy = (userId: string) => sql`${documentPassages.userId}::text = ${userId}`;

/** Ids per read of vectors by id (PostgreSQL's 65,535 parameters; smaller reads keep the pool shared). */
const IDS_PER_READ = 2_000;

/**
 * A vector as the database sends it: base64 text, decoded natively. Read as `bytea`, each vector
 * came as hex text parsed in JavaScript by the driver: 50,000 vectors of 512 float32 took 1.9 s
 * on PostgreSQL and 14.4 s on PGlite, as base64 1.1 s and 2.6 s (docs/decisions/0087).
 */
const embeddingBase64 = sql<string | null>`encode(${documentPassages.embedding}, 'base64')`;
const fromBase64 = (text: string | null) => (text === null ? null : Buffer.from(text, 'base64'));

/** The stored float32 vectors of some passages (an index's new rows, the re-scoring of its candidates). */
export async function passageEmbeddings(db: Tx, userId: string, ids: readonly string[]) {
  const rows: { id: string; documentId: string; embedding: Buffer | null }[] = [];
  for (let i = 0; i < ids.length; i += IDS_PER_READ) {
    const read = await db
      .select({ id: documentPassages.id, documentId: documentPassages.documentId, embedding: embeddingBase64 })
      .from(documentPassages)
      .where(and(ownedBy(userId), inArray(documentPassages.id, ids.slice(i, i + IDS_PER_READ))));
    for (const row of read) rows.push({ ...row, embedding: fromBase64(row.embedding) });
  }
  return rows;
}

/** Passages per read of a whole index: a few MB of text a read, and the next is asked for while this one is decoded. */
const PASSAGES_PER_READ = 2_500;

/**
 * Every passage of the user embedded with the target, with its vector: the first build of their
 * index in this process. Read document by document (the (document, ord) index finds each one's
 * rows), a few thousand passages a read, each read asked for before the one before is handed on.
 */
export async function* embeddedPassages(db: Tx, userId: string, target: EmbeddingTarget): AsyncGenerator<{ id: string; documentId: string; embedding: Buffer }[]> {
  const owned = await db.select({ id: documents.id, passages: documents.passages }).from(documents).where(eq(documents.userId, userId)).orderBy(documents.id);
  const batches: string[][] = [];
  let size = Infinity;
  for (const doc of owned) {
    if (size + doc.passages > PASSAGES_PER_READ || batches.length === 0) {
      batches.push([]);
      size = 0;
    }
    batches.at(-1)!.push(doc.id);
    size += doc.passages;
  }
  const read = (ids: string[]) =>
    db
      .select({ id: documentPassages.id, documentId: documentPassages.documentId, embedding: embeddingBase64 })
      .from(documentPassages)
      .where(and(inArray(documentPassages.documentId, ids), ownedBy(userId), ...currentEmbedding(target)));
  let next = batches.length > 0 ? read(batches[0]!) : null;
  for (let b = 0; next; b++) {
    const rows = await next;
    next = b + 1 < batches.length ? read(batches[b + 1]!) : null;
    // Handled before it is awaited: a failed read ahead must not go unhandled while this one is decoded.
    next?.catch(() => {});
    yield rows.map((row) => ({ id: row.id, documentId: row.documentId, embedding: fromBase64(row.embedding)! }));
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Passages in the documents that answer the question's words, best first (`ts_rank_cd`), and how
 * many passages were ranked to find them. The question is read by `websearch_to_tsquery` (quoted
 * phrases, `-word`), but its words are then joined by OR, not AND: a question in a sentence
 * ("what is the refund window for Canada?") rarely has every word in one passage, and
 * `ts_rank_cd` still ranks the passages with more of them, closer together, first. Only a bounded
 * candidate set is ranked (retrieval.full-text.ts, docs/decisions/0087): each word's passages are
 * counted first (each count stops past the bound), and the rarer words' passages are ranked.
 */
export async function fullTextSearch(
  db: Tx,
  userId: string,
  documentIds: readonly string[],
  question: string,
  limit: number,
  bound = FULL_TEXT_BOUND,
): Promise<{ ids: string[]; ranked: number }> {
  if (documentIds.length === 0) return { ids: [], ranked: 0 };
  // Written into an array literal below: only uuids may go there.
  if (!documentIds.every((id) => UUID.test(id))) throw new Error('fullTextSearch takes document ids (uuids) only');
  const [parsed] = rowsOf<{ query: string }>(await db.execute(sql`select websearch_to_tsquery('english', ${question})::text as query`));
  const lexemes = positiveLexemes(parsed?.query ?? '');
  if (lexemes.length === 0) return { ids: [], ranked: 0 };
  // The owner and documents are compared as text so the planner cannot take their btree
  // indexes: it did (the user's index, every one of their rows read and each tsvector
  // detoasted to test it: 40-80 ms at 10,000 passages), where the GIN index on tsv finds the
  // few that match and the owner and scope are then checked on those alone. The documents go as
  // one array parameter (PostgreSQL's array text of the scope's uuids, read from the database):
  // a parameter each, repeated in every probe, made PGlite bind hundreds per question.
  const inScope = sql`${ownedBy(userId)} and ${documentPassages.documentId}::text = any(${`{${documentIds.join(',')}}`}::text[])`;
  const matching = (tsquery: string, cap: number) => sql`(select ${documentPassages.id} from ${documentPassages} where ${inScope} and ${documentPassages.tsv} @@ ${tsquery}::tsquery limit ${cap})`;

  // Each word's passages in scope, counted up to one past the bound (a bounded read each).
  const probes = sql.join(
    lexemes.map((lexeme) => sql`select ${lexeme}::text as lexeme, (select count(*) from ${matching(lexeme, bound + 1)} as hit)::int as count`),
    sql` union all `,
  );
  const counts = rowsOf<{ lexeme: string; count: number | string }>(await db.execute(probes)).map((r) => ({ lexeme: r.lexeme, count: Number(r.count) }));
  const plan = planCandidates(counts, bound, limit);
  if (plan.kind === 'none') return { ids: [], ranked: 0 };
  const candidates =
    plan.kind === 'rare'
      ? plan.fill
        ? sql`${matching(plan.lexemes.join(' | '), bound)} union ${matching(plan.fill, plan.fillCap)}`
        : matching(plan.lexemes.join(' | '), bound)
      : sql`${matching(plan.all.join(' & '), plan.cap)} union ${matching(plan.rarest, plan.cap)}`;

  const query = sql`replace(websearch_to_tsquery('english', ${question})::text, ' & ', ' | ')::tsquery`;
  const rows = rowsOf<{ id: string; ranked: number | string }>(
    await db.execute(sql`
      with candidate as (${candidates})
      select p.id, (select count(*) from candidate)::int as ranked
      from ${documentPassages} p join candidate c on c.id = p.id
      where p.tsv @@ ${query}
      order by ts_rank_cd(p.tsv, ${query}) desc, p.id
      limit ${limit}`),
  );
  return { ids: rows.map((r) => r.id), ranked: Number(rows[0]?.ranked ?? 0) };
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
    .where(and(ownedBy(userId), inArray(documentPassages.id, [...ids])));
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

/** Rows of a raw `execute()`: node-postgres answers a result with `rows`, PGlite's driver too. */
function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}
