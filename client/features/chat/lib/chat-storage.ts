import type { TToolStep } from '../../../../contracts/assistant-tools.ts';
import type { TChatFinish } from '../../../../contracts/chat.ts';
import type { TCitation, TDocumentStatus, TDocumentType } from '../../../../contracts/documents.ts';
import { CLOCK, DATE, calendarDaysBetween, formatTime } from '../../../../contracts/time-format.ts';

/** SPEC section 3: a chat message; id, images, the notes and its place among versions are ours. */
export type ChatMessage = {
  id: string;
  /** The message it follows (null: the chat's first); an edit or a new answer is a sibling of
   * the version it replaces (docs/decisions/0048). Missing in chats saved before versions:
   * each follows the one before it. */
  parentId?: string | null;
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
  /** Shown under the text: '(stopped)', or why the answer is not whole (cut short, empty). */
  note?: string;
  /** How the answer ended (docs/decisions/0061): 'length' offers Continue. */
  finish?: TChatFinish;
  /** Our own error message ('Sorry, I encountered an error: ...'): never sent to the model. */
  failed?: boolean;
  /** The tool steps the answer took (issue 31), shown where they happened in its text. */
  toolSteps?: TToolStep[];
  /** The documents a question carries (issue 32): their ids, with name, type and state when this browser attached them. */
  documents?: QuestionDocument[];
  /** The sources an answer may cite as [n] (issue 32), and how they were found (full text only, files without text, a failed web search). */
  citations?: TCitation[];
  sourcesNote?: string;
  /** Still arriving: not saved to the server until it ends. */
  streaming?: boolean;
};

/** A document a question carries (issue 32): its name, type and state as this browser attached it or
 * the server names it; `removed` once the file was deleted; only its id from an older server. */
export type QuestionDocument = { id: string; name?: string; type?: TDocumentType; status?: TDocumentStatus; removed?: true };

/** A chat's own settings (docs/decisions/0047); "Use my agents" (issue 31): null until the chat sets it (on for admins);
 * "Search the web" (issue 32): off until the chat turns it on; the project it is in (issue 32): null for none. */
export type ChatSettings = { systemPrompt: string; temperature: number | null; useAgents: boolean | null; webSearch?: boolean | null; projectId: string | null };
export const DEFAULT_SETTINGS: ChatSettings = { systemPrompt: '', temperature: null, useAgents: null, projectId: null };
/** A saved chat's settings, its own or the defaults. */
export const settingsOf = (session: Pick<ChatSession, 'systemPrompt' | 'temperature' | 'useAgents' | 'webSearch' | 'projectId'>): ChatSettings => ({
  systemPrompt: session.systemPrompt ?? '',
  temperature: session.temperature ?? null,
  useAgents: session.useAgents ?? null,
  ...(typeof session.webSearch === 'boolean' ? { webSearch: session.webSearch } : {}),
  projectId: session.projectId ?? null,
});

/**
 * SPEC section 3: a saved chat (local storage, per service), SPEC's fields first. Ours: the
 * branch in view, the user's own title, the chat's settings, whose chat it is (a browser may be
 * shared) and whether the server has all of it yet.
 */
export type ChatSession = {
  id: string;
  messages: ChatMessage[];
  title: string;
  model: string;
  timestamp: string;
  leafId?: string | null;
  customTitle?: string | null;
  systemPrompt?: string;
  temperature?: number | null;
  useAgents?: boolean | null;
  webSearch?: boolean | null;
  projectId?: string | null;
  userId?: string;
  unsynced?: boolean;
};

/** SPEC section 3: the sidebar's entry for a saved chat (userId and unsynced: as its session's). */
export type ChatHistoryEntry = {
  id: string;
  title: string;
  timestamp: string;
  model: string;
  aiService: string;
  userId?: string;
  unsynced?: boolean;
  /** Ours (issue 32), from the server's list: pinned chats head it; the project it is in. */
  pinned?: boolean;
  projectId?: string | null;
};

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

/** SPEC's sidebar date: the time of day if today, 'Yesterday', '{n} days ago' under a week, else
 * the full date; days and times in `zone` (the one every time is shown in), a time named. */
