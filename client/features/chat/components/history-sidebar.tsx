import { Check, Pencil, Pin, Plus, Search, Trash2, X } from 'lucide-react';
import { useEffect, useId, useRef, useState } from 'react';
import { CHAT_HISTORY_LIMITS } from '../../../../contracts/chat-history.ts';
import type { TChatProvider } from '../../../../contracts/chat.ts';
import type { TProject } from '../../../../contracts/projects.ts';
import { Button } from '../../../components/ui/button.tsx';
import { ChatRowMenu } from './chat-row-menu.tsx';
import { ProjectsSection } from './projects-section.tsx';
import type { ChatHistoryList } from '../hooks/use-chat-history.ts';
import { relativeDateLabel, type ChatHistoryEntry } from '../lib/chat-storage.ts';
import { useTimeZone } from '../../../lib/time-zone.ts';

type Props = {
  id: string;
  list: ChatHistoryList;
  search: string;
  onSearch(text: string): void;
  currentId: string;
  /** The drawer on small screens. */
  drawerOpen: boolean;
  /** Shown beside the chat on wide screens (Grok can hide it). */
  pinned: boolean;
  onClose(): void;
  onNewChat(): void;
  onSelect(id: string): void;
  onDelete(entry: ChatHistoryEntry): void;
  /** Resolves true when renamed. */
  onRename(entry: ChatHistoryEntry, title: string): Promise<boolean>;
  /** Projects and pins (issue 32), once the user's chats are on the server; absent: not offered. */
  organise?: Organise;
};

export type Organise = {
  provider: TChatProvider;
  projects: readonly TProject[];
  onPin(entry: ChatHistoryEntry, pinned: boolean): void;
  onMove(entry: ChatHistoryEntry, project: TProject | null): void;
  onOpenProject(project: TProject | null): void;
  onNewChatIn(project: TProject): void;
};

const ROW_BUTTON =
  'inline-flex size-8 items-center justify-center rounded-md text-slate-600 focus-visible:opacity-100 focus-visible:outline-2 focus-visible:outline-brand-600 [@media(hover:none)]:opacity-100';

/**
 * SPEC's sidebar: New Chat, 'Chat History', the chats with relative dates and a delete button
 * shown on hover and on keyboard focus (and always on touch screens, which cannot hover). Ours
 * (docs/decisions/0046): the list is the user's history on the server, searched there (titles and
 * messages), a page at a time; each chat can be renamed.
 */
