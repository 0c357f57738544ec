import { useQueryClient, type InfiniteData } from '@tanstack/react-query';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { branchOf, newestLeaf, type TConversationList } from '../../../../contracts/chat-history.ts';
import type { TChatModel, TChatProviderInfo } from '../../../../contracts/chat.ts';
import { ApiError } from '../../../lib/api-client.ts';
import { useAuth } from '../../../lib/auth-context.ts';
import { notify } from '../../../lib/notify.ts';
import { deleteWithUndo } from '../../../lib/undoable-delete.ts';
import { CONVERSATIONS_URL, deleteConversation, getConversation, saveConversation, updateConversation } from '../api/chat-api.ts';
import {
  DEFAULT_SETTINGS,
  settingsOf,
  SAVE_DELAY_MS,
  deleteSession,
  loadHistory,
  loadSession,
  newChatId,
  saveSession,
  sessionTitle,
  updateSessions,
  type ChatHistoryEntry,
  type ChatMessage,
  type ChatSession as StoredSession,
  type ChatSettings,
} from '../lib/chat-storage.ts';
import { mergeSessions, normalizeMessages, saveFields, saveRequests, sessionFromServer } from '../lib/chat-sync.ts';
import { LEFT_NOTE } from '../lib/chat-text.ts';
import type { LiveAnswer } from '../lib/live-answer.ts';

/** Every message of the open chat (every version) and the last one of the branch in view. */
export type ChatTree = { messages: ChatMessage[]; leafId: string | null };

/** One message of the branch in view, with its place among its turn's versions. */
export type BranchItem = { message: ChatMessage; index: number; count: number };

export type ChatSession = {
  chatId: string;
  tree: ChatTree;
  /** The branch in view, first message first. */
  branch: BranchItem[];
  /** The model the next message goes to: the chosen one while the server offers it, else the default. */
  model: string;
  setModel(id: string): void;
  settings: ChatSettings;
  setSettings(settings: ChatSettings): void;
  /** The open chat's title: the user's own, else the first question of the branch in view. */
  title: string;
  /** This browser's saved chats, most recent first (SPEC's sidebar, and the list while offline). */
  history: ChatHistoryEntry[];
  /** The chat is being read from the server. */
  loading: boolean;
  /** Changes the open chat's messages; the change is saved a second later. */
  update(change: (tree: ChatTree) => ChatTree): void;
  /** Shows another version of a message's turn (-1: the one before, 1: the one after). */
  switchVersion(messageId: string, step: -1 | 1): void;
  /** `unfinished`: the answer the open chat was still streaming, kept here as far as it got (the server goes on with it). */
  /** The open chat was moved into a project or out (issue 32): its next questions go with it. */
  followMove(projectId: string | null): void;
  /** A new chat; `start` puts it in a project (issue 32), on the project's model. */
  newChat(unfinished?: LiveAnswer | null, start?: NewChatStart): void;
  /** Opens a chat (this browser's copy at once, then the server's); false when it cannot. */
  open(id: string, unfinished?: LiveAnswer | null): boolean;
  /** Deletes a chat here and on the server, after a few seconds for Undo (docs/decisions/0070); true when it was the open one (a new chat has started). */
  remove(id: string): boolean;
  rename(id: string, title: string | null): Promise<boolean>;
  /** Saves the open chat now; true once the server has all of it. */
  flush(): Promise<boolean>;
};

const EMPTY_TREE: ChatTree = { messages: [], leafId: null };

/** A deleted chat's key while it waits for Undo (docs/decisions/0070): the sidebar leaves it out. */
export const chatDeleteKey = (id: string) => `chat:${id}`;

/** The tree with an answer that was still streaming kept as far as it got here, marked so: the
 * server goes on writing it (docs/decisions/0056), and opening the chat again shows all of it. */
function leftAt(tree: ChatTree, answer: LiveAnswer): ChatTree {
  const at = tree.messages.findLastIndex((m) => m.id === answer.id);
  if (at < 0) return tree;
  return { ...tree, messages: tree.messages.with(at, { ...tree.messages[at]!, content: answer.content, note: LEFT_NOTE, streaming: undefined }) };
}

/** Where a new chat starts (issue 32): in a project, on its default model when this assistant has it. */
export type NewChatStart = { projectId: string; model?: string };

