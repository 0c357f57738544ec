import type { TArticleSummary } from '../../../../contracts/articles.ts';
import { INSIGHTS_MAX_ARTICLES } from '../../../../contracts/constants.ts';
import { ArticleCard, ArticleCardSkeleton } from '../../../components/article-card.tsx';
import { buttonClasses } from '../../../components/ui/button.tsx';
import { useNavigation } from '../../../lib/navigation.ts';
import { useJson } from '../../../lib/use-json.ts';

/** Read on every visit (no query cache: the landing page loads without it), so a newly
 * published article shows at once. */
export const INSIGHTS_URL = `/api/articles?limit=${INSIGHTS_MAX_ARTICLES}`;

const GRID = 'mt-10 grid gap-6 md:grid-cols-3';

function InsightList() {
  const articles = useJson<TArticleSummary[]>(INSIGHTS_URL);

  if (articles.status === 'pending') {
    return (
      <ul className={GRID} aria-busy="true" aria-label="Loading articles">
        {Array.from({ length: INSIGHTS_MAX_ARTICLES }, (_, index) => (
          <ArticleCardSkeleton key={index} data-testid="insight-placeholder" />
        ))}
      </ul>
    );
  }

  // SPEC: a failed load has no visible error state. We show nothing in its place rather than
  // the empty message, which would wrongly claim there are no articles (the request helper has
  // already logged the failure).
  if (articles.status === 'error') return null;

  const list = articles.data.slice(0, INSIGHTS_MAX_ARTICLES);
  if (list.length === 0) return <p className="mt-10 text-slate-600">No articles published yet.</p>;
  return (
    <ul className={GRID}>
      {list.map((article) => (
        <ArticleCard key={article.id} article={article} />
      ))}
    </ul>
  );
}

export function InsightsSection() {
  const { Link } = useNavigation();
  return (
    <section id="insights" tabIndex={-1} aria-labelledby="insights-title" className="scroll-mt-16 bg-slate-50 py-16 focus:outline-none md:py-24">
      <div className="mx-auto max-w-7xl px-4 sm:px-6 lg:px-8">
        <h2 id="insights-title" className="text-3xl font-bold tracking-tight text-slate-900">
          Latest Insights
        </h2>
        <p className="mt-3 max-w-2xl text-lg text-slate-600">Notes from our work on automation, analytics and applied AI.</p>
        <InsightList />
        <div className="mt-10">
          <Link to="/insights" className={buttonClasses({ variant: 'outline' })}>
            View All Insights
          </Link>
        </div>
      </div>
    </section>
  );
}
