import { CHAT_HISTORY_LIMITS, keptSourcesInfo, type TConversation, type TConversationMessage, type TSaveConversation, type TStoredMessage } from '../../../../contracts/chat-history.ts';
import { MAX_TOOL_STEPS_KEPT } from '../../../../contracts/assistant-tools.ts';
import { CHAT_IMAGE_LIMITS, chatImageId, chatImageUrl, type TChatProvider } from '../../../../contracts/chat.ts';
import type { ChatMessage, ChatSession, QuestionDocument } from './chat-storage.ts';

/**
 * Between a browser's chats (SPEC's local sessions) and the server's history
 * (docs/decisions/0046): what a save sends, in requests small enough for the server, and how a
 * chat read from the server and the browser's copy of it become one.
 */

const MESSAGE_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** A request stays well under the server's 1 MB body limit. */
const MAX_REQUEST_CHARS = 600_000;
const SHORTENED_NOTE = '(shortened when saved)';

const isoOr = (value: unknown, fallback: string): string => {
  const time = typeof value === 'string' || typeof value === 'number' ? new Date(value).getTime() : NaN;
  return Number.isNaN(time) ? fallback : new Date(time).toISOString();
};

/**
 * Messages with a parent each and ids the server takes. Chats saved before versions have no
 * parents: each message follows the one before it. An id the server would refuse (chats saved
 * by older clients) is replaced by one made from its place, the same every time, so saving
 * the chat again does not store it twice.
 */
export function normalizeMessages(messages: readonly ChatMessage[]): ChatMessage[] {
  const renamed = new Map<string, string>();
  const used = new Set<string>();
  let previous: string | null = null;
  return messages.map((message, i) => {
    let id = typeof message.id === 'string' && MESSAGE_ID.test(message.id) && !used.has(message.id) ? message.id : `legacy-${i}`;
    while (used.has(id)) id = `${id}x`;
    if (id !== message.id && typeof message.id === 'string') renamed.set(message.id, id);
    used.add(id);
    const parentId = message.parentId === undefined ? previous : message.parentId === null ? null : (renamed.get(message.parentId) ?? message.parentId);
    previous = id;
    return id === message.id && parentId === message.parentId ? message : { ...message, id, parentId };
  });
}

/** A message as the server stores it: its stored images by id (docs/decisions/0055); images
 * made before images were stored on the server are not kept there (nor their count lost). */
export function storedMessage(message: ChatMessage, fallbackTime: string): TStoredMessage {
  const max = CHAT_HISTORY_LIMITS.maxStoredMessageChars;
  const long = message.content.length > max;
  const note = long ? (message.note ? `${message.note} ${SHORTENED_NOTE}` : SHORTENED_NOTE) : message.note;
  const stored = (message.images ?? []).flatMap((src) => chatImageId(src) ?? []).slice(0, CHAT_IMAGE_LIMITS.maxPerMessage);
  const images = (message.images?.length ?? 0) - stored.length + (message.imagesNotKept ?? 0);
  return {
    id: message.id,
    parentId: message.parentId ?? null,
    role: message.role,
    content: long ? message.content.slice(0, max) : message.content,
    timestamp: isoOr(message.timestamp, fallbackTime),
    ...(message.model ? { model: message.model.slice(0, 100) } : {}),
    ...(note ? { note: note.slice(0, 500) } : {}),
    ...(message.finish ? { finish: message.finish } : {}),
    ...(message.failed ? { failed: true } : {}),
    ...(images > 0 ? { imagesNotKept: Math.min(images, 100) } : {}),
    ...(stored.length > 0 ? { images: stored } : {}),
    ...(message.toolSteps?.length ? { toolSteps: message.toolSteps.slice(0, MAX_TOOL_STEPS_KEPT) } : {}),
    ...(message.role === 'user' && message.documents?.length ? { documents: message.documents.map((d) => d.id) } : {}),
    ...(message.role === 'assistant' && message.citations?.length ? { citations: message.citations } : {}),
    ...(message.role === 'assistant' ? keptSourcesInfo(message.sourcesNote, null) : {}),
  };
}

export type SaveFields = Omit<TSaveConversation, 'messages'>;

/**
 * The save requests for a chat: the messages the server does not have yet (none still
 * streaming), a few hundred kilobytes and at most 500 at a time, parents before children. Only
 * the last request names the branch in view (its leaf is then stored); the others name none.
 * A leaf still streaming is shown from its question.
 */
export function saveRequests(fields: SaveFields, messages: readonly ChatMessage[], synced: ReadonlySet<string>): TSaveConversation[] {
  const byId = new Map(messages.map((m) => [m.id, m]));
  let leafId = fields.leafId;
  while (leafId && byId.get(leafId)?.streaming) leafId = byId.get(leafId)!.parentId ?? null;
  const fresh = messages.filter((m) => !synced.has(m.id) && !m.streaming).map((m) => storedMessage(m, fields.updatedAt));
  const requests: TSaveConversation[] = [];
  let batch: TStoredMessage[] = [];
  let size = 0;
  for (const message of fresh) {
    // A message's tool steps may carry a test on history's table (issue 31): counted with its text.
    const chars = message.content.length + (message.toolSteps ? JSON.stringify(message.toolSteps).length : 0) + 200;
    if (batch.length > 0 && (batch.length >= CHAT_HISTORY_LIMITS.maxMessagesPerSave || size + chars > MAX_REQUEST_CHARS)) {
      requests.push({ ...fields, leafId: null, messages: batch });
      batch = [];
      size = 0;
    }
    batch.push(message);
    size += chars;
  }
  requests.push({ ...fields, leafId, messages: batch });
  return requests;
}

