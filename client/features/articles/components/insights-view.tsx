import type { TArticleSummary } from '../../../../contracts/articles.ts';
import { INSIGHTS_PAGE_SIZE, insightsPageFrom } from '../../../../contracts/site.ts';
import { ArticleCard, ArticleCardSkeleton } from '../../../components/article-card.tsx';
import { buttonClasses } from '../../../components/ui/button.tsx';
import { LoadFailed } from '../../../components/ui/load-failed.tsx';
import { usePageTitle } from '../../../components/ui/use-page-title.ts';
import type { ListPage } from '../../../lib/api-list.ts';
import { useNavigation } from '../../../lib/navigation.ts';

const GRID = 'mt-10 grid gap-6 sm:grid-cols-2 lg:grid-cols-3';

export { insightsPageFrom as pageFrom };

/** Previous and next page of a list at `base` (/insights, a tag's page). */
export function Pagination({ page, pages, base = '/insights' }: { page: number; pages: number; base?: string }) {
  const pageHref = (to: number) => (to <= 1 ? base : `${base}?page=${to}`);
  const { Link } = useNavigation();
  const link = buttonClasses({ variant: 'outline' });
  const off = `${link} pointer-events-none opacity-50`;
  return (
    <nav aria-label="Pagination" className="mt-10 flex items-center justify-between gap-4">
      {page > 1 ? (
        <Link to={pageHref(page - 1)} rel="prev" className={link}>
          Previous
        </Link>
      ) : (
        <span aria-disabled="true" className={off}>
          Previous
        </span>
      )}
      <p className="text-sm text-slate-600">
        Page {page} of {pages}
      </p>
      {page < pages ? (
        <Link to={pageHref(page + 1)} rel="next" className={link}>
          Next
        </Link>
      ) : (
        <span aria-disabled="true" className={off}>
          Next
        </span>
      )}
    </nav>
  );
}

export type InsightsList =
  | { status: 'pending' }
  | { status: 'error'; error: unknown; retry(): void }
  | { status: 'success'; data: ListPage<TArticleSummary>; stale?: boolean };

/**
 * /insights (public): every published article, newest first, INSIGHTS_PAGE_SIZE a page. The
 * same view for the app (data from its query cache) and for the server-rendered page (data from
 * the server), so the HTML the server sends is what the browser hydrates.
 */
export function InsightsView({ page, list }: { page: number; list: InsightsList }) {
  usePageTitle('Insights');
  const { Link } = useNavigation();
  const pages = list.status === 'success' ? Math.max(1, Math.ceil(list.data.total / INSIGHTS_PAGE_SIZE)) : 1;

  return (
    <div className="mx-auto max-w-7xl px-4 py-12 sm:px-6 lg:px-8">
      <h1 className="text-4xl font-bold tracking-tight text-slate-900">Insights</h1>
      <p className="mt-3 max-w-2xl text-lg text-slate-600">Notes from our work on automation, analytics and applied AI.</p>

      {list.status === 'pending' ? (
        <ul className={GRID} aria-busy="true" aria-label="Loading articles">
          {Array.from({ length: 6 }, (_, index) => (
            <ArticleCardSkeleton key={index} />
          ))}
        </ul>
      ) : list.status === 'error' ? (
        <LoadFailed what="The articles" error={list.error} onRetry={list.retry} className="mt-10" />
      ) : list.data.total === 0 ? (
        <p className="mt-10 text-slate-600">No articles published yet.</p>
      ) : list.data.items.length === 0 ? (
        <p className="mt-10 text-slate-600">
          There is no page {page}.{' '}
          <Link to="/insights" className="font-medium text-brand-700 underline">
            Go to the first page
          </Link>
        </p>
      ) : (
        <>
          <ul className={`${GRID} ${list.stale ? 'opacity-60' : ''}`} aria-busy={list.stale === true}>
            {list.data.items.map((article) => (
              <ArticleCard key={article.id} article={article} headingLevel={2} />
            ))}
          </ul>
          {pages > 1 && <Pagination page={page} pages={pages} />}
        </>
      )}
    </div>
  );
}
