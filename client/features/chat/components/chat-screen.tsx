import '../../../lib/zod-csp.ts';
import { useQuery } from '@tanstack/react-query';
import { AlertTriangle, ArrowLeft, MessageSquare, PanelLeft, Send, Square } from 'lucide-react';
import { useCallback, useEffect, useId, useRef, useState, useSyncExternalStore, type KeyboardEvent } from 'react';
import { Link } from 'react-router';
import {
  CHAT_LIMITS,
  CHAT_PROVIDER_INFO,
  type TChatModel,
  type TChatProvider,
  type TChatProviderInfo,
  type TChatProviderStatus,
} from '../../../../contracts/chat.ts';
import { Button } from '../../../components/ui/button.tsx';
import { usePageTitle } from '../../../components/ui/use-page-title.ts';
import { notify } from '../../../lib/notify.ts';
import { ChatRequestError, MISSING_KEY_TEXT, sendChat } from '../api/chat-api.ts';
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
import { HistorySidebar } from './history-sidebar.tsx';
import { MessageView } from './message-view.tsx';

/** GET /api/chat/providers: what the server allows and has configured, and its model list
 * (Llama's comes from the server's configuration). */
export const PROVIDERS_QUERY_KEY = ['/api/chat/providers'] as const;

function findStatus(data: unknown, provider: TChatProvider): TChatProviderStatus | undefined {
  const list = Array.isArray(data) ? data : data && typeof data === 'object' && 'providers' in data && Array.isArray(data.providers) ? data.providers : [];
  const found = (list as TChatProviderStatus[]).find((p) => p && p.id === provider);
  return found && Array.isArray(found.models) && found.models.length > 0 ? found : undefined;
}

/** The models on offer: the server's list when it has answered, else the contract's. */
function useModels(info: TChatProviderInfo): { models: readonly TChatModel[]; defaultModel: string } {
  const status = useQuery({ queryKey: PROVIDERS_QUERY_KEY, select: (data: unknown) => findStatus(data, info.id) });
  const server = status.data;
  return server ? { models: server.models, defaultModel: server.defaultModel || server.models[0]!.id } : { models: info.models, defaultModel: info.defaultModel };
}

const WIDE_QUERY = '(min-width: 1024px)';
const wideQuery = () => (typeof window.matchMedia === 'function' ? window.matchMedia(WIDE_QUERY) : null);
/** True on screens where the sidebar sits beside the chat (Tailwind's lg). */
function useWideScreen(): boolean {
  return useSyncExternalStore(
    (onChange) => {
      const query = wideQuery();
      query?.addEventListener?.('change', onChange);
      return () => query?.removeEventListener?.('change', onChange);
    },
    () => wideQuery()?.matches ?? true,
  );
}

