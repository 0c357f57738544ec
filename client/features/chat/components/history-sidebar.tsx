import { Plus, Trash2, X } from 'lucide-react';
import { useEffect, useRef } from 'react';
import { Button } from '../../../components/ui/button.tsx';
import { relativeDateLabel, type ChatHistoryEntry } from '../lib/chat-storage.ts';

type Props = {
  id: string;
  entries: ChatHistoryEntry[];
  currentId: string;
  /** The drawer on small screens. */
  drawerOpen: boolean;
  /** Shown beside the chat on wide screens (Grok can hide it). */
  pinned: boolean;
  onClose(): void;
  onNewChat(): void;
  onSelect(id: string): void;
  onDelete(entry: ChatHistoryEntry): void;
};

/** SPEC's sidebar: New Chat, 'Chat History', the saved chats with relative dates and a delete
 * button shown on hover and on keyboard focus (and always on touch screens, which cannot hover). */
export function HistorySidebar({ id, entries, currentId, drawerOpen, pinned, onClose, onNewChat, onSelect, onDelete }: Props) {
  const newChatButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (drawerOpen) newChatButton.current?.focus();
  }, [drawerOpen]);

  const now = new Date();
  return (
    <>
      {drawerOpen && <div aria-hidden="true" className={`fixed inset-0 z-40 bg-slate-900/40 ${pinned ? 'lg:hidden' : ''}`} onClick={onClose} />}
      <aside
        id={id}
        aria-label="Chat history"
        onKeyDown={(event) => {
          if (event.key === 'Escape' && drawerOpen) {
            event.stopPropagation();
            onClose();
          }
        }}
        className={`w-72 shrink-0 flex-col border-r border-slate-200 bg-slate-50 ${
          drawerOpen ? 'fixed inset-y-0 left-0 z-50 flex shadow-xl' : 'hidden'
        } ${pinned ? 'lg:static lg:z-auto lg:flex lg:shadow-none' : 'lg:hidden'}`}
      >
        <div className="flex items-center gap-2 border-b border-slate-200 p-3">
          <Button ref={newChatButton} variant="outline" className="flex-1" onClick={onNewChat}>
            <Plus aria-hidden="true" /> New Chat
          </Button>
          {drawerOpen && (
            <Button variant="ghost" size="icon" aria-label="Close chat history" onClick={onClose} className={pinned ? 'lg:hidden' : ''}>
              <X aria-hidden="true" />
            </Button>
          )}
        </div>
        <h2 className="px-4 pt-4 pb-2 text-xs font-semibold tracking-wide text-slate-600 uppercase">Chat History</h2>
        {entries.length === 0 ? (
          <p className="px-4 text-sm text-slate-600">No chat history yet</p>
        ) : (
          <ul className="flex-1 space-y-1 overflow-y-auto px-2 pb-4">
            {entries.map((entry) => {
              const current = entry.id === currentId;
              return (
                <li key={entry.id} className="group relative">
                  <button
                    type="button"
                    onClick={() => onSelect(entry.id)}
                    aria-current={current ? 'true' : undefined}
                    className={`block w-full rounded-md py-2 pr-10 pl-3 text-left hover:bg-slate-200/70 focus-visible:outline-2 focus-visible:outline-brand-600 ${
                      current ? 'bg-brand-50 text-brand-700' : 'text-slate-800'
                    }`}
                  >
                    <span className="block truncate text-sm font-medium">{entry.title}</span>
                    <time dateTime={entry.timestamp} className="block text-xs text-slate-600">
                      {relativeDateLabel(entry.timestamp, now)}
                    </time>
                  </button>
                  <button
                    type="button"
                    onClick={() => onDelete(entry)}
                    aria-label={`Delete chat: ${entry.title}`}
                    title="Delete chat"
                    className="absolute top-1/2 right-1 inline-flex size-8 -translate-y-1/2 items-center justify-center rounded-md text-slate-600 opacity-0 group-focus-within:opacity-100 group-hover:opacity-100 hover:bg-red-50 hover:text-red-700 focus-visible:opacity-100 focus-visible:outline-2 focus-visible:outline-brand-600 [@media(hover:none)]:opacity-100"
                  >
                    <Trash2 aria-hidden="true" className="size-4" />
                  </button>
                </li>
              );
            })}
          </ul>
        )}
      </aside>
    </>
  );
}
