import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ARTICLE_REVISIONS_KEPT, type TArticle, type TArticleRevision, type TArticleRevisionFields, type TArticleRevisionList, type TArticleRevisionSummary } from '../../../../contracts/articles.ts';
import { DATE_TIME } from '../../../../contracts/time-format.ts';
import { Button } from '../../../components/ui/button.tsx';
import { Dialog, DialogClose } from '../../../components/ui/dialog.tsx';
import { LoadFailed } from '../../../components/ui/load-failed.tsx';
import { Spinner } from '../../../components/ui/spinner.tsx';
import { apiRequest, errorMessage } from '../../../lib/api-client.ts';
import { notify } from '../../../lib/notify.ts';
import { useTimes } from '../../../lib/times.ts';
import { articleRevisionKey, articleRevisionsKey, invalidateArticles } from '../api/articles-api.ts';
import { diffLines } from '../lib/line-diff.ts';

/** The fields a comparison shows, in the form's order, with the form's labels: the text ones,
 * line by line (the cover, docs/decisions/0099, is restored with them but not compared). */
type ComparedField = Exclude<keyof TArticleRevisionFields, 'coverImageId' | 'coverAlt'>;
const COMPARED: Array<[ComparedField, string]> = [
  ['title', 'Title'],
  ['category', 'Category'],
  ['readTime', 'Read Time'],
  ['excerpt', 'Excerpt'],
  ['content', 'Content'],
  ['tags', 'Tags'],
];

/** A field's text to compare: the further tags one a line (decision 0100), the others as they are. */
const savedText = (article: TArticle, field: ComparedField): string =>
  field === 'tags' ? article.tags.slice(1).map((tag) => tag.name).join('\n') : article[field];
/** The revision's; null for tags in a revision saved before tags existed (restoring it leaves them). */
const revisionText = (fields: TArticleRevisionFields, field: ComparedField): string | null =>
  field === 'tags' ? (fields.tags?.join('\n') ?? null) : fields[field];

/**
 * Issue 34 item 6: the article's revisions under its form (each save that changed the text, the
 * newest 20), each with its time and who saved it; one can be compared with the saved article
 * and restored. The newest is the saved text itself.
 */
export function ArticleRevisions({ article }: { article: TArticle }) {
  const times = useTimes();
  const list = useQuery<TArticleRevisionList>({ queryKey: articleRevisionsKey(article.id) });
  const [comparing, setComparing] = useState<TArticleRevisionSummary | null>(null);

  return (
    <section aria-labelledby="revisions-heading" className="mt-10 border-t border-slate-200 pt-8">
      <h2 id="revisions-heading" className="text-lg font-semibold text-slate-900">
        Revisions
      </h2>
      <p className="mt-1 text-sm text-slate-600">Each save that changed the text, newest first; the last {ARTICLE_REVISIONS_KEPT} are kept.</p>
      {list.isPending ? (
        <Spinner label="Loading revisions" className="mt-4" />
      ) : list.isError ? (
        <LoadFailed what="The revisions" error={list.error} onRetry={() => void list.refetch()} className="mt-4" />
      ) : (
        <ol aria-label="Revisions of this article" className="mt-4 divide-y divide-slate-200 rounded-lg border border-slate-200">
          {list.data.revisions.map((revision, index) => (
            <li key={revision.id} className="flex flex-col gap-2 px-4 py-3 sm:flex-row sm:items-center sm:justify-between">
              <div className="min-w-0 text-sm">
                <p className="font-medium text-slate-900">
                  Revision {revision.number}
                  {index === 0 && <span className="text-slate-600"> (the saved text)</span>}
                </p>
                <p className="break-words text-slate-600">
                  <time dateTime={revision.createdAt}>{times.format(revision.createdAt, DATE_TIME, '')}</time> · {revision.author ? revision.author.name : 'an account that is gone'}
                </p>
              </div>
              {index > 0 && (
                <Button size="sm" variant="outline" onClick={() => setComparing(revision)} aria-label={`Compare revision ${revision.number} with the saved text`}>
                  Compare
                </Button>
              )}
            </li>
          ))}
        </ol>
      )}
      <CompareDialog article={article} revision={comparing} onClose={() => setComparing(null)} />
    </section>
  );
}