const FAILED_TOAST = ['Error', 'Failed to send message. Please try again.'] as const;
const STOPPED_NOTE = '(stopped)';
const messageId = () => `m-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

/** SPEC: 'Sorry, I encountered an error: {message}. Please try again later.' (without a
 * doubled full stop when the server's message ends with one). */
export const sorryMessage = (message: string) => `Sorry, I encountered an error: ${message.replace(/\.+$/, '')}. Please try again later.`;

/**
 * One chat screen for every assistant (SPEC section 2, DESIGN section 6), driven by the
 * provider's record in contracts/chat.ts: its endpoint, models, texts and storage; Grok's
 * variant sends with a single-line form and shows 'Thinking...' and 'Error: {message}'.
 */
export default function ChatScreen({ provider }: { provider: TChatProvider }) {
  const info = CHAT_PROVIDER_INFO[provider];
  const grok = info.variant === 'grok';
  const service = info.storageService;
  usePageTitle(`Chat with ${info.label}`);
  const { models, defaultModel } = useModels(info);

  const [chatId, setChatId] = useState(newChatId);
  const [messages, setMessages] = useState<ChatMessage[]>([]);
  const [chosenModel, setModel] = useState<string | null>(null);
  const model = chosenModel && models.some((m) => m.id === chosenModel) ? chosenModel : defaultModel;
  const [input, setInput] = useState('');
  const [pending, setPending] = useState(false);
  const [streamingId, setStreamingId] = useState<string | null>(null);
  const [configError, setConfigError] = useState(false);
  const [inlineError, setInlineError] = useState<string | null>(null);
  const [history, setHistory] = useState<ChatHistoryEntry[]>(() => loadHistory(service));
  const [drawerOpen, setDrawerOpen] = useState(false);
  const [pinned, setPinned] = useState(true);

  const sidebarId = useId();
  const inputId = useId();
  const errorId = useId();
  const inputRef = useRef<HTMLTextAreaElement & HTMLInputElement>(null);
  const stopRef = useRef<HTMLButtonElement>(null);
  const toggleRef = useRef<HTMLButtonElement>(null);
  const scrollRef = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const abortRef = useRef<AbortController | null>(null);
  /** Bumped when the open chat changes: a reply still arriving for the old one is ignored. */
  const generation = useRef(0);

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
  const flushSave = useCallback(() => pendingSave.current?.(), []);
  useEffect(
    () => () => {
      abortRef.current?.abort();
      pendingSave.current?.();
    },
    [],
  );

  const update = (change: (previous: ChatMessage[]) => ChatMessage[]) => {
    dirty.current = true;
    setMessages(change);
  };

  // Follow the answer as it grows, unless the reader has scrolled up.
  useEffect(() => {
    const el = scrollRef.current;
    if (el && atBottom.current) el.scrollTop = el.scrollHeight;
  }, [messages, pending]);

  // The screen is for typing: the input has focus as soon as it opens (the router gives each
  // assistant its own instance, so this runs once per chat screen).
  useEffect(() => inputRef.current?.focus(), []);

  const wasPending = useRef(false);
  useEffect(() => {
    if (pending) {
      if (document.activeElement === inputRef.current || document.activeElement === document.body) stopRef.current?.focus();
    } else if (wasPending.current && (document.activeElement === stopRef.current || document.activeElement === document.body || document.activeElement === null)) {
      inputRef.current?.focus();
    }
    wasPending.current = pending;
  }, [pending]);

  const startChat = (next: { id: string; messages: ChatMessage[]; model: string | null }) => {
    flushSave();
    abortRef.current?.abort();
    generation.current++;
    dirty.current = false;
    setChatId(next.id);
    setMessages(next.messages);
    setModel(next.model);
    setPending(false);
    setStreamingId(null);
    setInlineError(null);
    setConfigError(false);
    setDrawerOpen(false);
  };

  const newChat = () => startChat({ id: newChatId(), messages: [], model: null });

  const openChat = (id: string) => {
    const session = loadSession(service, id);
    if (!session) {
      notify.error('Chat not found', 'This saved chat could not be read.');
      setHistory(deleteSession(service, id));
      return;
    }
    startChat({ id: session.id, messages: session.messages, model: session.model });
  };

  const removeChat = (entry: ChatHistoryEntry) => {
    if (entry.id === chatId) {
      pendingSave.current = null;
      dirty.current = false;
      newChat();
    }
    setHistory(deleteSession(service, entry.id));
  };

  const send = async () => {
    const text = input.trim();
    if (!text || pending) return;
    const run = ++generation.current;
    const live = () => generation.current === run;
    const userMessage: ChatMessage = { id: messageId(), role: 'user', content: text, timestamp: new Date().toISOString() };
    const conversation = [...messages, userMessage];
    update(() => conversation);
    setInput('');
    setPending(true);
    setInlineError(null);
    setConfigError(false);
    atBottom.current = true;

    const answerId = messageId();
    const answerModel = model;
    let answer = '';
    let started = false;
    /** Adds the answer, or updates it once it is there (updaters run later, so check the list). */
    const showAnswer = (fields: Partial<ChatMessage>) =>
      update((list) =>
        list.some((m) => m.id === answerId)
          ? list.map((m) => (m.id === answerId ? { ...m, ...fields } : m))
          : [...list, { id: answerId, role: 'assistant', content: '', timestamp: new Date().toISOString(), model: answerModel, ...fields }],
      );

    const controller = new AbortController();
    abortRef.current = controller;
    const request = conversation
      .filter((m) => !m.failed && m.content.trim() !== '')
      .slice(-CHAT_LIMITS.maxMessages)
      .map((m) => (grok ? { role: m.role, content: m.content, timestamp: m.timestamp } : { role: m.role, content: m.content }));

    try {
      const result = await sendChat(
        info.endpoint,
        { messages: request, model: answerModel },
        {
          signal: controller.signal,
          onDelta: (delta) => {
            if (!live()) return;
            answer += delta;
            if (!started) setStreamingId(answerId);
            started = true;
            showAnswer({ content: answer });
          },
        },
      );
      if (!live()) return;
      if (result.content || result.images.length > 0 || started) {
        showAnswer({ content: result.content || answer, model: result.model, ...(result.images.length > 0 ? { images: result.images } : {}) });
      } else {
        throw new ChatRequestError('The assistant returned an empty answer');
      }
    } catch (err) {
      if (!live()) return;
      if (controller.signal.aborted) {
        // Stopped: the partial answer stays, marked.
        showAnswer({ content: answer, note: STOPPED_NOTE });
      } else if (err instanceof ChatRequestError) {
        if (answer) {
          showAnswer({ note: `The answer was cut short: ${err.message}` });
          if (grok) setInlineError(err.message);
        } else if (err.message.includes(MISSING_KEY_TEXT)) {
          setConfigError(true);
        } else if (grok) {
          setInlineError(err.message);
        } else {
          update((list) => [
            ...list,
            { id: answerId, role: 'assistant', content: sorryMessage(err.message), timestamp: new Date().toISOString(), failed: true },
          ]);
        }
      } else {
        console.error('Chat request failed unexpectedly:', err);
        if (answer) showAnswer({ note: 'The answer was cut short by an unexpected error.' });
        notify.error(...FAILED_TOAST);
      }
    } finally {
      if (live()) {
        abortRef.current = null;
        setPending(false);
        setStreamingId(null);
      }
    }
  };

  const stop = () => abortRef.current?.abort();

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void send();
    }
  };

  const wide = useWideScreen();
  const sidebarShown = grok && wide ? pinned : drawerOpen;
  const toggleSidebar = () => {
    if (grok && wide) setPinned((p) => !p);
    else setDrawerOpen((o) => !o);
  };
  const closeDrawer = () => {
    setDrawerOpen(false);
    toggleRef.current?.focus();
  };

  const modelLabel = (id?: string) => (id ? (models.find((m) => m.id === id)?.label ?? id) : undefined);
  const waiting = pending && streamingId === null;
  const canSend = !pending && input.trim() !== '';

  return (
    <div className="flex h-[calc(100dvh-4rem)] min-h-[28rem]">
      <HistorySidebar
        id={sidebarId}
        entries={history}
        currentId={chatId}
        drawerOpen={drawerOpen}
        pinned={grok ? pinned : true}
        onClose={closeDrawer}
        onNewChat={newChat}
        onSelect={openChat}
        onDelete={removeChat}
      />
      <section aria-labelledby={`${sidebarId}-title`} className="flex min-w-0 flex-1 flex-col">
        <header className="flex flex-wrap items-center gap-2 border-b border-slate-200 px-3 py-2 sm:px-4">
          <Link
            to="/dashboard"
            aria-label="Back to Dashboard"
            title="Back to Dashboard"
            className="inline-flex size-10 items-center justify-center rounded-md text-slate-700 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-brand-600"
          >
            <ArrowLeft aria-hidden="true" className="size-5" />
          </Link>
          <Button
            ref={toggleRef}
            variant="ghost"
            size="icon"
            onClick={toggleSidebar}
            aria-controls={sidebarId}
            aria-expanded={sidebarShown}
            aria-label={grok ? 'Toggle chat history sidebar' : 'Show chat history'}
            className={grok ? '' : 'lg:hidden'}
          >
            <PanelLeft aria-hidden="true" className="size-5" />
          </Button>
          <h1 id={`${sidebarId}-title`} className="mr-auto text-lg font-semibold text-slate-900">
            Chat with {info.label}
          </h1>
          <label className="flex items-center gap-2 text-sm text-slate-700">
            <span>Model</span>
            <select
              value={model}
              onChange={(event) => setModel(event.target.value)}
              disabled={pending}
              className="rounded-md border border-slate-300 bg-white px-2 py-1.5 text-slate-900 focus-visible:outline-2 focus-visible:outline-brand-600 disabled:opacity-60"
            >
              {models.map((m) => (
                <option key={m.id} value={m.id}>
                  {m.note ? `${m.label} (${m.note})` : m.label}
                </option>
              ))}
            </select>
          </label>
        </header>

        <div
          ref={scrollRef}
          onScroll={(event) => {
            const el = event.currentTarget;
            atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
          }}
          className="flex-1 overflow-y-auto px-3 py-4 sm:px-6"
        >
          <div className="mx-auto flex max-w-3xl flex-col gap-4">
            {messages.length === 0 && !configError ? (
              <div className="flex flex-col items-center justify-center py-16 text-center text-slate-600">
                <MessageSquare aria-hidden="true" className="size-10 text-slate-300" />
                <p className="mt-3 text-lg font-medium text-slate-700">{info.emptyState}</p>
              </div>
            ) : null}
            <div role="log" aria-live="polite" aria-relevant="additions text" aria-label="Messages" className="flex flex-col gap-4">
              {messages.map((message) => (
                <MessageView
                  key={message.id}
                  message={message}
                  assistantLabel={info.label}
                  modelLabel={modelLabel(message.model)}
                  streaming={message.id === streamingId}
                />
              ))}
            </div>
            {/* Where the answer would have been: below the message that asked for it. */}
            {configError && (
              <div role="alert" className="rounded-lg border border-amber-300 bg-amber-50 p-4 text-amber-900">
                <h2 className="flex items-center gap-2 font-semibold">
                  <AlertTriangle aria-hidden="true" className="size-5" /> API Configuration Error
                </h2>
                <p className="mt-2">{info.missingKeyMessage}</p>
                <p className="mt-1 text-sm">
                  The administrator must set up the API key for this assistant on the server
                  {info.keyVariable ? ` (${info.keyVariable})` : ''} before it can answer.
                </p>
              </div>
            )}
            {waiting &&
              (grok ? (
                <p role="status" className="text-sm text-slate-600 italic">
                  Thinking...
                </p>
              ) : (
                <p role="status" className="flex items-center gap-1 pl-7 text-slate-500">
                  <span className="sr-only">Waiting for the answer</span>
                  {[0, 1, 2].map((i) => (
                    <span key={i} aria-hidden="true" className="size-2 animate-bounce rounded-full bg-slate-400 motion-reduce:animate-none" style={{ animationDelay: `${i * 150}ms` }} />
                  ))}
                </p>
              ))}
          </div>
        </div>

        <form
          className="border-t border-slate-200 bg-white px-3 py-3 sm:px-6"
          onSubmit={(event) => {
            event.preventDefault();
            void send();
          }}
        >
          <div className="mx-auto flex max-w-3xl items-end gap-2">
            <label htmlFor={inputId} className="sr-only">
              Message {info.label}
            </label>
            {grok ? (
              <input
                ref={inputRef}
                id={inputId}
                type="text"
                value={input}
                onChange={(event) => setInput(event.target.value)}
                disabled={pending}
                maxLength={CHAT_LIMITS.maxMessageChars}
                placeholder={`Ask ${info.label} anything...`}
                autoComplete="off"
                aria-describedby={inlineError ? errorId : undefined}
                className="h-11 min-w-0 flex-1 rounded-lg border border-slate-300 px-3 text-slate-900 placeholder:text-slate-500 focus-visible:outline-2 focus-visible:outline-brand-600 disabled:bg-slate-50 disabled:opacity-60"
              />
            ) : (
              <textarea
                ref={inputRef}
                id={inputId}
                rows={1}
                value={input}
                onChange={(event) => setInput(event.target.value)}
                onKeyDown={onKeyDown}
                disabled={pending}
                maxLength={CHAT_LIMITS.maxMessageChars}
                placeholder={`Message ${info.label}... (Enter to send, Shift+Enter for a new line)`}
                className="field-sizing-content max-h-48 min-h-11 min-w-0 flex-1 resize-none rounded-lg border border-slate-300 px-3 py-2.5 text-slate-900 placeholder:text-slate-500 focus-visible:outline-2 focus-visible:outline-brand-600 disabled:bg-slate-50 disabled:opacity-60"
              />
            )}
            {pending && (
              <Button ref={stopRef} variant="outline" size="lg" onClick={stop} className="px-4">
                <Square aria-hidden="true" className="size-3.5 fill-current" /> Stop
              </Button>
            )}
            <Button type="submit" size="lg" disabled={!canSend} aria-label="Send message" className="px-4">
              <Send aria-hidden="true" />
              <span className="hidden sm:inline">Send</span>
            </Button>
          </div>
          {grok && inlineError && (
            <p id={errorId} role="alert" className="mx-auto mt-2 max-w-3xl text-sm text-red-700">
              Error: {inlineError}
            </p>
          )}
        </form>
      </section>
    </div>
  );
}
