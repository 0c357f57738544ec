import { and, asc, count, desc, eq, getTableColumns, inArray, isNotNull, isNull, lt, lte, or, sql } from 'drizzle-orm';
import type { TChatProvider } from '../../../contracts/chat.ts';
import type { Db } from '../../db/client.ts';
import { chatConversations, chatMessages, chatPresets, documents, projects } from '../../db/schema.ts';

/** Any connection or transaction: repo functions run inside the caller's transaction. */
type Tx = Pick<Db, 'select' | 'insert' | 'update' | 'delete' | 'execute'>;

export type ConversationRow = typeof chatConversations.$inferSelect;
/** A conversation with whether an answer of it is being written now (docs/decisions/0056). */
export type ListedConversation = ConversationRow & { answering: boolean };
export type MessageRow = typeof chatMessages.$inferSelect;
export type NewMessage = Omit<typeof chatMessages.$inferInsert, 'seq'>;
export type PresetRow = typeof chatPresets.$inferSelect;

/** The text-search configuration of the indexes (english: 'invoices' finds 'invoice'). */
const TEXT_SEARCH = sql.raw(`'english'`);

/** The user's conversation with this chat id; `lock` holds it until the transaction ends. */
export async function findConversation(db: Tx, userId: string, chatId: string, { lock = false } = {}): Promise<ConversationRow | undefined> {
  const query = db
    .select()
    .from(chatConversations)
    .where(and(eq(chatConversations.userId, userId), eq(chatConversations.chatId, chatId)));
  const [row] = lock ? await query.for('update') : await query;
  return row;
}

export async function countConversations(db: Tx, userId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(chatConversations).where(eq(chatConversations.userId, userId));
  return row?.n ?? 0;
}

/** Inserts a conversation unless the user has one with its chat id; undefined when they have. */
export async function insertConversation(db: Tx, row: typeof chatConversations.$inferInsert): Promise<ConversationRow | undefined> {
  const [created] = await db.insert(chatConversations).values(row).onConflictDoNothing({ target: [chatConversations.userId, chatConversations.chatId] }).returning();
  return created;
}

export async function updateConversation(db: Tx, id: string, fields: Partial<Omit<typeof chatConversations.$inferInsert, 'id' | 'userId' | 'chatId'>>): Promise<ConversationRow> {
  const [row] = await db.update(chatConversations).set(fields).where(eq(chatConversations.id, id)).returning();
  return row!;
}

/** Deletes the user's conversation and its messages; false when they have none with this id. */
export async function deleteConversation(db: Tx, userId: string, chatId: string): Promise<boolean> {
  const removed = await db
    .delete(chatConversations)
    .where(and(eq(chatConversations.userId, userId), eq(chatConversations.chatId, chatId)))
    .returning({ id: chatConversations.id });
  return removed.length > 0;
}

export type ListOptions = { provider?: TChatProvider; projectId?: string; q?: string; before?: { updatedAt: Date; chatId: string }; limit: number };

/**
 * The user's conversations, pinned ones first (issue 32), then most recently updated first, a
 * page at a time (keyed by updated_at and chat id, so a page never repeats or skips one; the
 * page's last chat says whether the next page goes on among the pinned ones or past them).
 * `projectId` keeps one project's chats. `q` is matched as a web search (`websearch_to_tsquery`:
 * words, "phrases", -exclusions, or) against the title, every message and the chat's project's
 * name through their text-search indexes, and as plain text within the title and the project's
 * name, so a word still being typed finds the chats named with it.
 */
