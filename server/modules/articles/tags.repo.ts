import { asc, eq, inArray, sql } from 'drizzle-orm';
import type { TArticleTag } from '../../../contracts/articles.ts';
import type { Db } from '../../db/client.ts';
import { articleTags, tags } from '../../db/schema.ts';

/** A tag to give an article: its slug (its identity) and the name to create it with. */
export type TagToSet = TArticleTag;

/**
 * Makes `wanted` (primary first, one per slug) the article's tags: creates the tags that do not
 * exist yet (an existing tag keeps its name), then replaces the article's list. In the caller's
 * transaction, with the article's save.
 */
export async function setArticleTags(db: Db, articleId: string, wanted: TagToSet[]): Promise<void> {
  await db.delete(articleTags).where(eq(articleTags.articleId, articleId));
  if (wanted.length === 0) return;
  await db.insert(tags).values(wanted).onConflictDoNothing({ target: tags.slug });
  const rows = await db
    .select({ id: tags.id, slug: tags.slug })
    .from(tags)
    .where(inArray(
      tags.slug,
      wanted.map((t) => t.slug),
    ));
  const idOf = new Map(rows.map((row) => [row.slug, row.id]));
  await db.insert(articleTags).values(wanted.map((t, position) => ({ articleId, tagId: idOf.get(t.slug)!, position })));
}

/** The articles' tags, each article's in order (primary first); one query for all of them. */
export async function tagsOfArticles(db: Db, articleIds: string[]): Promise<Map<string, TArticleTag[]>> {
  const byArticle = new Map<string, TArticleTag[]>(articleIds.map((id) => [id, []]));
  if (articleIds.length === 0) return byArticle;
  const rows = await db
    .select({ articleId: articleTags.articleId, name: tags.name, slug: tags.slug })
    .from(articleTags)
    .innerJoin(tags, eq(tags.id, articleTags.tagId))
    .where(inArray(articleTags.articleId, articleIds))
    .orderBy(asc(articleTags.articleId), asc(articleTags.position));
  for (const { articleId, name, slug } of rows) byArticle.get(articleId)?.push({ name, slug });
  return byArticle;
}

/**
 * An article's tags as a column of its row (primary first), so the public list reads articles
 * and their tags in one query (decision 0100).
 */
// Written out with its own aliases: drizzle leaves columns unqualified in a one-table select,
// where "id" or "slug" would name the subquery's own.
export const articleTagsColumn = sql<TArticleTag[]>`coalesce((
  select json_agg(json_build_object('name', t.name, 'slug', t.slug) order by at.position)
  from article_tags at join tags t on t.id = at.tag_id
  where at.article_id = "articles"."id"
), '[]'::json)`;
