import { useCallback, useEffect, useRef, useState } from 'react';
import type { TChatModel } from '../../../../contracts/chat.ts';
import { notify } from '../../../lib/notify.ts';
import {
  SAVE_DELAY_MS,
  deleteSession,
  loadHistory,
  loadSession,
  newChatId,
  saveSession,
  sessionTitle,
  type ChatHistoryEntry,
  type ChatMessage,
} from '../lib/chat-storage.ts';

export type ChatSession = {
  chatId: string;
  messages: ChatMessage[];
  /** The model the next message goes to: the chosen one while the server offers it, else the default. */
  model: string;
  setModel(id: string): void;
  /** The saved chats, most recent first (SPEC's sidebar). */
  history: ChatHistoryEntry[];
  /** Changes the open chat's messages; the change is saved a second later. */
  update(change: (previous: ChatMessage[]) => ChatMessage[]): void;
  newChat(): void;
  /** Opens a saved chat; false (and a toast) when it cannot be read. */
  open(id: string): boolean;
  /** Deletes a saved chat; true when it was the open one (a new chat has started). */
  remove(entry: ChatHistoryEntry): boolean;
};

/**
 * The open chat and the saved ones (SPEC sections 4 and 9): its messages and model, saved to
 * local storage 1 s after the messages change, New Chat, opening and deleting saved chats.
 */
export function useChatSession(service: string, models: readonly TChatModel[], defaultModel: string): ChatSession {
  const [chatId, setChatId] = useState(newChatId);
  const [messages, setMessages] = useState<ChatMessage[]>([]);
  const [chosenModel, setModel] = useState<string | null>(null);
  const model = chosenModel && models.some((m) => m.id === chosenModel) ? chosenModel : defaultModel;
  const [history, setHistory] = useState<ChatHistoryEntry[]>(() => loadHistory(service));

  // Saved 1 s after the messages change (SPEC section 9); only changes made here count, so
  // opening a saved chat does not move it to the top. A pending save runs before the screen
  // switches chats or closes.
  const dirty = useRef(false);
  const pendingSave = useRef<(() => void) | null>(null);
  useEffect(() => {
    if (!dirty.current || messages.length === 0) return;
    const save = () => {
      pendingSave.current = null;
      dirty.current = false;
      setHistory(saveSession(service, { id: chatId, messages, title: sessionTitle(messages), model, timestamp: new Date().toISOString() }));
    };
    pendingSave.current = save;
    const timer = setTimeout(save, SAVE_DELAY_MS);
    return () => clearTimeout(timer);
  }, [messages, chatId, model, service]);
  useEffect(() => () => pendingSave.current?.(), []);

  const update = useCallback((change: (previous: ChatMessage[]) => ChatMessage[]) => {
    dirty.current = true;
    setMessages(change);
  }, []);

  const load = (next: { id: string; messages: ChatMessage[]; model: string | null }) => {
    pendingSave.current?.();
    dirty.current = false;
    setChatId(next.id);
    setMessages(next.messages);
    setModel(next.model);
  };

  const newChat = () => load({ id: newChatId(), messages: [], model: null });

  const open = (id: string): boolean => {
    const session = loadSession(service, id);
    if (!session) {
      notify.error('Chat not found', 'This saved chat could not be read.');
      setHistory(deleteSession(service, id));
      return false;
    }
    load({ id: session.id, messages: session.messages, model: session.model });
    return true;
  };

  const remove = (entry: ChatHistoryEntry): boolean => {
    const current = entry.id === chatId;
    if (current) {
      pendingSave.current = null;
      dirty.current = false;
      newChat();
    }
    setHistory(deleteSession(service, entry.id));
    return current;
  };

  return { chatId, messages, model, setModel, history, update, newChat, open, remove };
}