export async function listConversations(db: Tx, userId: string, { provider, projectId, q, before, limit }: ListOptions, now: Date): Promise<ListedConversation[]> {
  const conditions = [eq(chatConversations.userId, userId)];
  if (provider) conditions.push(eq(chatConversations.provider, provider));
  if (projectId) conditions.push(eq(chatConversations.projectId, projectId));
  if (before) {
    const older = or(lt(chatConversations.updatedAt, before.updatedAt), and(eq(chatConversations.updatedAt, before.updatedAt), lt(chatConversations.chatId, before.chatId)))!;
    // Whether the page ended among the pinned chats: its last chat's pin (a chat deleted since: not pinned).
    const endedPinned = sql`coalesce((select c2."pinned" from "chat_conversations" c2 where c2."user_id" = ${userId} and c2."chat_id" = ${before.chatId}), false)`;
    conditions.push(sql`case when ${endedPinned} then (not ${chatConversations.pinned} or ${older}) else (not ${chatConversations.pinned} and ${older}) end`);
  }
  if (q) {
    const query = sql`websearch_to_tsquery(${TEXT_SEARCH}, ${q})`;
    const pattern = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    conditions.push(
      or(
        sql`to_tsvector(${TEXT_SEARCH}, coalesce(${chatConversations.customTitle}, ${chatConversations.title})) @@ ${query}`,
        sql`coalesce(${chatConversations.customTitle}, ${chatConversations.title}) ilike ${pattern}`,
        sql`exists (select 1 from ${chatMessages} where ${chatMessages.conversationId} = ${chatConversations.id} and to_tsvector(${TEXT_SEARCH}, ${chatMessages.content}) @@ ${query})`,
        sql`exists (select 1 from ${projects} where ${projects.id} = ${chatConversations.projectId} and (to_tsvector(${TEXT_SEARCH}, ${projects.name}) @@ ${query} or ${projects.name} ilike ${pattern}))`,
      )!,
    );
  }
  return db
    .select({
      ...getTableColumns(chatConversations),
      // Qualified by hand: in a select list drizzle names a column without its table.
      answering: sql<boolean>`exists (select 1 from "chat_messages" m where m."conversation_id" = "chat_conversations"."id" and m."streaming_until" > ${now.toISOString()}::timestamptz)`,
    })
    .from(chatConversations)
    .where(and(...conditions))
    .orderBy(desc(chatConversations.pinned), desc(chatConversations.updatedAt), desc(chatConversations.chatId))
    .limit(limit);
}

/** Every message of a conversation, in the order they were stored. */
export async function listMessages(db: Tx, conversationId: string): Promise<MessageRow[]> {
  return db.select().from(chatMessages).where(eq(chatMessages.conversationId, conversationId)).orderBy(asc(chatMessages.seq));
}

/** How many messages and characters a conversation holds. */
export async function messageTotals(db: Tx, conversationId: string): Promise<{ messages: number; chars: number }> {
  const [row] = await db
    .select({ messages: count(), chars: sql<number>`coalesce(sum(length(${chatMessages.content})), 0)`.mapWith(Number) })
    .from(chatMessages)
    .where(eq(chatMessages.conversationId, conversationId));
  return row ?? { messages: 0, chars: 0 };
}

/** The ids among `ids` that the conversation holds. */
export async function existingMessageIds(db: Tx, conversationId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .select({ id: chatMessages.id })
    .from(chatMessages)
    .where(and(eq(chatMessages.conversationId, conversationId), inArray(chatMessages.id, [...ids])));
  return new Set(rows.map((r) => r.id));
}

/** Stores new messages; one the conversation already holds (by id) is left as it is. */
export async function insertMessages(db: Tx, rows: NewMessage[]): Promise<number> {
  if (rows.length === 0) return 0;
  const inserted = await db.insert(chatMessages).values(rows).onConflictDoNothing().returning({ id: chatMessages.id });
  return inserted.length;
}

// --- answers being written (docs/decisions/0056) ------------------------------------------------

/** One message of a conversation, or none. */
export async function findMessage(db: Tx, conversationId: string, id: string): Promise<MessageRow | undefined> {
  const [row] = await db
    .select()
    .from(chatMessages)
    .where(and(eq(chatMessages.conversationId, conversationId), eq(chatMessages.id, id)));
  return row;
}

/** The newest answer being written under `parentId`, if any. */
export async function streamingChildOf(db: Tx, conversationId: string, parentId: string): Promise<string | undefined> {
  const [row] = await db
    .select({ id: chatMessages.id })
    .from(chatMessages)
    .where(and(eq(chatMessages.conversationId, conversationId), eq(chatMessages.parentId, parentId), isNotNull(chatMessages.streamingUntil)))
    .orderBy(desc(chatMessages.seq))
    .limit(1);
  return row?.id;
}

/** Saves the text and tool steps so far of an answer still being written and renews its lease; says whether Stop
 * was asked for it elsewhere, or that it is not being written (deleted, or ended). */
export async function saveAnswerText(
  db: Tx,
  conversationId: string,
  id: string,
  content: string,
  toolSteps: MessageRow['toolSteps'],
  streamingUntil: Date,
): Promise<{ stopRequested: boolean } | undefined> {
  const [row] = await db
    .update(chatMessages)
    .set({ content, toolSteps, streamingUntil })
    .where(and(eq(chatMessages.conversationId, conversationId), eq(chatMessages.id, id), isNotNull(chatMessages.streamingUntil)))
    .returning({ stopRequested: chatMessages.stopRequested });
  return row;
}