/** The fields a save sends for a local session. */
export function saveFields(provider: TChatProvider, session: ChatSession): SaveFields {
  return {
    id: session.id,
    provider,
    title: session.title.slice(0, 200),
    model: session.model.slice(0, 100) || 'unknown',
    leafId: session.leafId ?? session.messages.at(-1)?.id ?? null,
    ...(session.systemPrompt !== undefined ? { systemPrompt: session.systemPrompt } : {}),
    ...(session.temperature !== undefined ? { temperature: session.temperature } : {}),
    ...(typeof session.useAgents === 'boolean' ? { useAgents: session.useAgents } : {}),
    ...(typeof session.webSearch === 'boolean' ? { webSearch: session.webSearch } : {}),
    // The server takes it when it makes the chat (a move after that is a PATCH).
    ...(session.projectId ? { projectId: session.projectId } : {}),
    updatedAt: isoOr(session.timestamp, new Date().toISOString()),
  };
}

/** A question's documents as the server names them (docs/decisions/0088): each file's name, type and
 * state, or removed; an older server's ids alone. */
function questionDocuments(message: TConversationMessage): QuestionDocument[] {
  const files = new Map((message.documentFiles ?? []).map((f) => [f.id, f]));
  return (message.documents ?? []).map((id) => {
    const file = files.get(id);
    if (!file) return { id };
    return 'removed' in file ? { id, removed: true } : { id, name: file.name, type: file.type, status: file.status };
  });
}

/** The server's chat as this browser keeps it (SPEC's session, with ours). */
export function sessionFromServer(conversation: TConversation, userId: string | undefined): ChatSession {
  return {
    id: conversation.id,
    messages: conversation.messages.map((m) => ({
      id: m.id,
      parentId: m.parentId,
      role: m.role,
      content: m.content,
      timestamp: m.timestamp,
      ...(m.model ? { model: m.model } : {}),
      ...(m.note ? { note: m.note } : {}),
      ...(m.finish ? { finish: m.finish } : {}),
      ...(m.failed ? { failed: true } : {}),
      ...(m.imagesNotKept ? { imagesNotKept: m.imagesNotKept } : {}),
      ...(m.images?.length ? { images: m.images.map(chatImageUrl) } : {}),
      ...(m.toolSteps?.length ? { toolSteps: m.toolSteps } : {}),
      ...(m.documents?.length ? { documents: questionDocuments(m) } : {}),
      ...(m.citations?.length ? { citations: m.citations } : {}),
      ...(m.sourcesNote ? { sourcesNote: m.sourcesNote } : {}),
      // Still being written by the server (docs/decisions/0056): the screen joins it.
      ...(m.streaming ? { streaming: true } : {}),
    })),
    title: conversation.autoTitle,
    model: conversation.model,
    timestamp: conversation.updatedAt,
    leafId: conversation.leafId,
    customTitle: conversation.renamed ? conversation.title : null,
    systemPrompt: conversation.systemPrompt,
    temperature: conversation.temperature,
    useAgents: conversation.useAgents ?? null,
    ...(typeof conversation.webSearch === 'boolean' ? { webSearch: conversation.webSearch } : {}),
    projectId: conversation.projectId ?? null,
    ...(userId ? { userId } : {}),
  };
}

/**
 * The server's chat and this browser's copy as one: every message either has (messages never
 * change once saved, so the union loses nothing), in the server's order and then the browser's
 * own. The browser's branch, title and settings win while it holds changes the server has not
 * seen; else the server's do.
 */
export function mergeSessions(server: ChatSession, local: ChatSession | null): ChatSession {
  if (!local) return server;
  const known = new Set(server.messages.map((m) => m.id));
  const own = normalizeMessages(local.messages).filter((m) => !known.has(m.id));
  const messages = [...server.messages, ...own];
  return local.unsynced ? { ...server, ...pick(local), messages, unsynced: true } : { ...server, messages, unsynced: own.length > 0 };
}

const pick = (s: ChatSession) => ({
  title: s.title,
  model: s.model,
  leafId: s.leafId,
  ...(s.customTitle !== undefined ? { customTitle: s.customTitle } : {}),
  ...(s.systemPrompt !== undefined ? { systemPrompt: s.systemPrompt } : {}),
  ...(s.temperature !== undefined ? { temperature: s.temperature } : {}),
  ...(s.useAgents !== undefined ? { useAgents: s.useAgents } : {}),
  ...(s.webSearch !== undefined ? { webSearch: s.webSearch } : {}),
});
