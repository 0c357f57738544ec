import { useQuery } from '@tanstack/react-query';
import { Eye, LinkIcon } from 'lucide-react';
import { Link, useParams } from 'react-router';
import type { TPreviewArticle } from '../../../../contracts/articles.ts';
import { PREVIEW_GONE } from '../../../../contracts/article-preview.ts';
import { DATE_TIME } from '../../../../contracts/time-format.ts';
import { ArticleMarkdownBody } from '../../../components/markdown.tsx';
import { NotFoundScreen } from '../../../components/not-found.tsx';
import { usePageTitle } from '../../../components/ui/use-page-title.ts';
import { ApiError } from '../../../lib/api-client.ts';
import { useTimes } from '../../../lib/times.ts';
import { previewKey } from '../api/articles-api.ts';
import { ArticleView, type ShownArticle } from './article-view.tsx';

/** What the banner says of an article that is not on the site yet. */
function PreviewBanner({ article }: { article: TPreviewArticle }) {
  const times = useTimes();
  const when = article.status === 'scheduled' && article.publishAt ? `It is scheduled to appear on the website on ${times.format(article.publishAt, DATE_TIME, '')}.` : null;
  return (
    <aside aria-label="Preview" className="border-b border-amber-200 bg-amber-50">
      <p className="mx-auto flex max-w-3xl items-start gap-2 px-4 py-3 text-sm text-amber-900 sm:px-6 lg:px-8">
        <Eye aria-hidden="true" className="mt-0.5 size-4 shrink-0" />
        <span>
          <strong>Preview</strong>: this article is not published yet, and this page is only for the people the link was shared with. {when}
        </span>
      </p>
    </aside>
  );
}

/**
 * /preview/:token (docs/decisions/0098): a draft or scheduled article for whoever has the link,
 * signed in or not, under a "Preview" banner; kept out of search engines (the server's
 * X-Robots-Tag, and the meta tag here). A link that expired or was revoked says so plainly.
 */
export default function PreviewPage() {
  const { token = '' } = useParams();
  const preview = useQuery<TPreviewArticle>({ queryKey: previewKey(token), retry: false });
  const gone = preview.isError && preview.error instanceof ApiError && (preview.error.status === 404 || preview.error.status === 400);
  usePageTitle(gone ? 'Preview link not working' : preview.data ? `Preview: ${preview.data.title}` : 'Preview');

  const robots = <meta name="robots" content="noindex, nofollow" />;
  if (gone) {
    return (
      <NotFoundScreen title="Preview link not working" icon={<LinkIcon aria-hidden="true" className="size-8 text-brand-700" />}>
        {robots}
        <p className="mt-4 text-sm text-slate-600">{PREVIEW_GONE}</p>
        <Link to="/insights" className="mt-6 inline-flex items-center text-sm font-medium text-brand-700 hover:underline">
          See the published insights
        </Link>
      </NotFoundScreen>
    );
  }
  const shown: ShownArticle = preview.isPending
    ? { status: 'pending' }
    : preview.isError
      ? { status: 'error', error: preview.error, retry: () => void preview.refetch() }
      : { status: 'success', article: preview.data };
  return (
    <>
      {robots}
      {preview.data && <PreviewBanner article={preview.data} />}
      <ArticleView shown={shown} Body={ArticleMarkdownBody} />
    </>
  );
}
