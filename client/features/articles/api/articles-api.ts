import type { QueryClient } from '@tanstack/react-query';
import { INSIGHTS_PAGE_SIZE } from '../../../../contracts/site.ts';

/** The contract's page of /insights (from the zod-free module: contracts/articles.ts would pull
 * zod into the public insights chunk). */
export const PAGE_SIZE = INSIGHTS_PAGE_SIZE;

export const ADMIN_ARTICLES_KEY = ['/api/admin/articles'] as const;
export const adminArticleKey = (id: string) => [`/api/admin/articles/${encodeURIComponent(id)}`] as const;
export const articleKey = (slug: string) => [`/api/articles/${encodeURIComponent(slug)}`] as const;
export const articlesPageUrl = (page: number) => `/api/articles?limit=${PAGE_SIZE}&offset=${(page - 1) * PAGE_SIZE}`;

/** After any write: every public articles query (the landing's, /insights pages, article pages)
 * and the admin's list and editor. */
export function invalidateArticles(queryClient: QueryClient): Promise<void> {
  return queryClient.invalidateQueries({
    predicate: ({ queryKey: [url] }) => typeof url === 'string' && (url.startsWith('/api/articles') || url.startsWith('/api/admin/articles')),
  });
}