export function relativeDateLabel(timestamp: string | number | Date, now: Date, zone: string): string {
  const date = new Date(timestamp);
  if (Number.isNaN(date.getTime())) return '';
  const days = calendarDaysBetween(now, date, zone);
  if (days <= 0) return formatTime(date, CLOCK, zone);
  if (days === 1) return 'Yesterday';
  if (days < 7) return `${days} days ago`;
  return formatTime(date, DATE, zone);
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

/** Whether a saved chat may be shown to this user: theirs, or saved before chats had owners. */
export const visibleTo = (userId: string | undefined) => (item: { userId?: string }) => !item.userId || !userId || item.userId === userId;

export function loadHistory(service: string, userId?: string): ChatHistoryEntry[] {
  return readList(historyKey(service), isEntry).filter(visibleTo(userId)).sort(byRecent);
}

export function loadSession(service: string, id: string, userId?: string): ChatSession | null {
  const session = readList(sessionsKey(service), isSession).find((s) => s.id === id);
  return session && visibleTo(userId)(session) ? session : null;
}

/** Every saved chat of the service, the other users' too. */
export function loadSessions(service: string): ChatSession[] {
  return readList(sessionsKey(service), isSession);
}

/** data: images are megabytes each: they stay on screen but are not kept in local storage. A
 * message still streaming is kept as far as it got. */
function forStorage(message: ChatMessage): ChatMessage {
  const { streaming: _streaming, ...kept } = message;
  if (!kept.images?.some((src) => src.startsWith('data:'))) return kept;
  const images = kept.images.filter((src) => !src.startsWith('data:'));
  return { ...kept, images, imagesNotKept: (kept.imagesNotKept ?? 0) + kept.images.length - images.length };
}

const entryOf = (service: string, session: ChatSession): ChatHistoryEntry => ({
  id: session.id,
  title: historyTitle(session.customTitle || session.title),
  timestamp: session.timestamp,
  model: session.model,
  aiService: service,
  ...(session.userId ? { userId: session.userId } : {}),
  ...(session.unsynced ? { unsynced: true } : {}),
});

/** Saves (or replaces) a session, keeping the 50 most recent; returns the new history (the
 * user's, when given). */
export function saveSession(service: string, session: ChatSession, userId?: string): ChatHistoryEntry[] {
  const stored: ChatSession = { ...session, messages: session.messages.map(forStorage) };
  const sessions = [stored, ...readList(sessionsKey(service), isSession).filter((s) => s.id !== session.id)].sort(byRecent).slice(0, MAX_SESSIONS);
  const ids = new Set(sessions.map((s) => s.id));
  const history = [entryOf(service, session), ...readList(historyKey(service), isEntry).filter((h) => h.id !== session.id)]
    .filter((h) => ids.has(h.id))
    .sort(byRecent)
    .slice(0, MAX_SESSIONS);
  writeList(sessionsKey(service), sessions);
  writeList(historyKey(service), history);
  return history.filter(visibleTo(userId));
}

/** Changes saved sessions in place (their order and timestamps stay); returns the history. */
export function updateSessions(service: string, change: (session: ChatSession) => ChatSession | null, userId?: string): ChatHistoryEntry[] {
  const sessions = readList(sessionsKey(service), isSession);
  let changed = false;
  const next = sessions.map((s) => {
    const updated = change(s);
    if (!updated || updated === s) return s;
    changed = true;
    return updated;
  });
  if (changed) {
    const byId = new Map(next.map((s) => [s.id, s]));
    writeList(sessionsKey(service), next);
    writeList(
      historyKey(service),
      readList(historyKey(service), isEntry).map((h) => (byId.has(h.id) ? entryOf(service, byId.get(h.id)!) : h)),
    );
  }
  return loadHistory(service, userId);
}

/** Removes a saved chat; returns the new history (the user's, when given). */
export function deleteSession(service: string, id: string, userId?: string): ChatHistoryEntry[] {
  writeList(
    sessionsKey(service),
    readList(sessionsKey(service), isSession).filter((s) => s.id !== id),
  );
  const history = readList(historyKey(service), isEntry).filter((h) => h.id !== id);
  writeList(historyKey(service), history);
  return history.filter(visibleTo(userId)).sort(byRecent);
}
