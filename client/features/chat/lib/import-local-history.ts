import '../../../lib/zod-csp.ts';
import { CHAT_HISTORY_LIMITS, type TSaveConversation } from '../../../../contracts/chat-history.ts';
import { CHAT_PROVIDER_INFO, CHAT_PROVIDERS } from '../../../../contracts/chat.ts';
import { importConversations, saveConversation } from '../api/chat-api.ts';
import { loadSessions, updateSessions } from './chat-storage.ts';
import { normalizeMessages, saveFields, saveRequests } from './chat-sync.ts';

/** Set once this browser's saved chats are on the server for this user (the app checks it before
 * loading this module: client/app/router.tsx). */
export const importMarkerKey = (userId: string) => `chat-history-imported-${userId}`;

/** An import request stays well under the server's 1 MB body limit. */
const MAX_BATCH_CHARS = 600_000;
const size = (conversation: TSaveConversation) => conversation.messages.reduce((sum, m) => sum + m.content.length + 200, 500);

/**
 * Brings this browser's saved chats (SPEC's chat-sessions-{service}) to the user's history on
 * the server, once per user and browser (docs/decisions/0046). Only chats saved before chats had
 * owners, or saved by this user, are taken (a browser may be shared); they are then marked as
 * this user's. The server keeps each chat once by its id, so an import cut short and run again,
 * or run from two tabs, stores nothing twice. Resolves true when it imported anything; throws
 * when the server could not take them (the next page load tries again).
 */
export async function importLocalHistory(userId: string): Promise<boolean> {
  if (localStorage.getItem(importMarkerKey(userId))) return false;
  const batches: TSaveConversation[][] = [];
  /** A chat too big for one request: imported part by part, then its branch in view saved. */
  const large: TSaveConversation[][] = [];
  let batch: TSaveConversation[] = [];
  let batchChars = 0;
  const imported: Array<{ service: string; id: string; timestamp: string }> = [];

  for (const provider of CHAT_PROVIDERS) {
    const service = CHAT_PROVIDER_INFO[provider].storageService;
    for (const session of loadSessions(service)) {
      if ((session.userId && session.userId !== userId) || session.messages.length === 0) continue;
      const messages = normalizeMessages(session.messages);
      const requests = saveRequests(saveFields(provider, { ...session, messages }), messages, new Set());
      imported.push({ service, id: session.id, timestamp: session.timestamp });
      if (requests.length > 1) {
        large.push(requests);
        continue;
      }
      const conversation = requests[0]!;
      if (batch.length > 0 && (batch.length >= CHAT_HISTORY_LIMITS.maxImportBatch || batchChars + size(conversation) > MAX_BATCH_CHARS)) {
        batches.push(batch);
        batch = [];
        batchChars = 0;
      }
      batch.push(conversation);
      batchChars += size(conversation);
    }
  }
  if (batch.length > 0) batches.push(batch);

  for (const conversations of batches) await importConversations({ conversations });
  for (const parts of large) {
    for (const part of parts) await importConversations({ conversations: [part] });
    await saveConversation({ ...parts.at(-1)!, messages: [] });
  }

  const ids = new Map(imported.map((c) => [`${c.service}\u0000${c.id}`, c.timestamp]));
  for (const service of new Set(imported.map((c) => c.service))) {
    updateSessions(service, (s) => (ids.get(`${service}\u0000${s.id}`) === s.timestamp ? { ...s, userId, unsynced: false } : s));
  }
  localStorage.setItem(importMarkerKey(userId), new Date().toISOString());
  return imported.length > 0;
}
