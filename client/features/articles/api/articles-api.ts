import type { QueryClient } from '@tanstack/react-query';
import type { TArticleImage } from '../../../../contracts/article-images.ts';
import { INSIGHTS_PAGE_SIZE } from '../../../../contracts/site.ts';
import { apiRequest } from '../../../lib/api-client.ts';

export const ADMIN_ARTICLES_KEY = ['/api/admin/articles'] as const;
export const adminArticleKey = (id: string) => [`/api/admin/articles/${encodeURIComponent(id)}`] as const;
export const articleRevisionsKey = (id: string) => [`/api/admin/articles/${encodeURIComponent(id)}/revisions`] as const;
export const articleRevisionKey = (id: string, revisionId: string) => [`/api/admin/articles/${encodeURIComponent(id)}/revisions/${encodeURIComponent(revisionId)}`] as const;
export const articleKey = (slug: string) => [`/api/articles/${encodeURIComponent(slug)}`] as const;
/** A page of /insights, INSIGHTS_PAGE_SIZE articles (contracts/site.ts: zod-free, for the public chunk). */
export const articlesPageUrl = (page: number) => `/api/articles?limit=${INSIGHTS_PAGE_SIZE}&offset=${(page - 1) * INSIGHTS_PAGE_SIZE}`;
/** A page of a tag's articles with the tag (decision 0100): GET /api/articles/tag/:slug. */
export const tagPageUrl = (slug: string, page: number) => `/api/articles/tag/${encodeURIComponent(slug)}?limit=${INSIGHTS_PAGE_SIZE}&offset=${(page - 1) * INSIGHTS_PAGE_SIZE}`;

/** After any write: every public articles query (the landing's, /insights pages, article pages)
 * and the admin's list and editor. */
export function invalidateArticles(queryClient: QueryClient): Promise<void> {
  return queryClient.invalidateQueries({
    predicate: ({ queryKey: [url] }) => typeof url === 'string' && (url.startsWith('/api/articles') || url.startsWith('/api/admin/articles')),
  });
}

export const previewLinksKey = (id: string) => [`/api/admin/articles/${encodeURIComponent(id)}/preview-links`] as const;
export const previewKey = (token: string) => [`/api/preview/${encodeURIComponent(token)}`] as const;

/** Uploads an image for an article (its raw bytes, its type in the query): docs/decisions/0099. */
export function uploadArticleImage(file: File): Promise<TArticleImage> {
  return apiRequest<TArticleImage>('POST', `/api/articles/images?type=${encodeURIComponent(file.type)}`, file, { timeoutMs: 120_000 });
}
