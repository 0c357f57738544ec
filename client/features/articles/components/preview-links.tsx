import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import type { TArticle, TCreatedPreviewLink, TPreviewLink, TPreviewLinkList } from '../../../../contracts/articles.ts';
import { DATE_TIME } from '../../../../contracts/time-format.ts';
import { Button } from '../../../components/ui/button.tsx';
import { LoadFailed } from '../../../components/ui/load-failed.tsx';
import { Spinner } from '../../../components/ui/spinner.tsx';
import { apiRequest, errorMessage } from '../../../lib/api-client.ts';
import { notify } from '../../../lib/notify.ts';
import { useTimes } from '../../../lib/times.ts';
import { previewLinksKey } from '../api/articles-api.ts';

/**
 * Issue 34 item 2 (docs/decisions/0098): under the form of a draft or scheduled article, links
 * that show it to someone without an account. A new link's address is shown once (only its hash
 * is kept), to copy; the working ones are listed with their expiry, each revocable at once.
 */
export function PreviewLinks({ article }: { article: TArticle }) {
  const times = useTimes();
  const queryClient = useQueryClient();
  const linkFieldId = useId();
  const shareable = article.status !== 'published';
  const list = useQuery<TPreviewLinkList>({ queryKey: previewLinksKey(article.id), enabled: shareable });
  const [created, setCreated] = useState<TCreatedPreviewLink | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: previewLinksKey(article.id) });

  const create = useMutation({
    mutationFn: () => apiRequest<TCreatedPreviewLink>('POST', `/api/admin/articles/${encodeURIComponent(article.id)}/preview-links`, {}),
    onSuccess: (link) => {
      setCreated(link);
      void refresh();
    },
    onError: (err) => notify.error('Error', errorMessage(err, 'Failed to create the preview link')),
  });
  const revoke = useMutation({
    mutationFn: (link: TPreviewLink) => apiRequest<void>('DELETE', `/api/admin/articles/${encodeURIComponent(article.id)}/preview-links/${encodeURIComponent(link.id)}`),
    onSuccess: (_done, link) => {
      if (created?.id === link.id) setCreated(null);
      notify.success('Success!', 'Preview link revoked');
      void refresh();
    },
    onError: (err) => notify.error('Error', errorMessage(err, 'Failed to revoke the preview link')),
  });
  const copy = async (url: string) => {
    try {
      await navigator.clipboard.writeText(url);
      notify.success('Success!', 'Preview link copied');
    } catch {
      notify.error('Error', 'Could not copy: select the link and copy it yourself');
    }
  };

  return (
    <section aria-labelledby="preview-links-heading" className="mt-10 border-t border-slate-200 pt-8">
      <h2 id="preview-links-heading" className="text-lg font-semibold text-slate-900">
        Share a preview link
      </h2>
      {!shareable ? (
        <p className="mt-1 text-sm text-slate-600">This article is published: share its address instead.</p>
      ) : (
        <>
          <p className="mt-1 text-sm text-slate-600">
            Anyone with a link can read this {article.status === 'scheduled' ? 'scheduled article' : 'draft'} as it is saved, without signing in, until the link expires or you revoke it.
            Search engines do not index it.
          </p>
          <Button className="mt-4" size="sm" onClick={() => create.mutate()} disabled={create.isPending} aria-busy={create.isPending}>
            {create.isPending ? 'Creating...' : 'Create a preview link'}
          </Button>
          {created && (
            <div className="mt-4 rounded-lg border border-brand-200 bg-brand-50 p-4">
              <label htmlFor={linkFieldId} className="text-sm font-medium text-slate-900">
                New preview link (shown this once)
              </label>
              <div className="mt-1.5 flex flex-col gap-2 sm:flex-row">
                <input
                  id={linkFieldId}
                  readOnly
                  value={created.url}
                  onFocus={(event) => event.currentTarget.select()}
                  className="block w-full min-w-0 rounded-md border border-slate-300 bg-white px-3 py-2 text-sm text-slate-900"
                />
                <Button size="sm" variant="outline" onClick={() => void copy(created.url)}>
                  Copy link
                </Button>
              </div>
            </div>
          )}
          {list.isPending ? (
            <Spinner label="Loading preview links" className="mt-4" />
          ) : list.isError ? (
            <LoadFailed what="The preview links" error={list.error} onRetry={() => void list.refetch()} className="mt-4" />
          ) : list.data.links.length === 0 ? (
            <p className="mt-4 text-sm text-slate-600">No preview link works now.</p>
          ) : (
            <ul aria-label="Working preview links" className="mt-4 divide-y divide-slate-200 rounded-lg border border-slate-200">
              {list.data.links.map((link) => {
                const made = times.format(link.createdAt, DATE_TIME, '');
                return (
                  <li key={link.id} className="flex flex-col gap-2 px-4 py-3 text-sm sm:flex-row sm:items-center sm:justify-between">
                    <p className="min-w-0 break-words text-slate-600">
                      Made <time dateTime={link.createdAt}>{made}</time> by {link.createdBy ? link.createdBy.name : 'an account that is gone'} · expires{' '}
                      <time dateTime={link.expiresAt}>{times.format(link.expiresAt, DATE_TIME, '')}</time>
                    </p>
                    <Button
                      size="sm"
                      variant="outline"
                      disabled={revoke.isPending && revoke.variables.id === link.id}
                      onClick={() => revoke.mutate(link)}
                      aria-label={`Revoke the preview link made ${made}`}
                    >
                      Revoke
                    </Button>
                  </li>
                );
              })}
            </ul>
          )}
        </>
      )}
    </section>
  );
}
