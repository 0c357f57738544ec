import { and, desc, eq, lte, sql } from 'drizzle-orm';
import { ARTICLE_REVISIONS_KEPT, type TArticleRevisionFields } from '../../../contracts/articles.ts';
import type { Db } from '../../db/client.ts';
import { articleRevisions, users } from '../../db/schema.ts';

export type ArticleRevisionRow = typeof articleRevisions.$inferSelect;

/**
 * Keeps `fields` as the article's next revision and drops those past the newest
 * ARTICLE_REVISIONS_KEPT. Called in the save's transaction after the article's row was written
 * (so its row lock orders two saves of one article, and their numbers).
 */
export async function recordRevision(db: Db, articleId: string, authorId: string | null, fields: TArticleRevisionFields): Promise<void> {
  const [row] = await db
    .insert(articleRevisions)
    .values({
      articleId,
      authorId,
      fields,
      number: sql`(select coalesce(max(${articleRevisions.number}), 0) + 1 from ${articleRevisions} where ${articleRevisions.articleId} = ${articleId})`,
    })
    .returning({ number: articleRevisions.number });
  await db.delete(articleRevisions).where(and(eq(articleRevisions.articleId, articleId), lte(articleRevisions.number, row!.number - ARTICLE_REVISIONS_KEPT)));
}

const summaryColumns = {
  id: articleRevisions.id,
  number: articleRevisions.number,
  createdAt: articleRevisions.createdAt,
  authorId: users.id,
  authorName: users.name,
};

/** An article's revisions, newest first, with who saved each. */
export async function listRevisions(db: Db, articleId: string) {
  return db
    .select(summaryColumns)
    .from(articleRevisions)
    .leftJoin(users, eq(users.id, articleRevisions.authorId))
    .where(eq(articleRevisions.articleId, articleId))
    .orderBy(desc(articleRevisions.number));
}

/** One revision of that article with its text, or undefined (another article's id is not found). */
export async function findRevision(db: Db, articleId: string, revisionId: string) {
  const [row] = await db
    .select({ ...summaryColumns, fields: articleRevisions.fields })
    .from(articleRevisions)
    .leftJoin(users, eq(users.id, articleRevisions.authorId))
    .where(and(eq(articleRevisions.articleId, articleId), eq(articleRevisions.id, revisionId)));
  return row;
}

/** The text of an article's newest revision, or undefined when it has none. */
export async function newestRevisionFields(db: Db, articleId: string): Promise<TArticleRevisionFields | undefined> {
  const [row] = await db
    .select({ fields: articleRevisions.fields })
    .from(articleRevisions)
    .where(eq(articleRevisions.articleId, articleId))
    .orderBy(desc(articleRevisions.number))
    .limit(1);
  return row?.fields;
}