function CompareDialog({ article, revision, onClose }: { article: TArticle; revision: TArticleRevisionSummary | null; onClose(): void }) {
  const queryClient = useQueryClient();
  const detail = useQuery<TArticleRevision>({ queryKey: articleRevisionKey(article.id, revision?.id ?? ''), enabled: revision !== null });
  const restore = useMutation({
    mutationFn: (shown: TArticleRevisionSummary) => apiRequest<TArticle>('POST', `/api/articles/${encodeURIComponent(article.id)}/revisions/${encodeURIComponent(shown.id)}/restore`, {}),
    onSuccess: (_restored, shown) => {
      notify.success('Success!', `Revision ${shown.number} restored`);
      onClose();
    },
    onError: (err) => notify.error('Error', errorMessage(err, 'Failed to restore the revision')),
    onSettled: () => invalidateArticles(queryClient),
  });
  const changed = detail.data ? COMPARED.filter(([field]) => revisionText(detail.data.fields, field) !== null && revisionText(detail.data.fields, field) !== savedText(article, field)) : [];

  return (
    <Dialog
      open={revision !== null}
      onOpenChange={(open) => !open && onClose()}
      size="xl"
      title={`Revision ${revision?.number ?? ''} and the saved text`}
      description="What restoring it would change: lines marked Removed are in the saved text only, lines marked Added in the revision only. Restoring keeps the saved text as a revision of its own, and leaves the article published or not as it is."
      footer={
        <>
          <DialogClose asChild>
            <Button variant="outline">Close</Button>
          </DialogClose>
          <Button disabled={!detail.data || restore.isPending} aria-busy={restore.isPending} onClick={() => revision && restore.mutate(revision)}>
            {restore.isPending ? 'Restoring…' : `Restore revision ${revision?.number ?? ''}`}
          </Button>
        </>
      }
    >
      {detail.isPending ? (
        <Spinner label="Loading the revision" className="my-6" />
      ) : detail.isError ? (
        <LoadFailed what="The revision" error={detail.error} onRetry={() => void detail.refetch()} className="my-4" />
      ) : changed.length === 0 ? (
        <p className="my-4 text-sm text-slate-700">This revision’s text is the same as the saved text.</p>
      ) : (
        <div className="my-4 max-h-[60dvh] space-y-5 overflow-y-auto">
          {changed.map(([field, label]) => (
            <FieldDiff key={field} label={label} saved={savedText(article, field)} revision={revisionText(detail.data.fields, field) ?? ''} />
          ))}
        </div>
      )}
    </Dialog>
  );
}

/** One field's lines, from the saved text to the revision's: what a restore would do to it. */
function FieldDiff({ label, saved, revision }: { label: string; saved: string; revision: string }) {
  return (
    <section aria-label={label}>
      <h3 className="text-sm font-semibold text-slate-900">{label}</h3>
      <div className="mt-1 overflow-x-auto rounded-md border border-slate-200 font-mono text-xs leading-5">
        {diffLines(saved, revision).map((line, index) =>
          line.kind === 'same' ? (
            <div key={index} className="whitespace-pre-wrap break-words px-2 text-slate-700">
              {line.text || '\u00a0'}
            </div>
          ) : line.kind === 'removed' ? (
            <del key={index} className="block whitespace-pre-wrap break-words bg-red-50 px-2 text-red-900 no-underline">
              <span className="sr-only">Removed: </span>
              <span aria-hidden="true">− </span>
              {line.text}
            </del>
          ) : (
            <ins key={index} className="block whitespace-pre-wrap break-words bg-green-50 px-2 text-green-900 no-underline">
              <span className="sr-only">Added: </span>
              <span aria-hidden="true">+ </span>
              {line.text}
            </ins>
          ),
        )}
      </div>
    </section>
  );
}
