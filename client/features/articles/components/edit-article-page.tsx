import { useQuery } from '@tanstack/react-query';
import { useParams } from 'react-router';
import type { TArticle } from '../../../../contracts/articles.ts';
import { NotFoundPage } from '../../../components/not-found.tsx';
import { Spinner } from '../../../components/ui/spinner.tsx';
import { usePageTitle } from '../../../components/ui/use-page-title.ts';
import { LoadFailed } from '../../../components/ui/load-failed.tsx';
import { ApiError } from '../../../lib/api-client.ts';
import { ArticleForm, ArticleFormScreen } from './article-form.tsx';
import { ArticleRevisions } from './article-revisions.tsx';
import { PreviewLinks } from './preview-links.tsx';
import { adminArticleKey } from '../api/articles-api.ts';

/** /admin/articles/:id/edit (admin): the article form, prefilled. */
export default function EditArticlePage() {
  usePageTitle('Edit Article');
  const { id = '' } = useParams();
  const article = useQuery<TArticle>({ queryKey: adminArticleKey(id) });

  if (article.isError && article.error instanceof ApiError && (article.error.status === 404 || article.error.status === 400)) {
    return <NotFoundPage />;
  }
  return (
    <ArticleFormScreen title="Edit Article" intro="Changes show on the website as soon as you save a published article.">
      {article.isPending ? (
        <div className="flex justify-center py-10">
          <Spinner label="Loading article" />
        </div>
      ) : article.isError ? (
        <LoadFailed what="The article" error={article.error} onRetry={() => void article.refetch()} className="" />
      ) : (
        <>
          {/* A restored revision is a new saved text: the form starts again from it. */}
          <ArticleForm key={`${article.data.id}:${article.data.updatedAt}`} article={article.data} />
          <PreviewLinks article={article.data} />
          <ArticleRevisions article={article.data} />
        </>
      )}
    </ArticleFormScreen>
  );
}
