import { and, desc, eq, gt, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { articleImages, articlePreviewLinks, articles, users } from '../../db/schema.ts';
import type { ArticleWithCover } from './articles.repo.ts';

const linkColumns = {
  id: articlePreviewLinks.id,
  createdAt: articlePreviewLinks.createdAt,
  expiresAt: articlePreviewLinks.expiresAt,
  creatorId: users.id,
  creatorName: users.name,
};
export type PreviewLinkRow = { id: string; createdAt: Date; expiresAt: Date; creatorId: string | null; creatorName: string | null };

/** A link that works at `now`: not revoked, not expired. */
const working = (now: Date) => and(isNull(articlePreviewLinks.revokedAt), gt(articlePreviewLinks.expiresAt, now));

export async function insertPreviewLink(db: Db, values: { articleId: string; tokenHash: string; createdBy: string; createdAt: Date; expiresAt: Date }): Promise<{ id: string; createdAt: Date }> {
  const [row] = await db.insert(articlePreviewLinks).values(values).returning({ id: articlePreviewLinks.id, createdAt: articlePreviewLinks.createdAt });
  return row!;
}

/** An article's working links, newest first, with who made each. */
export async function listWorkingPreviewLinks(db: Db, articleId: string, now: Date): Promise<PreviewLinkRow[]> {
  return db
    .select(linkColumns)
    .from(articlePreviewLinks)
    .leftJoin(users, eq(users.id, articlePreviewLinks.createdBy))
    .where(and(eq(articlePreviewLinks.articleId, articleId), working(now)))
    .orderBy(desc(articlePreviewLinks.createdAt), desc(articlePreviewLinks.id));
}

/** Revokes one of the article's links; false when it has no such link (or it was revoked before). */
export async function revokePreviewLink(db: Db, articleId: string, linkId: string, now: Date): Promise<boolean> {
  const rows = await db
    .update(articlePreviewLinks)
    .set({ revokedAt: now })
    .where(and(eq(articlePreviewLinks.id, linkId), eq(articlePreviewLinks.articleId, articleId), isNull(articlePreviewLinks.revokedAt)))
    .returning({ id: articlePreviewLinks.id });
  return rows.length > 0;
}

/** The article a working link's token hash opens, or undefined. */
export async function findArticleByPreviewToken(db: Db, tokenHash: string, now: Date): Promise<ArticleWithCover | undefined> {
  const [row] = await db
    .select({ article: articles, coverWidth: articleImages.width, coverHeight: articleImages.height })
    .from(articlePreviewLinks)
    .innerJoin(articles, eq(articles.id, articlePreviewLinks.articleId))
    .leftJoin(articleImages, eq(articleImages.id, articles.coverImageId))
    .where(and(eq(articlePreviewLinks.tokenHash, tokenHash), working(now)));
  return row && { ...row.article, coverWidth: row.coverWidth, coverHeight: row.coverHeight };
}
