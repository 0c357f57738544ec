import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useSearchParams } from 'react-router';
import type { TArticleSummary } from '../../../../contracts/articles.ts';
import { apiList } from '../../../lib/api-list.ts';
import { articlesPageUrl } from '../api/articles-api.ts';
import { InsightsView, pageFrom, type InsightsList } from './insights-view.tsx';

export { pageFrom };

/** /insights in the app: the page's articles from the query cache, the previous page kept on
 * screen (dimmed) while the next loads. */
export default function InsightsPage() {
  const [params] = useSearchParams();
  const page = pageFrom(params.get('page'));
  const url = articlesPageUrl(page);
  const query = useQuery({
    queryKey: [url],
    queryFn: ({ signal }) => apiList<TArticleSummary>(url, { signal }),
    placeholderData: keepPreviousData,
  });

  // A new page starts at the top (the declarative router does not restore scroll).
  const shownPage = useRef(page);
  useEffect(() => {
    if (shownPage.current === page) return;
    shownPage.current = page;
    window.scrollTo({ top: 0 });
  }, [page]);

  const list: InsightsList = query.isPending
    ? { status: 'pending' }
    : query.isError
      ? { status: 'error', error: query.error, retry: () => void query.refetch() }
      : { status: 'success', data: query.data, stale: query.isPlaceholderData };
  return <InsightsView page={page} list={list} />;
}
