import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { EVENTS_PATH, LIVE_EVENT_TYPES, RESET_EVENT, type TLiveEvent } from '../../../../contracts/events.ts';
import { setLive } from '../../../lib/live-status.ts';

/** After the server refused the stream (signed out, over the cap), try again this much later. */
const REOPEN_AFTER_MS = 60_000;

const startsWith = (prefix: string) => ({ predicate: (q: { queryKey: readonly unknown[] }) => String(q.queryKey[0]).startsWith(prefix) });

/** What each event makes stale: ids only travel, the views refetch what they show. */
function invalidate(queryClient: QueryClient, event: TLiveEvent): void {
  if (event.type === 'notification') {
    void queryClient.invalidateQueries(startsWith('/api/notifications'));
    return;
  }
  if (event.type === 'proposal') {
    void queryClient.invalidateQueries(startsWith('/api/agents/proposals'));
    return;
  }
  // The list (cards) and the agent itself; a run also changes that agent's Run History.
  void queryClient.invalidateQueries({ queryKey: ['/api/agents'] });
  void queryClient.invalidateQueries(startsWith(`/api/agents/${event.agentId}`));
}

/**
 * The tab's one live event stream, for a signed-in agent owner (the bell mounts it): each event
 * invalidates the React Query caches it concerns, `reset` (events the server no longer has)
 * refetches everything. EventSource reconnects by itself, sending Last-Event-ID; a stream the
 * server refused is tried again after a minute, meanwhile the views poll. Unmounting (sign-out)
 * closes it.
 */
export function useLiveEvents(): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    if (typeof EventSource === 'undefined') return;
    let source: EventSource | null = null;
    let reopen: ReturnType<typeof setTimeout> | undefined;
    const onEvent = (message: MessageEvent<string>) => {
      try {
        invalidate(queryClient, JSON.parse(message.data) as TLiveEvent);
      } catch {
        void queryClient.invalidateQueries();
      }
    };
    const open = () => {
      const s = new EventSource(EVENTS_PATH);
      source = s;
      s.onopen = () => setLive(true);
      s.onerror = () => {
        setLive(false);
        if (s.readyState !== EventSource.CLOSED) return;
        reopen = setTimeout(open, REOPEN_AFTER_MS);
      };
      for (const type of LIVE_EVENT_TYPES) s.addEventListener(type, onEvent);
      s.addEventListener(RESET_EVENT, () => void queryClient.invalidateQueries());
    };
    open();
    return () => {
      clearTimeout(reopen);
      source?.close();
      setLive(false);
    };
  }, [queryClient]);
}
