import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import type { TArticle } from '../../../../contracts/articles.ts';
import { articlePath } from '../../../components/article-card.tsx';
import { Badge } from '../../../components/ui/badge.tsx';
import { Button, buttonClasses } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { Dialog, DialogClose } from '../../../components/ui/dialog.tsx';
import { Spinner } from '../../../components/ui/spinner.tsx';
import { usePageTitle } from '../../../components/ui/use-page-title.ts';
import { LoadFailed } from '../../../components/ui/load-failed.tsx';
import { apiRequest, errorMessage } from '../../../lib/api-client.ts';
import { notify } from '../../../lib/notify.ts';
import { useLocalDate } from '../../../lib/time-zone.ts';
import { useTimes } from '../../../lib/times.ts';
import { DATE_TIME } from '../../../../contracts/time-format.ts';
import { ADMIN_ARTICLES_KEY, invalidateArticles } from '../api/articles-api.ts';

const HEAD = 'px-4 py-3 font-semibold';

/** /admin/articles (admin): every article, drafts included, newest first; edit, publish or
 * unpublish, delete (after confirming). */
export default function AdminArticlesPage() {
  usePageTitle('Articles');
  const queryClient = useQueryClient();
  const articles = useQuery<TArticle[]>({ queryKey: ADMIN_ARTICLES_KEY });
  const [toDelete, setToDelete] = useState<TArticle | null>(null);

  const setPublished = useMutation({
    mutationFn: ({ article, published }: { article: TArticle; published: boolean }) =>
      apiRequest<TArticle>('PATCH', `/api/articles/${encodeURIComponent(article.id)}`, { published }),
    onSuccess: (updated) => notify.success('Success!', updated.published ? 'Article published' : 'Article unpublished'),
    onError: (err) => notify.error('Error', errorMessage(err, 'Failed to update article', { serverWords: false })),
    onSettled: () => invalidateArticles(queryClient),
  });
  const remove = useMutation({
    mutationFn: (article: TArticle) => apiRequest<void>('DELETE', `/api/articles/${encodeURIComponent(article.id)}`),
    onSuccess: () => {
      setToDelete(null);
      notify.success('Success!', 'Article deleted');
    },
    onError: (err) => notify.error('Error', errorMessage(err, 'Failed to delete article', { serverWords: false })),
    onSettled: () => invalidateArticles(queryClient),
  });

  const actions = (article: TArticle, className?: string) => (
    <Actions
      article={article}
      className={className}
      toggling={setPublished.isPending && setPublished.variables.article.id === article.id}
      onToggle={() => setPublished.mutate({ article, published: !article.published })}
      onDelete={() => setToDelete(article)}
    />
  );

  return (
    <div className="mx-auto max-w-6xl px-4 py-10 sm:px-6 lg:px-8">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-3xl font-bold text-slate-900">Articles</h1>
          <p className="mt-2 text-slate-600">Every article, drafts included. Only published articles appear on the website.</p>
        </div>
        <Link to="/create-article" className={buttonClasses()}>
          Create Article
        </Link>
      </div>

      {articles.isPending ? (
        <div className="mt-10 flex justify-center">
          <Spinner label="Loading articles" />
        </div>
      ) : articles.isError ? (
        <LoadFailed what="The articles" error={articles.error} onRetry={() => void articles.refetch()} />
      ) : articles.data.length === 0 ? (
        <Card className="mt-8 p-10 text-center">
          <p className="text-slate-700">No articles yet.</p>
          <p className="mt-1 text-sm text-slate-600">Create one; it stays a draft until you publish it.</p>
        </Card>
      ) : (
        <Card className="mt-8 overflow-x-auto">
          {/* A phone gets one block per article: title, then what it is, then its actions. */}
          <ul aria-label="All articles" className="divide-y divide-slate-200 sm:hidden">
            {articles.data.map((article) => (
              <li key={article.id} className="p-4">
                <Link to={articlePath(article.slug)} className="font-medium break-words text-slate-900 hover:text-brand-700 hover:underline">
                  {article.title}
                </Link>
                <p className="mt-1 flex flex-wrap items-center gap-x-2 gap-y-1 text-sm text-slate-700">
                  <span className="min-w-0 wrap-anywhere">{article.category}</span>
                  <span aria-hidden="true">·</span>
                  <Status article={article} />
                  <span aria-hidden="true">·</span>
                  <Created article={article} />
                </p>
                {actions(article, 'mt-3')}
              </li>
            ))}
          </ul>
          <table className="hidden w-full text-left text-sm sm:table">
            <caption className="sr-only">All articles</caption>
            <thead className="border-b border-slate-200 bg-slate-50 text-slate-700">
              <tr>
                <th scope="col" className={HEAD}>
                  Title
                </th>
                <th scope="col" className={HEAD}>
                  Category
                </th>
                <th scope="col" className={HEAD}>
                  Status
                </th>
                <th scope="col" className={HEAD}>
                  Created
                </th>
                <th scope="col" className={HEAD}>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-200">
              {articles.data.map((article) => (
                <tr key={article.id}>
                  <th scope="row" className="max-w-xs px-4 py-3 font-medium wrap-anywhere text-slate-900">
                    <Link to={articlePath(article.slug)} className="hover:text-brand-700 hover:underline">
                      {article.title}
                    </Link>
                  </th>
                  <td className="px-4 py-3 wrap-anywhere text-slate-700">{article.category}</td>
                  <td className="px-4 py-3">
                    <Status article={article} />
                  </td>
                  <td className="px-4 py-3 whitespace-nowrap text-slate-700">
                    <Created article={article} />
                  </td>
                  <td className="px-4 py-3">
                    {actions(article, 'justify-end')}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Card>
      )}

      <Dialog
        open={toDelete !== null}
        onOpenChange={(open) => {
          if (!open && !remove.isPending) setToDelete(null);
        }}
        title="Delete this article?"
        description={toDelete ? `“${toDelete.title}” will be deleted permanently. This cannot be undone.` : ''}
        footer={
          <>
            <DialogClose asChild>
              <Button variant="outline" disabled={remove.isPending}>
                Cancel
              </Button>
            </DialogClose>
            <Button
              className="bg-red-600 hover:bg-red-700"
              disabled={remove.isPending}
              onClick={() => toDelete && remove.mutate(toDelete)}
            >
              {remove.isPending ? 'Deleting...' : 'Delete'}
            </Button>
          </>
        }
      />
    </div>
  );
}

function Status({ article }: { article: TArticle }) {
  const times = useTimes();
  if (article.status === 'published') return <Badge variant="success">Published</Badge>;
  if (article.status === 'scheduled' && article.publishAt) {
    // When it goes public, in the zone every time is shown in (docs/decisions/0098).
    return <Badge variant="brand">Scheduled for {times.format(article.publishAt, DATE_TIME, '')}</Badge>;
  }
  return <Badge variant="warning">Draft</Badge>;
}

function Created({ article }: { article: TArticle }) {
  // The article's date as every page shows it (docs/decisions/0066).
  return <time dateTime={article.createdAt}>{useLocalDate(article.createdAt)}</time>;
}

/** Edit, publish or unpublish, delete: the same in the phone's list and in the table. */
function Actions(props: { article: TArticle; className?: string; toggling: boolean; onToggle: () => void; onDelete: () => void }) {
  const { article, className = '', toggling, onToggle, onDelete } = props;
  return (
    <div className={`flex flex-wrap gap-2 ${className}`}>
      <Link
        to={`/admin/articles/${encodeURIComponent(article.id)}/edit`}
        aria-label={`Edit ${article.title}`}
        className={buttonClasses({ variant: 'outline', size: 'sm' })}
      >
        Edit
      </Link>
      <Button variant="secondary" size="sm" disabled={toggling} aria-label={`${article.published ? 'Unpublish' : 'Publish'} ${article.title}`} onClick={onToggle}>
        {article.published ? 'Unpublish' : 'Publish'}
      </Button>
      <Button variant="ghost" size="sm" className="text-red-700 hover:bg-red-50 hover:text-red-800" aria-label={`Delete ${article.title}`} onClick={onDelete}>
        Delete
      </Button>
    </div>
  );
}
