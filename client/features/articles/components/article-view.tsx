import type { ComponentType } from 'react';
import type { TPublicArticle } from '../../../../contracts/articles.ts';
import { Badge } from '../../../components/ui/badge.tsx';
import { LoadFailed } from '../../../components/ui/load-failed.tsx';
import { Skeleton } from '../../../components/ui/skeleton.tsx';
import { StrokeIcon } from '../../../components/ui/stroke-icon.tsx';
import { useLocalDate } from '../../../lib/time-zone.ts';
import { useNavigation } from '../../../lib/navigation.ts';

export type ShownArticle =
  | { status: 'pending' }
  | { status: 'error'; error: unknown; retry(): void }
  /** `draft`: an admin's preview of an unpublished article. */
  | { status: 'success'; article: TPublicArticle; draft?: boolean };

/** What renders the article's Markdown (with its author, tags and related articles:
 * article-extras.tsx): the app's chunk has it at hand; the server-rendered page loads it after
 * the page has painted (client/app/site-root.tsx). Given the whole article. */
export type ArticleBody = ComponentType<TPublicArticle>;

function Header({ article, draft }: { article: TPublicArticle; draft: boolean }) {
  const date = useLocalDate(article.publishedAt);
  return (
    <header>
      <div className="flex flex-wrap items-center gap-2">
        <Badge variant="brand" wrap>
          {article.category}
        </Badge>
        {draft && <Badge variant="warning">Draft</Badge>}
      </div>
      <h1 className="mt-4 text-3xl font-bold tracking-tight text-slate-900 sm:text-4xl">{article.title}</h1>
      <p className="mt-4 flex items-center gap-2 text-sm text-slate-600">
        <time dateTime={article.publishedAt}>{date}</time>
        <span aria-hidden="true">·</span>
        <span>{article.readTime}</span>
      </p>
    </header>
  );
}

/**
 * /insights/:slug: the article, its Markdown rendered safely by `Body`. The same view for the
 * app (data from its query cache) and for the page the server renders (data from the server),
 * so the HTML the server sends is what the browser hydrates.
 */
export function ArticleView({ shown, Body }: { shown: ShownArticle; Body: ArticleBody }) {
  const { Link } = useNavigation();
  return (
    <div className="mx-auto max-w-3xl px-4 py-10 sm:px-6 lg:px-8">
      <Link to="/insights" className="inline-flex items-center gap-1 text-sm font-medium text-brand-700 hover:underline">
        <StrokeIcon className="size-4">
          <path d="m12 19-7-7 7-7" />
          <path d="M19 12H5" />
        </StrokeIcon>
        All insights
      </Link>
      {shown.status === 'pending' ? (
        <div aria-busy="true" aria-label="Loading article" className="mt-8">
          <Skeleton className="h-5 w-24 rounded-full" />
          <Skeleton className="mt-4 h-10 w-4/5" />
          <Skeleton className="mt-4 h-4 w-1/3" />
          <Skeleton className="mt-10 h-64" />
        </div>
      ) : shown.status === 'error' ? (
        <LoadFailed what="The article" error={shown.error} onRetry={shown.retry} />
      ) : (
        <article className="mt-8">
          <Header article={shown.article} draft={shown.draft === true} />
          {shown.article.cover && (
            // The page's largest paint: fetched first, its box sized before it arrives.
            // Its attributes (srcset, sizes, size, fetchpriority high: the page's largest paint)
            // come made from the server, its look from styles.css (the page's JavaScript has a budget).
            <img {...shown.article.cover} className="article-cover" />
          )}
          <div className="mt-8 border-t border-slate-200 pt-2">
            <Body {...shown.article} />
          </div>
        </article>
      )}
    </div>
  );
}