/** Ends an answer being written: its last text, note and finish; from then on the row never changes. */
export async function endAnswer(db: Tx, conversationId: string, id: string, fields: Pick<MessageRow, 'content' | 'note' | 'imageIds' | 'model' | 'finish' | 'toolSteps'>): Promise<boolean> {
  const rows = await db
    .update(chatMessages)
    .set({ ...fields, streamingUntil: null, stopRequested: false })
    .where(and(eq(chatMessages.conversationId, conversationId), eq(chatMessages.id, id), isNotNull(chatMessages.streamingUntil)))
    .returning({ id: chatMessages.id });
  return rows.length > 0;
}

/**
 * Takes the recording of an answer's usage (docs/decisions/0061): true when the caller is to
 * record it (it was unsettled, or the answer is gone with its chat: its tokens were spent all the
 * same); false when the sweep of answers whose writer died settled it already.
 */
export async function claimAnswerUsage(db: Tx, conversationId: string, id: string): Promise<boolean> {
  const key = and(eq(chatMessages.conversationId, conversationId), eq(chatMessages.id, id));
  const [claimed] = await db
    .update(chatMessages)
    .set({ unsettledInputTokens: null, reservationId: null })
    .where(and(key, isNotNull(chatMessages.unsettledInputTokens)))
    .returning({ id: chatMessages.id });
  if (claimed) return true;
  const [kept] = await db.select({ id: chatMessages.id }).from(chatMessages).where(key);
  return kept === undefined;
}

/** An answer whose writer's lease ran out, with what settling it needs. */
export type LapsedAnswer = Pick<MessageRow, 'conversationId' | 'id' | 'content' | 'model' | 'unsettledInputTokens' | 'reservationId' | 'streamingUntil' | 'createdAt'> &
  Pick<ConversationRow, 'userId' | 'chatId' | 'provider'>;

/**
 * Answers still marked as being written whose lease ended at or before `before` (their writer
 * stopped renewing it: its process died), locked for the caller's transaction; rows another
 * transaction holds are skipped, so two processes sweeping at once settle each answer once.
 */
export async function lockLapsedAnswers(tx: Tx, before: Date, limit: number): Promise<LapsedAnswer[]> {
  return tx
    .select({
      conversationId: chatMessages.conversationId,
      id: chatMessages.id,
      content: chatMessages.content,
      model: chatMessages.model,
      unsettledInputTokens: chatMessages.unsettledInputTokens,
      reservationId: chatMessages.reservationId,
      streamingUntil: chatMessages.streamingUntil,
      createdAt: chatMessages.createdAt,
      userId: chatConversations.userId,
      chatId: chatConversations.chatId,
      provider: chatConversations.provider,
    })
    .from(chatMessages)
    .innerJoin(chatConversations, eq(chatConversations.id, chatMessages.conversationId))
    .where(and(isNotNull(chatMessages.streamingUntil), lte(chatMessages.streamingUntil, before)))
    .orderBy(asc(chatMessages.streamingUntil))
    .limit(limit)
    .for('update', { of: chatMessages, skipLocked: true });
}

/** When the first lease of an answer still marked as being written ends; null when none is. */
export async function firstLeaseEnd(db: Tx): Promise<Date | null> {
  const [row] = await db
    .select({ until: chatMessages.streamingUntil })
    .from(chatMessages)
    .where(isNotNull(chatMessages.streamingUntil))
    .orderBy(asc(chatMessages.streamingUntil))
    .limit(1);
  return row?.until ?? null;
}

/** Ends an answer whose writer died: as far as it was saved, with why, its usage settled. */
export async function endLapsedAnswer(tx: Tx, conversationId: string, id: string, fields: Pick<MessageRow, 'note' | 'finish'>): Promise<void> {
  await tx
    .update(chatMessages)
    .set({ ...fields, streamingUntil: null, stopRequested: false, unsettledInputTokens: null, reservationId: null })
    .where(and(eq(chatMessages.conversationId, conversationId), eq(chatMessages.id, id)));
}

/** Removes an answer that ended before any text (the browser keeps its own failure message). */
export async function dropAnswer(db: Tx, conversationId: string, id: string): Promise<void> {
  await db.delete(chatMessages).where(and(eq(chatMessages.conversationId, conversationId), eq(chatMessages.id, id), isNotNull(chatMessages.streamingUntil)));
}

/** The branch in view ends at `to` instead of `from` (when it ended at `from`). */
export async function moveLeaf(db: Tx, conversationId: string, from: string, to: string | null): Promise<void> {
  await db
    .update(chatConversations)
    .set({ leafId: to })
    .where(and(eq(chatConversations.id, conversationId), eq(chatConversations.leafId, from)));
}

