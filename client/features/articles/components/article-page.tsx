import { useQuery } from '@tanstack/react-query';
import { ArrowLeft } from 'lucide-react';
import { useEffect } from 'react';
import { Link, useParams } from 'react-router';
import type { TArticle, TPublicArticle } from '../../../../contracts/articles.ts';
import { Badge } from '../../../components/ui/badge.tsx';
import { Skeleton } from '../../../components/ui/skeleton.tsx';
import { usePageTitle } from '../../../components/ui/use-page-title.ts';
import { ApiError } from '../../../lib/api-client.ts';
import { ArticleNotFound } from './article-not-found.tsx';
import { articleKey } from '../api/articles-api.ts';
import { ArticleMarkdown } from '../../../components/markdown.tsx';
import { LoadFailed } from '../../../components/ui/load-failed.tsx';

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

/** /insights/:slug (public; admins may open drafts): the article, its Markdown rendered safely.
 * An unknown or unpublished article says so, with the way to the others. */
export default function ArticlePage() {
  const { slug = '' } = useParams();
  // Visitors get the public article; an admin gets the whole one, so a draft can say so.
  const article = useQuery<TPublicArticle & Partial<Pick<TArticle, 'published'>>>({ queryKey: articleKey(slug) });
  const missing = article.isError && article.error instanceof ApiError && article.error.status === 404;
  usePageTitle(missing ? 'Article not found' : (article.data?.title ?? 'Insights'));
  useMetaDescription(article.data?.excerpt);

  if (missing) return <ArticleNotFound />;

  return (
    <div className="mx-auto max-w-3xl px-4 py-10 sm:px-6 lg:px-8">
      <Link to="/insights" className="inline-flex items-center gap-1 text-sm font-medium text-brand-700 hover:underline">
        <ArrowLeft aria-hidden="true" className="size-4" /> All insights
      </Link>
      {article.isPending ? (
        <div aria-busy="true" aria-label="Loading article" className="mt-8">
          <Skeleton className="h-5 w-24 rounded-full" />
          <Skeleton className="mt-4 h-10 w-4/5" />
          <Skeleton className="mt-4 h-4 w-1/3" />
          <Skeleton className="mt-10 h-64" />
        </div>
      ) : article.isError ? (
        <LoadFailed what="The article" error={article.error} onRetry={() => void article.refetch()} />
      ) : (
        <article className="mt-8">
          <header>
            <div className="flex flex-wrap items-center gap-2">
              <Badge variant="brand">{article.data.category}</Badge>
              {article.data.published === false && <Badge variant="warning">Draft</Badge>}
            </div>
            <h1 className="mt-4 text-3xl font-bold tracking-tight text-slate-900 sm:text-4xl">{article.data.title}</h1>
            <p className="mt-4 flex items-center gap-2 text-sm text-slate-600">
              <time dateTime={article.data.createdAt}>{new Date(article.data.createdAt).toLocaleDateString()}</time>
              <span aria-hidden="true">·</span>
              <span>{article.data.readTime}</span>
            </p>
          </header>
          <div className="mt-8 border-t border-slate-200 pt-2">
            <ArticleMarkdown>{article.data.content}</ArticleMarkdown>
          </div>
        </article>
      )}
    </div>
  );
}
