import { useQuery } from '@tanstack/react-query';
import { useParams, useSearchParams } from 'react-router';
import type { TArticleTagPage } from '../../../../contracts/articles.ts';
import { ApiError } from '../../../lib/api-client.ts';
import { tagPageUrl } from '../api/articles-api.ts';
import { FileQuestion } from 'lucide-react';
import { Link } from 'react-router';
import { NotFoundScreen } from '../../../components/not-found.tsx';
import { pageFrom } from './insights-view.tsx';
import { TagView, type TagList } from './tag-view.tsx';

/** /insights/tag/:slug in the app (decision 0100): a page of the tag's published articles from
 * the query cache. An unknown tag, or one without a published article, says so. Visitors who
 * open the address get the page the server rendered (client/app/site-root.tsx). */
export default function TagPage() {
  const { slug = '' } = useParams();
  const [params] = useSearchParams();
  const page = pageFrom(params.get('page'));
  const query = useQuery<TArticleTagPage>({ queryKey: [tagPageUrl(slug, page)] });
  if (query.isError && query.error instanceof ApiError && query.error.status === 404) {
    return (
      <NotFoundScreen title="Tag not found" icon={<FileQuestion aria-hidden="true" className="size-8 text-brand-700" />}>
        <p className="mt-4 text-sm text-slate-600">No published article has this tag.</p>
        <Link to="/insights" className="mt-6 inline-flex items-center text-sm font-medium text-brand-700 hover:underline">
          See all insights
        </Link>
      </NotFoundScreen>
    );
  }
  const list: TagList = query.isPending
    ? { status: 'pending' }
    : query.isError
      ? { status: 'error', error: query.error, retry: () => void query.refetch() }
      : { status: 'success', data: query.data };
  return <TagView slug={slug} page={page} list={list} />;
}