export function HistorySidebar({ id, list, search, onSearch, currentId, drawerOpen, pinned, onClose, onNewChat, onSelect, onDelete, onRename, organise }: Props) {
  const newChatButton = useRef<HTMLButtonElement>(null);
  const searchId = useId();
  const [renaming, setRenaming] = useState<string | null>(null);
  useEffect(() => {
    if (drawerOpen) newChatButton.current?.focus();
  }, [drawerOpen]);

  const { entries } = list;
  // A deleted chat's row leaves with the button that had focus: focus goes to the next chat (the
  // one before when it was the last), else to New Chat.
  const listRef = useRef<HTMLUListElement>(null);
  const focusAfterDelete = useRef<string | null | undefined>(undefined);
  useEffect(() => {
    if (focusAfterDelete.current === undefined) return;
    const id = focusAfterDelete.current;
    focusAfterDelete.current = undefined;
    const row = [...(listRef.current?.querySelectorAll<HTMLButtonElement>('button[data-chat-id]') ?? [])].find((button) => button.dataset.chatId === id);
    (row ?? newChatButton.current)?.focus();
  }, [entries]);
  const remove = (entry: ChatHistoryEntry, index: number) => {
    focusAfterDelete.current = (entries[index + 1] ?? entries[index - 1])?.id ?? null;
    onDelete(entry);
  };

  const now = new Date();
  const zone = useTimeZone();
  return (
    <>
      {drawerOpen && <div aria-hidden="true" className={`fixed inset-0 z-40 bg-slate-900/40 ${pinned ? 'lg:hidden' : ''}`} onClick={onClose} />}
      <aside
        id={id}
        aria-label="Chat history"
        onKeyDown={(event) => {
          if (event.key === 'Escape' && drawerOpen && !renaming) {
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
        <div role="search" className="px-3 pt-3">
          <label htmlFor={searchId} className="sr-only">
            Search chats
          </label>
          <div className="relative">
            <Search aria-hidden="true" className="pointer-events-none absolute top-1/2 left-2.5 size-4 -translate-y-1/2 text-slate-500" />
            <input
              id={searchId}
              type="search"
              value={search}
              onChange={(event) => onSearch(event.target.value)}
              maxLength={CHAT_HISTORY_LIMITS.maxSearchChars}
              placeholder="Search chats"
              autoComplete="off"
              className="h-9 w-full rounded-md border border-slate-300 bg-white pr-2 pl-8 text-sm text-slate-900 placeholder:text-slate-500 focus-visible:outline-2 focus-visible:outline-brand-600"
            />
          </div>
        </div>
        {organise && !list.offline && (
          <ProjectsSection
            provider={organise.provider}
            currentId={currentId}
            projects={organise.projects}
            onSelect={onSelect}
            onOpenProject={organise.onOpenProject}
            onNewChatIn={organise.onNewChatIn}
          />
        )}
        <h2 className="px-4 pt-4 pb-2 text-xs font-semibold tracking-wide text-slate-600 uppercase">Chat History</h2>
        {list.offline && <p className="px-4 pb-2 text-xs text-slate-600">Offline: the chats saved in this browser.</p>}
        {entries.length === 0 ? (
          <p className="px-4 text-sm text-slate-600">{list.searching ? (list.loading ? 'Searching...' : 'No chats match your search') : 'No chat history yet'}</p>
        ) : (
          <ul ref={listRef} className="flex-1 space-y-1 overflow-y-auto px-2 pb-4">
            {entries.map((entry, index) =>
              renaming === entry.id ? (
                <li key={entry.id}>
                  <RenameForm
                    entry={entry}
                    onCancel={() => setRenaming(null)}
                    onSave={async (title) => {
                      if (await onRename(entry, title)) setRenaming(null);
                    }}
                  />
                </li>
              ) : (
                <li key={entry.id} className="group relative">
                  <button
                    type="button"
                    data-chat-id={entry.id}
                    onClick={() => onSelect(entry.id)}
                    aria-current={entry.id === currentId ? 'true' : undefined}
                    className={`block w-full rounded-md py-2 ${organise ? 'pr-26' : 'pr-18'} pl-3 text-left hover:bg-slate-200/70 focus-visible:outline-2 focus-visible:outline-brand-600 ${
                      entry.id === currentId ? 'bg-brand-50 text-brand-700' : 'text-slate-800'
                    }`}
                  >
                    <span className="flex items-center gap-1 text-sm font-medium">
                      {entry.pinned && <Pin aria-label="Pinned" className="size-3.5 shrink-0 text-slate-500" />}
                      <span className="truncate">{entry.title}</span>
                    </span>
                    <time dateTime={entry.timestamp} className="block text-xs text-slate-600">
                      {relativeDateLabel(entry.timestamp, now, zone)}
                    </time>
                  </button>
                  <div className="absolute top-1/2 right-1 flex -translate-y-1/2 opacity-0 group-focus-within:opacity-100 group-hover:opacity-100 [@media(hover:none)]:opacity-100">
                    <button type="button" onClick={() => setRenaming(entry.id)} aria-label={`Rename chat: ${entry.title}`} title="Rename chat" className={`${ROW_BUTTON} hover:bg-slate-200 hover:text-slate-900`}>
                      <Pencil aria-hidden="true" className="size-4" />
                    </button>
                    {organise && <ChatRowMenu entry={entry} projects={organise.projects} className={`${ROW_BUTTON} hover:bg-slate-200 hover:text-slate-900`} onPin={organise.onPin} onMove={organise.onMove} />}
                    <button type="button" onClick={() => remove(entry, index)} aria-label={`Delete chat: ${entry.title}`} title="Delete chat" className={`${ROW_BUTTON} hover:bg-red-50 hover:text-red-700`}>
                      <Trash2 aria-hidden="true" className="size-4" />
                    </button>
                  </div>
                </li>
              ),
            )}
            {list.hasMore && (
              <li className="pt-2">
                <Button variant="ghost" size="sm" className="w-full" disabled={list.loadingMore} onClick={list.loadMore}>
                  {list.loadingMore ? 'Loading...' : 'Show older chats'}
                </Button>
              </li>
            )}
          </ul>
        )}
      </aside>
    </>
  );
}

/** A chat's title, edited in place: Enter saves, Escape cancels. */
function RenameForm({ entry, onSave, onCancel }: { entry: ChatHistoryEntry; onSave(title: string): Promise<void>; onCancel(): void }) {
  const [title, setTitle] = useState(entry.title);
  const [saving, setSaving] = useState(false);
  const inputId = useId();
  const trimmed = title.trim();
  return (
    <form
      className="flex items-center gap-1 rounded-md bg-white p-1 ring-1 ring-slate-300"
      onSubmit={async (event) => {
        event.preventDefault();
        if (!trimmed || saving) return;
        setSaving(true);
        await onSave(trimmed);
        setSaving(false);
      }}
      onKeyDown={(event) => {
        if (event.key === 'Escape') {
          event.stopPropagation();
          onCancel();
        }
      }}
    >
      <label htmlFor={inputId} className="sr-only">
        New title for {entry.title}
      </label>
      <input
        id={inputId}
        autoFocus
        value={title}
        maxLength={CHAT_HISTORY_LIMITS.maxTitleChars}
        onChange={(event) => setTitle(event.target.value)}
        className="h-8 min-w-0 flex-1 rounded px-2 text-sm text-slate-900 focus-visible:outline-2 focus-visible:outline-brand-600"
      />
      <button type="submit" disabled={!trimmed || saving} aria-label="Save title" className={`${ROW_BUTTON} opacity-100 hover:bg-slate-100 disabled:opacity-40`}>
        <Check aria-hidden="true" className="size-4" />
      </button>
      <button type="button" onClick={onCancel} aria-label="Cancel renaming" className={`${ROW_BUTTON} opacity-100 hover:bg-slate-100`}>
        <X aria-hidden="true" className="size-4" />
      </button>
    </form>
  );
}
