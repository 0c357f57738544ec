import { and, desc, eq, getTableColumns, lte, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { articleImages, articles, users } from '../../db/schema.ts';
import { articleTagsColumn } from './tags.repo.ts';

export type ArticleRow = typeof articles.$inferSelect;
/** An article with its cover's size (docs/decisions/0099): null without a cover. */
export type ArticleWithCover = ArticleRow & { coverWidth: number | null; coverHeight: number | null };
/** The cover's size, read with a left join on article_images. */
const coverSize = { coverWidth: articleImages.width, coverHeight: articleImages.height };
/** An article with its author's name, which its public page names (JSON-LD): null when the
 * author's account is gone. */
export type ArticleWithAuthor = ArticleWithCover & { authorName: string | null; authorPicture: string | null };
export type NewArticle = Omit<typeof articles.$inferInsert, 'id' | 'createdAt' | 'updatedAt'>;
/** The columns a save changes; the publication's may be SQL of the row's own values. */
export type ArticlePatch = {
  [K in 'title' | 'category' | 'excerpt' | 'content' | 'readTime' | 'status' | 'publishAt' | 'publishedAt' | 'metaTitle' | 'metaDescription' | 'canonicalUrl' | 'coverImageId' | 'coverAlt']?: ArticleRow[K] | SQL;
};

/** The date the public pages show: when it went public (its creation for a row without one). */
export const publicDate = sql<Date>`coalesce(${articles.publishedAt}, ${articles.createdAt})`.mapWith(articles.createdAt);
const newestFirst = [desc(articles.createdAt), desc(articles.id)];

/** Published articles, newest public date first, with only the columns a list shows (and their
 * tags, decision 0100). */
export async function listPublishedArticles(db: Db) {
  return db
    .select({
      id: articles.id,
      slug: articles.slug,
      title: articles.title,
      category: articles.category,
      excerpt: articles.excerpt,
      createdAt: articles.createdAt,
      publishedAt: publicDate,
      updatedAt: articles.updatedAt,
      readTime: articles.readTime,
      canonicalUrl: articles.canonicalUrl,
      tags: articleTagsColumn,
      coverImageId: articles.coverImageId,
      coverAlt: articles.coverAlt,
      ...coverSize,
    })
    .from(articles)
    .leftJoin(articleImages, eq(articleImages.id, articles.coverImageId))
    .where(eq(articles.status, 'published'))
    .orderBy(desc(publicDate), desc(articles.id));
}

export async function listAllArticles(db: Db): Promise<ArticleWithCover[]> {
  return db
    .select({ ...getTableColumns(articles), ...coverSize })
    .from(articles)
    .leftJoin(articleImages, eq(articleImages.id, articles.coverImageId))
    .orderBy(...newestFirst);
}

export async function findArticleBySlug(db: Db, slug: string): Promise<ArticleWithAuthor | undefined> {
  const [row] = await db
    .select({ ...getTableColumns(articles), authorName: users.name, authorPicture: users.profilePicture, ...coverSize })
    .from(articles)
    .leftJoin(users, eq(users.id, articles.authorId))
    .leftJoin(articleImages, eq(articleImages.id, articles.coverImageId))
    .where(eq(articles.slug, slug));
  return row;
}

export async function findArticleById(db: Db, id: string): Promise<ArticleWithCover | undefined> {
  const [row] = await db
    .select({ ...getTableColumns(articles), ...coverSize })
    .from(articles)
    .leftJoin(articleImages, eq(articleImages.id, articles.coverImageId))
    .where(eq(articles.id, id));
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

/**
 * Publishes what is due: the scheduled articles (or the one, `id`) whose publish_at has come, by
 * a conditional UPDATE, so a job run twice, a job and the sweep, or two processes publish each
 * once. The public date is the scheduled time. Returns the ids it published.
 */
export async function publishDue(db: Db, now: Date, id?: string): Promise<string[]> {
  const due = and(eq(articles.status, 'scheduled'), lte(articles.publishAt, now), id === undefined ? undefined : eq(articles.id, id));
  const rows = await db
    .update(articles)
    .set({ status: 'published', publishedAt: sql`${articles.publishAt}`, publishAt: null, updatedAt: now })
    .where(due)
    .returning({ id: articles.id });
  return rows.map((row) => row.id);
}
