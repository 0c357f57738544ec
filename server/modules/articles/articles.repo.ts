import { desc, eq, getTableColumns } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { articles, users } from '../../db/schema.ts';

export type ArticleRow = typeof articles.$inferSelect;
/** An article with its author's name, which its public page names (JSON-LD): null when the
 * author's account is gone. */
export type ArticleWithAuthor = ArticleRow & { authorName: string | null };
export type NewArticle = Omit<typeof articles.$inferInsert, 'id' | 'createdAt' | 'updatedAt'>;
export type ArticlePatch = Partial<Pick<ArticleRow, 'title' | 'category' | 'excerpt' | 'content' | 'readTime' | 'published' | 'metaTitle' | 'metaDescription' | 'canonicalUrl'>>;

const newestFirst = [desc(articles.createdAt), desc(articles.id)];

/** Published articles, newest first, with only the columns a list shows. */
export async function listPublishedArticles(db: Db) {
  return db
    .select({
      id: articles.id,
      slug: articles.slug,
      title: articles.title,
      category: articles.category,
      excerpt: articles.excerpt,
      createdAt: articles.createdAt,
      updatedAt: articles.updatedAt,
      readTime: articles.readTime,
      canonicalUrl: articles.canonicalUrl,
    })
    .from(articles)
    .where(eq(articles.published, true))
    .orderBy(...newestFirst);
}

export async function listAllArticles(db: Db): Promise<ArticleRow[]> {
  return db.select().from(articles).orderBy(...newestFirst);
}

export async function findArticleBySlug(db: Db, slug: string): Promise<ArticleWithAuthor | undefined> {
  const [row] = await db
    .select({ ...getTableColumns(articles), authorName: users.name })
    .from(articles)
    .leftJoin(users, eq(users.id, articles.authorId))
    .where(eq(articles.slug, slug));
  return row;
}

export async function findArticleById(db: Db, id: string): Promise<ArticleRow | undefined> {
  const [row] = await db.select().from(articles).where(eq(articles.id, id));
  return row;
}

/** Inserts unless the slug is taken; undefined then, so the caller can try another slug. */
export async function insertArticleIfSlugFree(db: Db, values: NewArticle): Promise<ArticleRow | undefined> {
  const [row] = await db.insert(articles).values(values).onConflictDoNothing({ target: articles.slug }).returning();
  return row;
}

export async function updateArticle(db: Db, id: string, patch: ArticlePatch): Promise<ArticleRow | undefined> {
  const [row] = await db
    .update(articles)
    .set({ ...patch, updatedAt: new Date() })
    .where(eq(articles.id, id))
    .returning();
  return row;
}

export async function deleteArticle(db: Db, id: string): Promise<boolean> {
  const removed = await db.delete(articles).where(eq(articles.id, id)).returning({ id: articles.id });
  return removed.length > 0;
}
