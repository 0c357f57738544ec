import { desc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { articles } from '../../db/schema.ts';

/** Published articles, newest first, with only the columns a list shows. */
export async function listPublishedArticles(db: Db, limit?: number) {
  const query = db
    .select({
      id: articles.id,
      title: articles.title,
      category: articles.category,
      excerpt: articles.excerpt,
      createdAt: articles.createdAt,
      readTime: articles.readTime,
    })
    .from(articles)
    .where(eq(articles.published, true))
    .orderBy(desc(articles.createdAt), desc(articles.id));
  return limit === undefined ? query : query.limit(limit);
}
