import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import type { TShareLink } from '../../../../contracts/share-links.ts';
import { Button } from '../../../components/ui/button.tsx';
import { Dialog } from '../../../components/ui/dialog.tsx';
import { errorMessage } from '../../../lib/api-client.ts';
import { notify } from '../../../lib/notify.ts';
import { createShare, listShares, revokeShare, SHARES_URL } from '../api/chat-api.ts';
import { CopyButton } from './copy-button.tsx';

type Props = {
  open: boolean;
  onOpenChange(open: boolean): void;
  /** The open chat's id, and whether it has messages to share. */
  chatId: string;
  canShare: boolean;
  /** Saves the open chat on the server first (a link shares what the server holds); false when it could not. */
  save(): Promise<boolean>;
};

/**
 * Share (issue 32): makes a read-only link to the open chat as it is now, with or without its
 * images, and lists the user's links (every chat's) with Copy and Revoke.
 */
export function ShareDialog({ open, onOpenChange, chatId, canShare, save }: Props) {
  const queryClient = useQueryClient();
  const ids = { images: useId(), made: useId(), list: useId() };
  const [includeImages, setIncludeImages] = useState(false);
  const [made, setMade] = useState<TShareLink | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const links = useQuery({ queryKey: [SHARES_URL], queryFn: listShares, enabled: open });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: [SHARES_URL] });

  const create = useMutation({
    mutationFn: async () => {
      if (!(await save())) throw new Error('The chat could not be saved on the server, so it cannot be shared yet. Please try again.');
      return createShare(chatId, { includeImages });
    },
    onSuccess: (link) => {
      setProblem(null);
      setMade(link);
      refresh();
    },
    onError: (err) => setProblem(errorMessage(err)),
  });
  const revoke = useMutation({
    mutationFn: (link: TShareLink) => revokeShare(link.id),
    onSuccess: (_void, link) => {
      if (made?.id === link.id) setMade(null);
      refresh();
      notify.success('Link revoked', 'Anyone who opens it now finds nothing.');
    },
    onError: (err) => notify.error('Could not revoke the link', errorMessage(err)),
  });

  const close = (next: boolean) => {
    if (!next) {
      setMade(null);
      setProblem(null);
    }
    onOpenChange(next);
  };
  const list = links.data?.links ?? [];

  return (
    <Dialog open={open} onOpenChange={close} title="Share chat" description="Anyone with the link can read this chat as it is now, without signing in. Later messages are not added." size="lg">
      <div className="mt-4 space-y-4">
        <label htmlFor={ids.images} className="flex items-center gap-2 text-sm text-slate-800">
          <input id={ids.images} type="checkbox" className="size-4" checked={includeImages} onChange={(e) => setIncludeImages(e.target.checked)} />
          Include images
        </label>
        <Button type="button" onClick={() => create.mutate()} disabled={!canShare || create.isPending}>
          {create.isPending ? 'Creating link…' : 'Create link'}
        </Button>
        {!canShare && <p className="text-sm text-slate-600">This chat has no messages to share yet.</p>}
        {problem && (
          <p role="alert" className="text-sm text-red-700">
            {problem}
          </p>
        )}
        {made && (
          <div>
            <label htmlFor={ids.made} className="block text-sm font-medium text-slate-800">
              Link to this chat
            </label>
            <div className="mt-1 flex items-center gap-2">
              <input id={ids.made} readOnly value={made.url} className="min-w-0 flex-1 rounded-md border border-slate-300 px-3 py-2 text-sm" onFocus={(e) => e.target.select()} />
              <CopyButton text={made.url} label="Copy link" />
            </div>
          </div>
        )}
      </div>
      <section aria-labelledby={ids.list} className="mt-6">
        <h3 id={ids.list} className="text-sm font-semibold text-slate-900">
          Shared links
        </h3>
        {links.isPending ? (
          <p className="mt-2 text-sm text-slate-600">Loading your links…</p>
        ) : links.isError ? (
          <p className="mt-2 text-sm text-red-700">Your links could not be loaded. {errorMessage(links.error)}</p>
        ) : list.length === 0 ? (
          <p className="mt-2 text-sm text-slate-600">You have not shared any chat.</p>
        ) : (
          <ul className="mt-2 divide-y divide-slate-200">
            {list.map((link) => (
              <li key={link.id} className="flex flex-wrap items-center gap-2 py-2">
                <div className="min-w-0 flex-1">
                  <p className="truncate text-sm font-medium text-slate-900">{link.title || 'Untitled chat'}</p>
                  <p className="text-xs text-slate-600">
                    {link.messages} {link.messages === 1 ? 'message' : 'messages'} · {link.views} {link.views === 1 ? 'view' : 'views'}
                    {link.includeImages ? ' · with images' : ''} · shared {new Date(link.createdAt).toLocaleDateString()}
                  </p>
                </div>
                <CopyButton text={link.url} label={`Copy link to ${link.title || 'Untitled chat'}`} />
                <Button type="button" variant="outline" size="sm" onClick={() => revoke.mutate(link)} disabled={revoke.isPending} aria-label={`Revoke link to ${link.title || 'Untitled chat'}`}>
                  Revoke
                </Button>
              </li>
            ))}
          </ul>
        )}
      </section>
    </Dialog>
  );
}
