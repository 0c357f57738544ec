import { createHash, randomBytes } from 'node:crypto';
import { PREVIEW_GONE, previewPath } from '../../../contracts/article-preview.ts';
import type { TCreatedPreviewLink, TPreviewArticle, TPreviewLink, TPreviewLinkList } from '../../../contracts/articles.ts';
import type { Db } from '../../db/client.ts';
import { AppError } from '../../lib/errors.ts';
import { findArticleById } from './articles.repo.ts';
import { toApiArticle, toPublicArticle } from './articles.service.ts';
import { tagsOfArticles } from './tags.repo.ts';
import { findArticleByPreviewToken, insertPreviewLink, listWorkingPreviewLinks, revokePreviewLink, type PreviewLinkRow } from './preview-links.repo.ts';


const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

const toLink = (row: PreviewLinkRow): TPreviewLink => ({
  id: row.id,
  createdAt: row.createdAt.toISOString(),
  expiresAt: row.expiresAt.toISOString(),
  createdBy: row.creatorId ? { id: row.creatorId, name: row.creatorName ?? '' } : null,
});

/**
 * Preview links (issue 34 item 2, docs/decisions/0098): an admin shares a draft or scheduled
 * article with someone who has no account. The token (32 random bytes) is shown once; only its
 * SHA-256 is kept. A link works until it expires (PREVIEW_LINK_TTL_HOURS) or is revoked.
 */
export function createPreviewLinksService({ db, ttlMs, publicUrl, now = () => new Date() }: { db: Db; ttlMs: number; publicUrl: string; now?: () => Date }) {
  async function articleOf(articleId: string) {
    const article = await findArticleById(db, articleId);
    if (!article) throw new AppError('NOT_FOUND', 'Article not found');
    return article;
  }

  async function create(articleId: string, adminId: string): Promise<TCreatedPreviewLink> {
    const article = await articleOf(articleId);
    if (article.status === 'published') throw new AppError('CONFLICT', 'This article is published: share its address instead of a preview link');
    const token = randomBytes(32).toString('base64url');
    const at = now();
    const { id } = await insertPreviewLink(db, { articleId, tokenHash: hashOf(token), createdBy: adminId, createdAt: at, expiresAt: new Date(at.getTime() + ttlMs) });
    const link = (await listWorkingPreviewLinks(db, articleId, at)).find((row) => row.id === id);
    if (!link) throw new AppError('INTERNAL', 'The preview link was not kept');
    return { ...toLink(link), url: `${publicUrl}${previewPath(token)}` };
  }

  async function list(articleId: string): Promise<TPreviewLinkList> {
    await articleOf(articleId); // 404 for an unknown article, not an empty list
    return { links: (await listWorkingPreviewLinks(db, articleId, now())).map(toLink) };
  }

  async function revoke(articleId: string, linkId: string): Promise<void> {
    if (!(await revokePreviewLink(db, articleId, linkId, now()))) throw new AppError('NOT_FOUND', 'Preview link not found');
  }

  /** The article a working link shows, as its page shows it, with its publication state. */
  async function read(token: string): Promise<TPreviewArticle> {
    const row = await findArticleByPreviewToken(db, hashOf(token), now());
    if (!row) throw new AppError('NOT_FOUND', PREVIEW_GONE);
    const article = toApiArticle(row, (await tagsOfArticles(db, [row.id])).get(row.id)!);
    return { ...toPublicArticle(article), status: article.status, publishAt: article.publishAt };
  }

  return { create, list, revoke, read };
}

export type PreviewLinksService = ReturnType<typeof createPreviewLinksService>;
