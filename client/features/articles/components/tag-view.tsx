import type { TArticleSummary, TArticleTag } from '../../../../contracts/articles.ts';
import { INSIGHTS_PAGE_SIZE, type TSitePage } from '../../../../contracts/site.ts';
import { tagFeedPath, tagPath } from '../../../../contracts/tag-paths.ts';
import { ArticleCard, ArticleCardSkeleton } from '../../../components/article-card.tsx';
import { LoadFailed } from '../../../components/ui/load-failed.tsx';
import { usePageTitle } from '../../../components/ui/use-page-title.ts';
import { useNavigation } from '../../../lib/navigation.ts';
import type { ListPage } from '../../../lib/api-list.ts';
import { Pagination } from './insights-view.tsx';

const GRID = 'mt-10 grid gap-6 sm:grid-cols-2 lg:grid-cols-3';

export type TagList =
  | { status: 'pending' }
  | { status: 'error'; error: unknown; retry(): void }
  | { status: 'success'; data: ListPage<TArticleSummary> & { tag: TArticleTag } };

/**
 * /insights/tag/:slug (decision 0100): the published articles with a tag, newest first, a page
 * of INSIGHTS_PAGE_SIZE, with the tag's RSS feed. The same view for the app and for the page the
 * server renders (client/app/site-root.tsx).
 */
export function TagView({ slug, page, list }: { slug: string; page: number; list: TagList }) {
  const { Link } = useNavigation();
  const name = list.status === 'success' ? list.data.tag.name : slug;
  usePageTitle(`Articles tagged ${name}`);
  const pages = list.status === 'success' ? Math.max(1, Math.ceil(list.data.total / INSIGHTS_PAGE_SIZE)) : 1;
  return (
    <div className="mx-auto max-w-7xl px-4 py-12 sm:px-6 lg:px-8">
      <p className="text-sm font-medium text-brand-700">
        <Link to="/insights" className="hover:underline">
          Insights
        </Link>
      </p>
      <h1 className="mt-2 text-4xl font-bold tracking-tight wrap-anywhere text-slate-900">Articles tagged {name}</h1>
      <p className="mt-3 text-slate-600">
        {/* A feed address: a plain link, for feed readers, not a page of the app. */}
        <a href={tagFeedPath(slug)} className="font-medium text-brand-700 underline">
          RSS feed of this tag
        </a>
      </p>
      {list.status === 'pending' ? (
        <ul className={GRID} aria-busy="true" aria-label="Loading articles">
          {Array.from({ length: 3 }, (_, index) => (
            <ArticleCardSkeleton key={index} />
          ))}
        </ul>
      ) : list.status === 'error' ? (
        <LoadFailed what="The articles" error={list.error} onRetry={list.retry} className="mt-10" />
      ) : list.data.items.length === 0 ? (
        <p className="mt-10 text-slate-600">
          There is no page {page}.{' '}
          <Link to={tagPath(slug)} className="font-medium text-brand-700 underline">
            Go to the first page
          </Link>
        </p>
      ) : (
        <>
          <ul className={GRID}>
            {list.data.items.map((article) => (
              <ArticleCard key={article.id} article={article} headingLevel={2} />
            ))}
          </ul>
          {pages > 1 && <Pagination page={page} pages={pages} base={tagPath(slug)} />}
        </>
      )}
    </div>
  );
}

/** The tag's page as the server renders it (client/app/site-root.tsx loads this chunk there). */
export function SiteTagView({ page }: { page: Extract<TSitePage, { kind: 'tag' }> }) {
  return <TagView slug={page.tag.slug} page={page.page} list={{ status: 'success', data: { ...page.list, tag: page.tag } }} />;
}
