import { differenceInCalendarDays } from 'date-fns';

/** SPEC section 3: a chat message; id, images and the notes are ours. */
export type ChatMessage = {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  /** ISO date. */
  timestamp: string;
  /** The model that answered (assistant only). */
  model?: string;
  /** Generated images (grok-2-image-1212): data:image/ or https URLs. */
  images?: string[];
  /** Generated images left out of local storage (data: URLs are too large to keep). */
  imagesNotKept?: number;
  /** Shown under the text: '(stopped)' or an error that cut the answer short. */
  note?: string;
  /** Our own error message ('Sorry, I encountered an error: ...'): never sent to the model. */
  failed?: boolean;
};

/** SPEC section 3: a saved chat (local storage, per service). */
export type ChatSession = { id: string; messages: ChatMessage[]; title: string; model: string; timestamp: string };

/** SPEC section 3: the sidebar's entry for a saved chat. */
export type ChatHistoryEntry = { id: string; title: string; timestamp: string; model: string; aiService: string };

/** SPEC section 9. */
export const MAX_SESSIONS = 50;
export const SAVE_DELAY_MS = 1000;
export const HISTORY_TITLE_MAX = 50;
const SESSION_TITLE_CUT = 47;

export const historyKey = (service: string) => `chat-history-${service}`;
export const sessionsKey = (service: string) => `chat-sessions-${service}`;

/** 'chat-' + millisecond time + a random suffix (SPEC section 3). */
export function newChatId(now: number = Date.now()): string {
  return `chat-${now}-${Math.random().toString(36).slice(2, 11)}`;
}

/** The first user message, trimmed to 47 characters plus '...' when over 50; 'New Chat' when
 * there is none. */
export function sessionTitle(messages: readonly ChatMessage[]): string {
  const first = messages.find((m) => m.role === 'user' && m.content.trim() !== '');
  if (!first) return 'New Chat';
  const text = first.content.trim();
  return text.length > HISTORY_TITLE_MAX ? `${text.slice(0, SESSION_TITLE_CUT)}...` : text;
}

export const historyTitle = (title: string): string => title.slice(0, HISTORY_TITLE_MAX);

/** Time of day today, 'Yesterday', '{n} days ago' under a week, else the full date. */
export function relativeDateLabel(timestamp: string | number | Date, now: Date = new Date()): string {
  const date = new Date(timestamp);
  if (Number.isNaN(date.getTime())) return '';
  const days = differenceInCalendarDays(now, date);
  if (days <= 0) return date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  if (days === 1) return 'Yesterday';
  if (days < 7) return `${days} days ago`;
  return date.toLocaleDateString();
}

// Storage failures (disabled storage, quota, a corrupt value) are logged, never thrown (SPEC 8).

function readList<T>(key: string, valid: (item: unknown) => item is T): T[] {
  try {
    const raw = window.localStorage.getItem(key);
    if (!raw) return [];
    const parsed: unknown = JSON.parse(raw);
    if (!Array.isArray(parsed)) throw new Error('not a list');
    return parsed.filter(valid);
  } catch (err) {
    console.error(`Could not read saved chats (${key}):`, err);
    return [];
  }
}

function writeList(key: string, value: unknown[]): boolean {
  try {
    window.localStorage.setItem(key, JSON.stringify(value));
    return true;
  } catch (err) {
    console.error(`Could not save chats (${key}):`, err);
    return false;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
const isSession = (v: unknown): v is ChatSession =>
  isObject(v) && typeof v.id === 'string' && Array.isArray(v.messages) && typeof v.model === 'string' && typeof v.timestamp === 'string';
const isEntry = (v: unknown): v is ChatHistoryEntry => isObject(v) && typeof v.id === 'string' && typeof v.title === 'string' && typeof v.timestamp === 'string';

const byRecent = <T extends { timestamp: string }>(a: T, b: T) => Date.parse(b.timestamp) - Date.parse(a.timestamp);

export function loadHistory(service: string): ChatHistoryEntry[] {
  return readList(historyKey(service), isEntry).sort(byRecent);
}

export function loadSession(service: string, id: string): ChatSession | null {
  return readList(sessionsKey(service), isSession).find((s) => s.id === id) ?? null;
}

/** data: images are megabytes each: they stay on screen but are not kept in local storage. */
function forStorage(message: ChatMessage): ChatMessage {
  if (!message.images?.some((src) => src.startsWith('data:'))) return message;
  const kept = message.images.filter((src) => !src.startsWith('data:'));
  return { ...message, images: kept, imagesNotKept: (message.imagesNotKept ?? 0) + message.images.length - kept.length };
}

/** Saves (or replaces) a session, keeping the 50 most recent; returns the new history. */
export function saveSession(service: string, session: ChatSession): ChatHistoryEntry[] {
  const stored: ChatSession = { ...session, messages: session.messages.map(forStorage) };
  const sessions = [stored, ...readList(sessionsKey(service), isSession).filter((s) => s.id !== session.id)].sort(byRecent).slice(0, MAX_SESSIONS);
  const entry: ChatHistoryEntry = { id: session.id, title: historyTitle(session.title), timestamp: session.timestamp, model: session.model, aiService: service };
  const ids = new Set(sessions.map((s) => s.id));
  const history = [entry, ...loadHistory(service).filter((h) => h.id !== session.id)].filter((h) => ids.has(h.id)).sort(byRecent).slice(0, MAX_SESSIONS);
  writeList(sessionsKey(service), sessions);
  writeList(historyKey(service), history);
  return history;
}

/** Removes a saved chat; returns the new history. */
export function deleteSession(service: string, id: string): ChatHistoryEntry[] {
  writeList(
    sessionsKey(service),
    readList(sessionsKey(service), isSession).filter((s) => s.id !== id),
  );
  const history = loadHistory(service).filter((h) => h.id !== id);
  writeList(historyKey(service), history);
  return history;
}