/**
 * The open chat and the saved ones (SPEC sections 4 and 9; docs/decisions/0046, 0048): every
 * version of its messages and the branch in view, its model and settings; saved to local
 * storage 1 s after a change (SPEC's keys, the offline copy) and then to the server (the
 * history on every device); New Chat, opening, renaming and deleting chats.
 */
export function useChatSession(info: TChatProviderInfo, models: readonly TChatModel[], defaultModel: string): ChatSession {
  const service = info.storageService;
  const provider = info.id;
  const userId = useAuth().user?.id;
  const queryClient = useQueryClient();

  const [chatId, setChatId] = useState(newChatId);
  const [tree, setTree] = useState<ChatTree>(EMPTY_TREE);
  const [chosenModel, setModel] = useState<string | null>(null);
  const model = chosenModel && models.some((m) => m.id === chosenModel) ? chosenModel : defaultModel;
  const [settings, setSettingsState] = useState<ChatSettings>(DEFAULT_SETTINGS);
  const [customTitle, setCustomTitle] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [history, setHistory] = useState<ChatHistoryEntry[]>(() => loadHistory(service, userId));

  const branch = useMemo(
    () => branchOf(tree.messages, tree.leafId).map(({ message, versions, index }): BranchItem => ({ message, index, count: versions.length })),
    [tree],
  );
  const autoTitle = sessionTitle(branch.map((b) => b.message));

  // --- saving: local storage 1 s after a change (SPEC), then the server ---------------------------

  /** Per chat, the ids of the messages the server has. */
  const synced = useRef(new Map<string, Set<string>>());
  /** Chats deleted here: a save still queued for one is dropped. */
  const deleted = useRef(new Set<string>());
  /** Saves to the server one after another, so a chat's messages arrive parents first. */
  const chain = useRef<Promise<unknown>>(Promise.resolve());
  const syncedSet = (id: string) => {
    let set = synced.current.get(id);
    if (!set) synced.current.set(id, (set = new Set()));
    return set;
  };

  const invalidateList = useCallback(() => void queryClient.invalidateQueries({ queryKey: [CONVERSATIONS_URL] }), [queryClient]);

  /** Sends what the server lacks of a saved session; resolves true when it has all of it. */
  const sync = useCallback(
    (session: StoredSession): Promise<boolean> => {
      const run = chain.current.then(async () => {
        if (!userId || deleted.current.has(session.id)) return false;
        const have = syncedSet(session.id);
        try {
          for (const body of saveRequests(saveFields(provider, session), session.messages, have)) {
            await saveConversation(body);
            for (const m of body.messages) have.add(m.id);
          }
        } catch (err) {
          // SPEC section 8: saved-chat failures are only logged; the next save sends it again.
          console.error('Could not save the chat to the server:', err instanceof Error ? err.message : err);
          return false;
        }
        setHistory(updateSessions(service, (s) => (s.id === session.id && s.timestamp === session.timestamp && s.unsynced ? { ...s, unsynced: false } : s), userId));
        invalidateList();
        return true;
      });
      chain.current = run;
      return run;
    },
    [invalidateList, provider, service, userId],
  );

  const current = useRef({ chatId, tree, model, settings, customTitle, autoTitle });
  useLayoutEffect(() => {
    current.current = { chatId, tree, model, settings, customTitle, autoTitle };
  });

  // Saved 1 s after the chat changes (SPEC section 9); only changes made here count, so opening
  // a saved chat does not move it to the top. A pending save runs before the screen switches
  // chats or closes.
  const dirty = useRef(false);
  const pendingSave = useRef<((patch?: (tree: ChatTree) => ChatTree) => Promise<boolean>) | null>(null);
  useEffect(() => {
    if (!dirty.current || (tree.messages.length === 0 && !customTitle)) return;
    const save = (patch?: (tree: ChatTree) => ChatTree) => {
      pendingSave.current = null;
      dirty.current = false;
      const saved = patch ? patch(tree) : tree;
      const session: StoredSession = {
        id: chatId,
        messages: saved.messages,
        title: autoTitle,
        model,
        timestamp: new Date().toISOString(),
        leafId: saved.leafId,
        customTitle,
        systemPrompt: settings.systemPrompt,
        temperature: settings.temperature,
        useAgents: settings.useAgents,
        ...(typeof settings.webSearch === 'boolean' ? { webSearch: settings.webSearch } : {}),
        projectId: settings.projectId,
        ...(userId ? { userId } : {}),
        unsynced: true,
      };
      setHistory(saveSession(service, session, userId));
      return sync(session);
    };
    pendingSave.current = save;
    const timer = setTimeout(save, SAVE_DELAY_MS);
    return () => clearTimeout(timer);
  }, [tree, chatId, model, settings, customTitle, autoTitle, service, userId, sync]);
  useEffect(() => () => void pendingSave.current?.(), []);
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  const flush = useCallback(async (): Promise<boolean> => {
    if (pendingSave.current) return pendingSave.current();
    const session = loadSession(service, current.current.chatId, userId);
    return session ? sync(session) : false;
  }, [service, sync, userId]);

  const update = useCallback((change: (tree: ChatTree) => ChatTree) => {
    dirty.current = true;
    setTree(change);
  }, []);

  const setSettings = useCallback((next: ChatSettings) => {
    dirty.current = true;
    setSettingsState(next);
  }, []);

  const switchVersion = useCallback(
    (messageId: string, step: -1 | 1) => {
      update((t) => {
        const message = t.messages.find((m) => m.id === messageId);
        if (!message) return t;
        const siblings = t.messages.filter((m) => (m.parentId ?? null) === (message.parentId ?? null));
        const target = siblings[siblings.indexOf(message) + step];
        return target ? { ...t, leafId: newestLeaf(t.messages, target.id) } : t;
      });
    },
    [update],
  );

  // --- switching chats ------------------------------------------------------------------------------

  /** Bumped when the open chat changes: the server's answer for the old one is dropped. */
  const opening = useRef(0);

  /**
   * Shows another chat. The open one is saved first; an answer it was still streaming is kept as
   * far as it got here (`unfinished`), marked as going on on the server.
   */
  const load = (next: StoredSession | { id: string }, options: { loading?: boolean; unfinished?: LiveAnswer | null } = {}) => {
    const unfinished = options.unfinished;
    void pendingSave.current?.(unfinished ? (t) => leftAt(t, unfinished) : undefined);
    dirty.current = false;
    opening.current++;
    const session = 'messages' in next ? next : null;
    const messages = session ? normalizeMessages(session.messages) : [];
    setChatId(next.id);
    setTree({ messages, leafId: session?.leafId ?? messages.at(-1)?.id ?? null });
    setModel(session?.model ?? null);
    setSettingsState(session ? settingsOf(session) : DEFAULT_SETTINGS);
    setCustomTitle(session?.customTitle ?? null);
    setLoading(options.loading ?? false);
  };

  const newChat = (unfinished?: LiveAnswer | null, start?: NewChatStart) => {
    load({ id: newChatId() }, { unfinished });
    if (!start) return;
    setSettingsState({ ...DEFAULT_SETTINGS, projectId: start.projectId });
    if (start.model) setModel(start.model);
  };

  /** The server's copy of the open chat, joined with this browser's (which it may lack). */
  const refreshFromServer = (id: string, hadLocal: boolean) => {
    const ticket = opening.current;
    getConversation(id)
      .then((conversation) => {
        if (opening.current !== ticket) return;
        synced.current.set(id, new Set(conversation.messages.map((m) => m.id)));
        const merged = mergeSessions(sessionFromServer(conversation, userId), loadSession(service, id, userId));
        setHistory(saveSession(service, merged, userId));
        const messages = normalizeMessages(merged.messages);
        setTree((t) => {
          // Whatever was added here meanwhile stays (messages never change once made).
          const known = new Set(messages.map((m) => m.id));
          const own = t.messages.filter((m) => !known.has(m.id));
          return own.length > 0 ? { messages: [...messages, ...own], leafId: t.leafId } : { messages, leafId: merged.leafId ?? messages.at(-1)?.id ?? null };
        });
        if (!dirty.current) {
          setModel(merged.model);
          setSettingsState(settingsOf(merged));
          setCustomTitle(merged.customTitle ?? null);
        }
        setLoading(false);
        if (merged.unsynced) void sync(merged);
      })
      .catch((err: unknown) => {
        if (opening.current !== ticket) return;
        setLoading(false);
        if (hadLocal) return; // this browser's copy is shown; it goes to the server with its next save
        notify.error('Chat not found', err instanceof ApiError && err.status === 404 ? 'This chat was deleted.' : 'This chat could not be loaded. Please try again.');
        newChat();
      });
  };

  const open = (id: string, unfinished?: LiveAnswer | null): boolean => {
    const local = loadSession(service, id, userId);
    if (!local && !userId) {
      notify.error('Chat not found', 'This saved chat could not be read.');
      setHistory(deleteSession(service, id, userId));
      return false;
    }
    load(local ?? { id }, { loading: !local, unfinished });
    if (userId) refreshFromServer(id, local !== null);
    return true;
  };

  /** Takes a chat out of every cached page of the list at once; the server's answer follows. */
  const dropFromList = (id: string) =>
    queryClient.setQueriesData<InfiniteData<TConversationList>>({ queryKey: [CONVERSATIONS_URL] }, (data) =>
      data ? { ...data, pages: data.pages.map((page) => ({ ...page, conversations: page.conversations.filter((c) => c.id !== id) })) } : data,
    );

  /** A chat's title as the sidebar lists it (the server's list, else this browser's). */
  const titleOf = (id: string): string | undefined => {
    for (const [, data] of queryClient.getQueriesData<InfiniteData<TConversationList>>({ queryKey: [CONVERSATIONS_URL] })) {
      const found = data?.pages.flatMap((page) => page.conversations).find((c) => c.id === id);
      if (found) return found.title;
    }
    return history.find((entry) => entry.id === id)?.title;
  };

  /** The delete itself, once nobody undid it: this browser's copy, then the server's. */
  const commitDelete = async (id: string, keepalive: boolean): Promise<void> => {
    setHistory(deleteSession(service, id, userId));
    dropFromList(id);
    if (!userId) return;
    const send = () =>
      deleteConversation(id, { keepalive }).catch((err: unknown) => {
        if (!(err instanceof ApiError && err.status === 404)) throw err;
      });
    // After any save of it still on its way, so the save cannot bring it back; a closing page cannot wait.
    const sent = keepalive ? send() : chain.current.then(send);
    chain.current = sent.catch(() => {});
    try {
      await sent;
      dropFromList(id); // a list read while the delete was on its way may have brought it back
    } finally {
      invalidateList();
    }
  };

  const remove = (id: string): boolean => {
    const isOpen = id === chatId;
    if (isOpen) {
      pendingSave.current = null;
      dirty.current = false;
      newChat();
    }
    // No save of it reaches the server while it waits: Undo sends what this browser has.
    deleted.current.add(id);
    deleteWithUndo({
      key: chatDeleteKey(id),
      title: 'Chat deleted',
      description: titleOf(id),
      commit: ({ keepalive }) => commitDelete(id, keepalive),
      onUndo: () => {
        deleted.current.delete(id);
        const saved = loadSession(service, id, userId);
        if (saved?.unsynced) void sync(saved);
        // It was open and nothing else was started since: open it again.
        if (isOpen && mounted.current && current.current.tree.messages.length === 0) open(id);
      },
      onError: () => notify.error('Could not delete the chat', 'It is still saved on the server. Please try again.'),
    });
    return isOpen;
  };

  const rename = async (id: string, title: string | null): Promise<boolean> => {
    const apply = (value: string | null) => {
      setHistory(updateSessions(service, (s) => (s.id === id ? { ...s, customTitle: value } : s), userId));
      if (id === current.current.chatId) setCustomTitle(value);
    };
    try {
      await flushFor(id);
      await updateConversation(id, { customTitle: title });
    } catch (err) {
      notify.error('Could not rename the chat', err instanceof ApiError && err.status === 404 ? 'This chat is not saved yet.' : 'Please try again.');
      return false;
    }
    apply(title);
    invalidateList();
    return true;
  };
  /** Before renaming the open chat, the server must hold it. */
  const flushFor = async (id: string) => {
    if (id === current.current.chatId) await flush();
    else await chain.current;
  };

  const title = customTitle ?? autoTitle;
  // Not a change to save: the server moved it already.
  const followMove = useCallback((projectId: string | null) => setSettingsState((s) => ({ ...s, projectId })), []);

  return { chatId, tree, branch, model, setModel, settings, setSettings, title, history, loading, update, switchVersion, newChat, followMove, open, remove, rename, flush };
}
