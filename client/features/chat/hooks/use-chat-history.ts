import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { TChatProviderInfo } from '../../../../contracts/chat.ts';
import { useHiddenByUndo } from '../../../lib/undoable-delete.ts';
import { conversationsKey, listConversations } from '../api/chat-api.ts';
import type { ChatHistoryEntry } from '../lib/chat-storage.ts';
import { chatDeleteKey } from './use-chat-session.ts';

/** Typing pauses this long before a search is sent. */
const SEARCH_DELAY_MS = 250;

export type ChatHistoryList = {
  entries: ChatHistoryEntry[];
  /** The server could not be reached: these are the chats saved in this browser. */
  offline: boolean;
  /** The first page is on its way. */
  loading: boolean;
  /** A search is applied (the list holds its matches). */
  searching: boolean;
  hasMore: boolean;
  loadingMore: boolean;
  loadMore(): void;
  /** The newest chat with an answer being written now (docs/decisions/0056), once the server's list is here. */
  answering: string | null;
  /** The server's list has come (or failed). */
  settled: boolean;
}

/**
 * The sidebar's chats (docs/decisions/0046): the user's history on the server for this
 * assistant, newest first, a page at a time, searched on the server (titles and messages);
 * the chats this browser has not saved there yet come first. Without the server it is this
 * browser's saved chats (SPEC's history), searched by title.
 */
export function useChatHistory(info: TChatProviderInfo, local: ChatHistoryEntry[], search: string): ChatHistoryList {
  const [q, setQ] = useState(search.trim());
  useEffect(() => {
    const timer = setTimeout(() => setQ(search.trim()), SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [search]);

  const query = useInfiniteQuery({
    queryKey: conversationsKey(info.id, q),
    queryFn: ({ pageParam, signal }) => listConversations({ provider: info.id, q, before: pageParam }, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.next,
    // Another device may have added chats since this screen was last open.
    staleTime: 0,
    // The list stays while the next search is on its way.
    placeholderData: keepPreviousData,
  });

  // A chat deleted here is left out at once, while it waits for Undo (docs/decisions/0070).
  const deleted = useHiddenByUndo();
  const listed = (entry: ChatHistoryEntry) => !deleted.has(chatDeleteKey(entry.id));
  const matches = (entry: ChatHistoryEntry) => listed(entry) && (!q || entry.title.toLowerCase().includes(q.toLowerCase()));
  if (!query.data) {
    // Until the server answers (or when it cannot), this browser's copy.
    return {
      entries: local.filter(matches),
      offline: query.isError,
      loading: query.isPending,
      searching: q !== '',
      hasMore: false,
      loadingMore: false,
      loadMore: () => {},
      answering: null,
      settled: query.isError,
    };
  }
  const server = query.data.pages
    .flatMap((page) =>
      page.conversations.map(
        (c): ChatHistoryEntry => ({ id: c.id, title: c.title, timestamp: c.updatedAt, model: c.model, aiService: info.storageService, pinned: c.pinned ?? false, projectId: c.projectId ?? null }),
      ),
    )
    .filter(listed);
  const onServer = new Set(server.map((e) => e.id));
  const notSaved = local.filter((e) => e.unsynced && !onServer.has(e.id) && matches(e));
  return {
    entries: [...notSaved, ...server],
    offline: false,
    loading: false,
    searching: q !== '',
    hasMore: query.hasNextPage,
    loadingMore: query.isFetchingNextPage,
    loadMore: () => void query.fetchNextPage(),
    answering: q ? null : (query.data.pages[0]?.conversations.find((c) => c.answering && !deleted.has(chatDeleteKey(c.id)))?.id ?? null),
    settled: true,
  };
}
