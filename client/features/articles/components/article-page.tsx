import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useParams } from 'react-router';
import type { TArticle, TPublicArticle } from '../../../../contracts/articles.ts';
import { appConfig } from '../../../lib/app-config.ts';
import { ApiError } from '../../../lib/api-client.ts';
import { articleKey } from '../api/articles-api.ts';
import { ArticleWithExtras } from './article-extras.tsx';
import { ArticleNotFound } from './article-not-found.tsx';
import { ArticleView, type ShownArticle } from './article-view.tsx';

/** usePageTitle's '{title} · {site}', or the article's meta title as written (decision 0096),
 * while shown; the previous title back when it goes. Here rather than an option of usePageTitle,
 * which the landing page's first load carries (its budget is full). */
function useArticleTitle(title: string, metaTitle: string | null | undefined): void {
  const shown = metaTitle ?? `${title} · ${appConfig().siteName}`;
  useEffect(() => {
    const previous = document.title;
    document.title = shown;
    return () => {
      document.title = previous;
    };
  }, [shown]);
}

/** Sets the page's meta description while shown, and puts the previous one back. */
function useMetaDescription(content: string | undefined): void {
  useEffect(() => {
    if (!content) return;
    let meta = document.querySelector<HTMLMetaElement>('meta[name="description"]');
    const created = !meta;
    if (!meta) {
      meta = document.createElement('meta');
      meta.name = 'description';
      document.head.append(meta);
    }
    const previous = meta.content;
    meta.content = content;
    return () => {
      if (created) meta.remove();
      else meta.content = previous;
    };
  }, [content]);
}

/** /insights/:slug in the app (public; admins may open drafts): the article from the query cache,
 * its Markdown rendered safely. An unknown or unpublished article says so, with the way to the
 * others. Visitors who open the address get the page the server rendered (client/app/site-root.tsx). */
export default function ArticlePage() {
  const { slug = '' } = useParams();
  // Visitors get the public article; an admin gets the whole one, so a draft can say so.
  const article = useQuery<TPublicArticle & Partial<Pick<TArticle, 'published'>>>({ queryKey: articleKey(slug) });
  const missing = article.isError && article.error instanceof ApiError && article.error.status === 404;
  // The same title and description as the page the server writes (its meta fields, else the
  // title and the excerpt), so a crawler that runs scripts reads what the admin wrote.
  const metaTitle = missing ? undefined : article.data?.metaTitle;
  useArticleTitle(missing ? 'Article not found' : (article.data?.title ?? 'Insights'), metaTitle);
  useMetaDescription(article.data?.metaDescription ?? article.data?.excerpt);

  if (missing) return <ArticleNotFound />;

  const shown: ShownArticle = article.isPending
    ? { status: 'pending' }
    : article.isError
      ? { status: 'error', error: article.error, retry: () => void article.refetch() }
      : { status: 'success', article: article.data, draft: article.data.published === false };
  return <ArticleView shown={shown} Body={ArticleWithExtras} />;
}