/** Asks the process writing an answer to stop it; false when the answer is not being written. */
export async function requestAnswerStop(db: Tx, conversationId: string, id: string): Promise<boolean> {
  const rows = await db
    .update(chatMessages)
    .set({ stopRequested: true })
    .where(and(eq(chatMessages.conversationId, conversationId), eq(chatMessages.id, id), isNotNull(chatMessages.streamingUntil)))
    .returning({ id: chatMessages.id });
  return rows.length > 0;
}

// --- presets -----------------------------------------------------------------------------------

export async function listPresets(db: Tx, userId: string): Promise<PresetRow[]> {
  return db.select().from(chatPresets).where(eq(chatPresets.userId, userId)).orderBy(asc(sql`lower(${chatPresets.name})`), asc(chatPresets.id));
}

export async function countPresets(db: Tx, userId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(chatPresets).where(eq(chatPresets.userId, userId));
  return row?.n ?? 0;
}

export async function findPreset(db: Tx, userId: string, id: string): Promise<PresetRow | undefined> {
  const [row] = await db.select().from(chatPresets).where(and(eq(chatPresets.id, id), eq(chatPresets.userId, userId)));
  return row;
}

/** Another of the user's presets with this name (any case), or none. */
export async function presetNamed(db: Tx, userId: string, name: string, exceptId?: string): Promise<PresetRow | undefined> {
  const [row] = await db
    .select()
    .from(chatPresets)
    .where(and(eq(chatPresets.userId, userId), sql`lower(${chatPresets.name}) = lower(${name})`, exceptId ? sql`${chatPresets.id} <> ${exceptId}` : undefined));
  return row;
}

export async function insertPreset(db: Tx, row: typeof chatPresets.$inferInsert): Promise<PresetRow> {
  const [created] = await db.insert(chatPresets).values(row).returning();
  return created!;
}

export async function updatePreset(db: Tx, userId: string, id: string, fields: Partial<Pick<PresetRow, 'name' | 'systemPrompt' | 'temperature' | 'updatedAt'>>): Promise<PresetRow | undefined> {
  const [row] = await db
    .update(chatPresets)
    .set(fields)
    .where(and(eq(chatPresets.id, id), eq(chatPresets.userId, userId)))
    .returning();
  return row;
}

export async function deletePreset(db: Tx, userId: string, id: string): Promise<boolean> {
  const removed = await db
    .delete(chatPresets)
    .where(and(eq(chatPresets.id, id), eq(chatPresets.userId, userId)))
    .returning({ id: chatPresets.id });
  return removed.length > 0;
}

/**
 * The documents questions of this chat carry (issue 32): those of the user's among `ids` (others
 * are absent, and the caller refuses them), and the unattached ones tied to the chat, so that
 * deleting the chat deletes them. A project's knowledge stays the project's.
 */
export async function claimDocuments(db: Tx, userId: string, conversationId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const owned = await db
    .select({ id: documents.id })
    .from(documents)
    .where(and(eq(documents.userId, userId), inArray(documents.id, [...ids])));
  await db
    .update(documents)
    .set({ conversationId })
    .where(and(eq(documents.userId, userId), inArray(documents.id, [...ids]), isNull(documents.conversationId), isNull(documents.projectId)));
  return new Set(owned.map((r) => r.id));
}

/** The user's project's instructions (issue 32), or undefined when it is not theirs. */
export async function projectInstructions(db: Tx, userId: string, projectId: string): Promise<string | undefined> {
  const [row] = await db.select({ instructions: projects.instructions }).from(projects).where(and(eq(projects.userId, userId), eq(projects.id, projectId)));
  return row?.instructions;
}

/** The project the user's kept chat is in (issue 32), or undefined when it is in none or not kept yet. */
/** A stored chat's project: its id, null when it is in none, undefined when the chat is not stored. */
export async function conversationProject(db: Tx, userId: string, chatId: string): Promise<string | null | undefined> {
  const [row] = await db
    .select({ projectId: chatConversations.projectId })
    .from(chatConversations)
    .where(and(eq(chatConversations.userId, userId), eq(chatConversations.chatId, chatId)));
  return row === undefined ? undefined : row.projectId;
}

/** The user's documents among `ids` with their names, types and states (issue 32): the history
 * names a question's files by these. Another user's id is absent, as a removed file's is. */
export async function documentFiles(db: Tx, userId: string, ids: readonly string[]): Promise<Array<Pick<typeof documents.$inferSelect, 'id' | 'name' | 'type' | 'status'>>> {
  if (ids.length === 0) return [];
  return db
    .select({ id: documents.id, name: documents.name, type: documents.type, status: documents.status })
    .from(documents)
    .where(and(eq(documents.userId, userId), inArray(documents.id, [...ids])));
}
