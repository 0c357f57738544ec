import {
  CHAT_HISTORY_LIMITS,
  MAX_PRESETS,
  type TConversationMessage,
  conversationMarkdown,
  exportFileName,
  keptSourcesInfo,
  type TMessageDocumentFile,
  type TConversation,
  type TConversationInfo,
  type TConversationList,
  type TConversationSummary,
  type TImportResult,
  type TPreset,
  type TSaveResult,
} from '../../../contracts/chat-history.ts';
import type { z } from 'zod';
import type {
  ZConversationListQuery,
  ZCreatePreset,
  ZImportConversations,
  ZSaveConversation,
  ZUpdateConversation,
  ZUpdatePreset,
} from '../../../contracts/chat-history.ts';
import { MAX_TOOL_STEPS_KEPT, type TToolStep } from '../../../contracts/assistant-tools.ts';
import { CHAT_PROVIDER_INFO, cutShortNote, type TChatFinish, type TChatProvider, type ZAnswerTarget } from '../../../contracts/chat.ts';
import type { Db } from '../../db/client.ts';
import { uniqueNameRule } from '../../lib/db-errors.ts';
import { AppError, type ErrorDetail } from '../../lib/errors.ts';
import {
  countConversations,
  countPresets,
  deleteConversation,
  deletePreset,
  dropAnswer,
  endAnswer,
  existingMessageIds,
  findMessage,
  findConversation,
  findPreset,
  insertConversation,
  insertMessages,
  insertPreset,
  listConversations,
  listMessages,
  listPresets,
  messageTotals,
  moveLeaf,
  presetNamed,
  requestAnswerStop,
  saveAnswerText,
  streamingChildOf,
  updateConversation,
  updatePreset,
  type ConversationRow,
  type MessageRow,
  type NewMessage,
  type PresetRow,
  claimDocuments,
  documentFiles,
} from './conversations.repo.ts';
import type { ImagesService } from './images.service.ts';
import type { TCitation, TRetrievalInfo } from '../../../contracts/documents.ts';

type SaveInput = z.output<typeof ZSaveConversation>;
type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

/** The user's project, or a 404 for anyone else's (the projects module). */
export type ProjectOwnership = { owned(userId: string, projectId: string): Promise<unknown> };

export type ConversationsServiceDeps = { db: Db; images: ImagesService; projects: ProjectOwnership; now?: () => Date };

const NOT_FOUND = 'Chat not found';
const PRESET_NOT_FOUND = 'Preset not found';

function summary(row: ConversationRow, answering = false): TConversationSummary {
  return {
    id: row.chatId,
    provider: row.provider,
    title: row.customTitle ?? row.title,
    renamed: row.customTitle !== null,
    model: row.model,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    answering,
    projectId: row.projectId,
    pinned: row.pinned,
  };
}

/** The note of an answer whose writer went away (a process that stopped mid-answer), whether
 * its usage is settled yet or not (interrupted-answers.ts). */
export const WRITER_GONE_NOTE = cutShortNote('the server stopped before the answer was complete. Please try again.');

/** An answer's steps as a row keeps them: null for none, at most MAX_TOOL_STEPS_KEPT. */
const keptSteps = (steps: readonly TToolStep[]): TToolStep[] | null => (steps.length > 0 ? steps.slice(0, MAX_TOOL_STEPS_KEPT) : null);

/** Whether an answer is still being written at `at`: its writer renewed its lease lately. */
export const isStreaming = (row: Pick<MessageRow, 'streamingUntil'>, at: Date) => row.streamingUntil !== null && row.streamingUntil.getTime() > at.getTime();

/** A question's documents by name (docs/decisions/0088): the owner's files as they are now, a removed one as such. */
type DocumentFiles = ReadonlyMap<string, TMessageDocumentFile>;
const documentFilesOf = (row: MessageRow, files: DocumentFiles): TMessageDocumentFile[] => row.documentIds.map((id) => files.get(id) ?? { id, removed: true });

function storedMessage(row: MessageRow, at: Date, files: DocumentFiles): TConversationMessage {
  // An answer whose writer's lease ran out ended where it got to.
  const gone = row.streamingUntil !== null && !isStreaming(row, at);
  const note = gone ? WRITER_GONE_NOTE : row.note;
  const finish = gone ? 'interrupted' : row.finish;
  return {
    id: row.id,
    parentId: row.parentId,
    role: row.role,
    content: row.content,
    timestamp: row.createdAt.toISOString(),
    ...(row.model ? { model: row.model } : {}),
    ...(note ? { note } : {}),
    ...(finish ? { finish } : {}),
    ...(row.failed ? { failed: true } : {}),
    ...(row.imagesNotKept ? { imagesNotKept: row.imagesNotKept } : {}),
    ...(row.imageIds.length > 0 ? { images: row.imageIds } : {}),
    ...(row.documentIds.length > 0 ? { documents: row.documentIds, documentFiles: documentFilesOf(row, files) } : {}),
    ...(row.citations?.length ? { citations: row.citations } : {}),
    ...(row.sourcesNote ? { sourcesNote: row.sourcesNote } : {}),
    ...(row.retrieval ? { retrieval: row.retrieval } : {}),
    ...(row.toolSteps?.length ? { toolSteps: row.toolSteps } : {}),
    ...(isStreaming(row, at) ? { streaming: true as const } : {}),
  };
}

function presetOf(row: PresetRow): TPreset {
  return { id: row.id, name: row.name, systemPrompt: row.systemPrompt, temperature: row.temperature, createdAt: row.createdAt.toISOString(), updatedAt: row.updatedAt.toISOString() };
}

/**
 * The documents new questions carry (issue 32): each must be the user's (else 400 naming it, and
 * nothing is saved: the caller's transaction rolls back); unattached ones are tied to the chat.
 */
async function claimQuestionDocuments(
  tx: Parameters<typeof claimDocuments>[0],
  userId: string,
  conversationId: string,
  messages: readonly { id: string; documents?: readonly string[] }[],
  stored: ReadonlySet<string>,
  path: string,
): Promise<void> {
  const refs = messages.flatMap((m, i) => (stored.has(m.id) ? [] : (m.documents ?? []).map((id, j) => ({ id, path: `${path}messages.${i}.documents.${j}` }))));
  if (refs.length === 0) return;
  const owned = await claimDocuments(tx, userId, conversationId, [...new Set(refs.map((r) => r.id))]);
  const missing = refs.filter((r) => !owned.has(r.id));
  if (missing.length > 0) throw invalid(missing.map((r) => ({ path: r.path, message: 'is not a document of yours: upload it again' })));
}

const invalid = (details: ErrorDetail[]) => new AppError('BAD_REQUEST', 'Invalid request', details);

/** A chat's temperature within its assistant's range (Claude: 0 to 1), as the chat call checks it. */
function checkTemperature(provider: TChatProvider, temperature: number | null | undefined, path: string): void {
  const info = CHAT_PROVIDER_INFO[provider];
  if (temperature !== null && temperature !== undefined && temperature > info.temperatureMax) {
    throw invalid([{ path, message: `${info.label} takes a temperature from 0 to ${info.temperatureMax}` }]);
  }
}

/**
 * Each user's chat history on the server (docs/decisions/0046, 0048) and their chat presets
 * (0047). Every read and write is scoped to the signed-in user: another user's chat id is not
 * found (404), never forbidden, so ids do not leak.
 */
export function createConversationsService({ db, images, projects, now = () => new Date() }: ConversationsServiceDeps) {
  /** A client's clock may run ahead; nothing is stored as happening later than now. */
  const notAfterNow = (iso: string | undefined, at: Date): Date => {
    const date = iso ? new Date(iso) : at;
    return date.getTime() > at.getTime() ? at : date;
  };

  async function list(userId: string, query: z.output<typeof ZConversationListQuery>): Promise<TConversationList> {
    let before: { updatedAt: Date; chatId: string } | undefined;
    if (query.before) {
      const [time, chatId] = query.before.split('~') as [string, string];
      before = { updatedAt: new Date(time), chatId };
    }
    const rows = await listConversations(db, userId, { provider: query.provider, projectId: query.projectId, q: query.q || undefined, before, limit: query.limit }, now());
    const last = rows.at(-1);
    return { conversations: rows.map((r) => summary(r, r.answering)), next: rows.length === query.limit && last ? `${last.updatedAt.toISOString()}~${last.chatId}` : null };
  }

  const info = (row: ConversationRow, answering = false): TConversationInfo => ({
    ...summary(row, answering),
    autoTitle: row.title,
    leafId: row.leafId,
    systemPrompt: row.systemPrompt,
    temperature: row.temperature,
    useAgents: row.useAgents,
    webSearch: row.webSearch,
  });

  async function conversation(row: ConversationRow): Promise<TConversation> {
    const at = now();
    const rows = await listMessages(db, row.id);
    // Owner-scoped: a file is named only when it is the chat's owner's.
    const files = await documentFiles(db, row.userId, [...new Set(rows.flatMap((m) => m.documentIds))]);
    const byId: DocumentFiles = new Map(files.map((f) => [f.id, { id: f.id, name: f.name, type: f.type, status: f.status }]));
    const messages = rows.map((m) => storedMessage(m, at, byId));
    return { ...info(row, messages.some((m) => m.streaming)), messages };
  }

  async function get(userId: string, chatId: string): Promise<TConversation> {
    const row = await findConversation(db, userId, chatId);
    if (!row) throw new AppError('NOT_FOUND', NOT_FOUND);
    return conversation(row);
  }

  /**
   * Adds the messages the conversation does not hold yet (by id) and checks the branch in view.
   * A new message's parent must be stored already or come before it; a message already stored
   * is left as it is (messages never change once saved). `path` prefixes each field named in a
   * refusal (an import names its conversation).
   */
  async function addMessages(
    tx: Tx,
    row: ConversationRow,
    input: Pick<SaveInput, 'messages' | 'leafId'>,
    at: Date,
    path: string,
    checkLeaf: boolean,
    extra: (message: SaveInput['messages'][number]) => Partial<NewMessage> = () => ({}),
  ): Promise<void> {
    const details: ErrorDetail[] = [];
    const seen = new Map<string, number>();
    input.messages.forEach((m, i) => {
      if (seen.has(m.id)) details.push({ path: `${path}messages.${i}.id`, message: 'must not appear twice' });
      seen.set(m.id, i);
    });
    if (details.length > 0) throw invalid(details);

    const referenced = [...seen.keys(), ...input.messages.flatMap((m) => (m.parentId ? [m.parentId] : [])), ...(checkLeaf && input.leafId ? [input.leafId] : [])];
    const stored = await existingMessageIds(tx, row.id, [...new Set(referenced)]);
    const fresh = input.messages.filter((m) => !stored.has(m.id));
    const known = new Set(stored);
    input.messages.forEach((m, i) => {
      if (!stored.has(m.id) && m.parentId !== null && !known.has(m.parentId)) {
        details.push({ path: `${path}messages.${i}.parentId`, message: 'must be a message of this chat saved before it' });
      }
      known.add(m.id);
    });
    if (checkLeaf && input.leafId !== null && !known.has(input.leafId)) details.push({ path: `${path}leafId`, message: 'must be a message of this chat' });
    if (details.length > 0) throw invalid(details);
    if (fresh.length === 0) return;

    const imageRefs = input.messages.flatMap((m, i) => (stored.has(m.id) ? [] : (m.images ?? []).map((id, j) => ({ id, path: `${path}messages.${i}.images.${j}` }))));
    await images.attach(tx, row.userId, row.id, imageRefs);
    await claimQuestionDocuments(tx, row.userId, row.id, input.messages, stored, path);

    const totals = await messageTotals(tx, row.id);
    if (totals.messages + fresh.length > CHAT_HISTORY_LIMITS.maxMessages) {
      throw new AppError('CONFLICT', `A chat keeps at most ${CHAT_HISTORY_LIMITS.maxMessages.toLocaleString('en-US')} messages, every version counted. Start a new chat to go on.`);
    }
    if (totals.chars + fresh.reduce((sum, m) => sum + m.content.length, 0) > CHAT_HISTORY_LIMITS.maxConversationChars) {
      throw new AppError('CONFLICT', `A chat keeps at most ${CHAT_HISTORY_LIMITS.maxConversationChars.toLocaleString('en-US')} characters. Start a new chat to go on.`);
    }
    await insertMessages(
      tx,
      fresh.map((m) => ({
        conversationId: row.id,
        id: m.id,
        parentId: m.parentId,
        role: m.role,
        content: m.content,
        model: m.model ?? null,
        note: m.note ?? null,
        finish: m.finish ?? null,
        failed: m.failed ?? false,
        imagesNotKept: m.imagesNotKept ?? 0,
        imageIds: m.images ?? [],
        documentIds: m.documents ?? [],
        citations: m.citations?.length ? m.citations : null,
        sourcesNote: m.sourcesNote ?? null,
        retrieval: m.retrieval ?? null,
        toolSteps: m.toolSteps?.length ? m.toolSteps : null,
        createdAt: notAfterNow(m.timestamp, at),
        ...extra(m),
      })),
    );
  }

  /** Finds the user's conversation (locked) or creates it; `created` says which. */
  async function findOrCreate(tx: Tx, userId: string, input: SaveInput, at: Date): Promise<{ row: ConversationRow; created: boolean }> {
    const existing = await findConversation(tx, userId, input.id, { lock: true });
    if (existing) return { row: existing, created: false };
    if ((await countConversations(tx, userId)) >= CHAT_HISTORY_LIMITS.maxConversations) {
      throw new AppError('CONFLICT', `You keep ${CHAT_HISTORY_LIMITS.maxConversations.toLocaleString('en-US')} chats, the most there may be. Delete some to save new ones.`);
    }
    const firstMessage = input.messages.reduce<string | undefined>((first, m) => (!first || m.timestamp < first ? m.timestamp : first), undefined);
    const createdAt = notAfterNow(input.createdAt ?? firstMessage, at);
    const updatedAt = notAfterNow(input.updatedAt, at);
    const row = await insertConversation(tx, {
      userId,
      chatId: input.id,
      provider: input.provider,
      title: input.title,
      model: input.model,
      leafId: null,
      systemPrompt: input.systemPrompt ?? '',
      temperature: input.temperature ?? null,
      useAgents: input.useAgents ?? null,
      webSearch: input.webSearch ?? null,
      // A chat starts in its project; later moves are PATCHes (a browser's later saves never move it).
      projectId: input.projectId ?? null,
      createdAt,
      updatedAt: updatedAt < createdAt ? createdAt : updatedAt,
    });
    if (row) return { row, created: true };
    // Saved by another request of the user's just now: add to that one.
    return { row: (await findConversation(tx, userId, input.id, { lock: true }))!, created: false };
  }

  /**
   * Saves a conversation from the browser that is using it: creates it or adds the messages it
   * does not hold, then takes the title, model, branch in view and settings as sent (the last
   * save wins) and moves it to the top of the list.
   */
  async function save(userId: string, input: SaveInput): Promise<TSaveResult> {
    checkTemperature(input.provider, input.temperature, 'temperature');
    if (input.projectId) await projects.owned(userId, input.projectId);
    return db.transaction(async (tx) => {
      const at = now();
      const { row, created } = await findOrCreate(tx, userId, input, at);
      await addMessages(tx, row, input, at, '', true);
      // A browser shows an answer still arriving from its question: the branch stays on the answer
      // the server is writing (docs/decisions/0056), so a reload finds it.
      const leafId = input.leafId === null ? null : ((await streamingChildOf(tx, row.id, input.leafId)) ?? input.leafId);
      const saved = await updateConversation(tx, row.id, {
        title: input.title,
        model: input.model,
        leafId,
        ...(input.systemPrompt !== undefined ? { systemPrompt: input.systemPrompt } : {}),
        ...(input.temperature !== undefined ? { temperature: input.temperature } : {}),
        ...(input.useAgents !== undefined ? { useAgents: input.useAgents } : {}),
        ...(input.webSearch !== undefined ? { webSearch: input.webSearch } : {}),
        updatedAt: created ? row.updatedAt : at,
      });
      return { conversation: summary(saved), created };
    });
  }

  /**
   * A browser's saved chats, brought to the server once (docs/decisions/0046): each one missing
   * is created as it was (its own dates); one the server holds gets only the messages it lacks,
   * so importing again changes nothing and an older copy never undoes a newer change. All or
   * nothing: a refused conversation leaves the batch unsaved.
   */
  async function importMany(userId: string, input: z.output<typeof ZImportConversations>): Promise<TImportResult> {
    input.conversations.forEach((c, i) => checkTemperature(c.provider, c.temperature, `conversations.${i}.temperature`));
    for (const projectId of new Set(input.conversations.flatMap((c) => (c.projectId ? [c.projectId] : [])))) await projects.owned(userId, projectId);
    return db.transaction(async (tx) => {
      const at = now();
      let created = 0;
      let updated = 0;
      for (const [i, conversation] of input.conversations.entries()) {
        const found = await findOrCreate(tx, userId, conversation, at);
        const before = found.created ? 0 : (await messageTotals(tx, found.row.id)).messages;
        await addMessages(tx, found.row, conversation, at, `conversations.${i}.`, found.created);
        if (found.created) {
          await updateConversation(tx, found.row.id, { leafId: conversation.leafId });
          created++;
        } else if ((await messageTotals(tx, found.row.id)).messages > before) {
          updated++;
        }
      }
      return { created, updated };
    });
  }

  async function update(userId: string, chatId: string, patch: z.output<typeof ZUpdateConversation>): Promise<TConversationInfo> {
    const row = await findConversation(db, userId, chatId);
    if (!row) throw new AppError('NOT_FOUND', NOT_FOUND);
    checkTemperature(row.provider, patch.temperature, 'temperature');
    if (patch.projectId) await projects.owned(userId, patch.projectId);
    const fields = {
      ...(patch.customTitle !== undefined ? { customTitle: patch.customTitle } : {}),
      ...(patch.systemPrompt !== undefined ? { systemPrompt: patch.systemPrompt } : {}),
      ...(patch.temperature !== undefined ? { temperature: patch.temperature } : {}),
      ...(patch.useAgents !== undefined ? { useAgents: patch.useAgents } : {}),
      ...(patch.webSearch !== undefined ? { webSearch: patch.webSearch } : {}),
      ...(patch.projectId !== undefined ? { projectId: patch.projectId } : {}),
      ...(patch.pinned !== undefined ? { pinned: patch.pinned } : {}),
    };
    return info(Object.keys(fields).length > 0 ? await updateConversation(db, row.id, fields) : row);
  }

  /** Deletes the conversation and every message of it, for good. */
  async function remove(userId: string, chatId: string): Promise<void> {
    if (!(await deleteConversation(db, userId, chatId))) throw new AppError('NOT_FOUND', NOT_FOUND);
  }

  /** The conversation as a file: Markdown (the branch in view) or JSON (every version). */
  async function exportFile(userId: string, chatId: string, format: 'md' | 'json'): Promise<{ fileName: string; contentType: string; body: string }> {
    const whole = await get(userId, chatId);
    return format === 'json'
      ? { fileName: exportFileName(whole.title, 'json'), contentType: 'application/json; charset=utf-8', body: `${JSON.stringify(whole, null, 2)}\n` }
      : { fileName: exportFileName(whole.title, 'md'), contentType: 'text/markdown; charset=utf-8', body: conversationMarkdown(whole) };
  }

  // --- answers the server writes (docs/decisions/0056) ----------------------------------------------

  /**
   * Stores where a streamed answer goes before its provider is called: the user's chat (made when
   * missing, with the request's title, model and settings), the question when the chat lacks it,
   * and the answer, empty and marked as being written until `leaseUntil`; the chat's branch in
   * view ends at it. `stored` is false when the question's parent is not saved yet (the browser
   * saves its messages a second after each change): the caller tries again a little later.
   */
  async function beginAnswer(
    userId: string,
    input: {
      target: z.output<typeof ZAnswerTarget>;
      provider: TChatProvider;
      model: string;
      question: { content: string; images: string[]; documents?: string[] };
      /** The sources the answer may cite (issue 32), and how they were found (the note the stream
       * shows, the retrieval's mode), kept with it from its start so a reload and a rejoin show them. */
      citations?: TCitation[];
      sourcesNote?: string;
      retrieval?: TRetrievalInfo | null;
      systemPrompt: string;
      temperature: number | null;
      /** The project a chat made here starts in (issue 32); the user's own, else 404. */
      projectId?: string | null;
      /** What the answer's usage will be settled from should its writer die: its estimated
       * input and the budget it holds (docs/decisions/0061). */
      unsettled: { inputTokens: number; reservationId: string | null };
    },
    leaseUntil: Date,
  ): Promise<{ conversationId: string; stored: boolean }> {
    const { target, provider, model, question } = input;
    if (input.projectId) await projects.owned(userId, input.projectId);
    return db.transaction(async (tx) => {
      const at = now();
      const created = await findOrCreate(
        tx,
        userId,
        {
          id: target.chatId,
          provider,
          title: target.title,
          model,
          leafId: null,
          systemPrompt: input.systemPrompt,
          temperature: input.temperature,
          projectId: input.projectId ?? null,
          updatedAt: at.toISOString(),
          messages: [],
        },
        at,
      );
      const row = created.row;
      if (row.provider !== provider) {
        throw invalid([{ path: 'answer.chatId', message: `must be a chat with ${CHAT_PROVIDER_INFO[provider].label}: this one is with ${CHAT_PROVIDER_INFO[row.provider]?.label ?? row.provider}` }]);
      }
      const known = await existingMessageIds(tx, row.id, [target.id, target.questionId, ...(target.questionParentId ? [target.questionParentId] : [])]);
      if (known.has(target.id)) throw new AppError('CONFLICT', 'Invalid request', [{ path: 'answer.id', message: 'is an answer this chat holds already: ask again for a new one' }]);
      if (!known.has(target.questionId) && target.questionParentId !== null && !known.has(target.questionParentId)) return { conversationId: row.id, stored: false };
      const messages = [
        ...(known.has(target.questionId)
          ? []
          : [{ id: target.questionId, parentId: target.questionParentId, role: 'user' as const, content: question.content, timestamp: at.toISOString(), images: question.images.length > 0 ? question.images : undefined, documents: question.documents?.length ? question.documents : undefined }]),
        { id: target.id, parentId: target.questionId, role: 'assistant' as const, content: '', timestamp: at.toISOString(), model, ...(input.citations?.length ? { citations: input.citations } : {}), ...keptSourcesInfo(input.sourcesNote, input.retrieval) },
      ];
      const unsettled = { unsettledInputTokens: input.unsettled.inputTokens, reservationId: input.unsettled.reservationId };
      await addMessages(tx, row, { messages, leafId: null }, at, 'answer.', false, (m) => (m.id === target.id ? { streamingUntil: leaseUntil, ...unsettled } : {}));
      await updateConversation(tx, row.id, { leafId: target.id, updatedAt: at });
      return { conversationId: row.id, stored: true };
    });
  }

  /** Saves the text so far of an answer being written and the tool steps it has taken (and renews its lease). */
  async function saveAnswerProgress(conversationId: string, answerId: string, content: string, toolSteps: readonly TToolStep[], leaseUntil: Date) {
    return saveAnswerText(db, conversationId, answerId, content.slice(0, CHAT_HISTORY_LIMITS.maxStoredMessageChars), keptSteps(toolSteps), leaseUntil);
  }

  /**
   * Ends an answer: its text, how it ended and its note ('(stopped)', or why it is not whole) and
   * generated images, never to change again; or, when it failed before any text, removes it and
   * shows its question again (the browser keeps its own failure message, as before).
   */
  async function endAnswerWith(
    conversationId: string,
    answer: { id: string; questionId: string },
    end: { content: string; note: string | null; finish: TChatFinish; images: string[]; model: string; toolSteps: readonly TToolStep[] } | 'drop',
  ) {
    if (end === 'drop') {
      await db.transaction(async (tx) => {
        await dropAnswer(tx, conversationId, answer.id);
        await moveLeaf(tx, conversationId, answer.id, answer.questionId);
      });
      return;
    }
    await endAnswer(db, conversationId, answer.id, {
      content: end.content.slice(0, CHAT_HISTORY_LIMITS.maxStoredMessageChars),
      note: end.note,
      finish: end.finish,
      imageIds: end.images,
      model: end.model,
      toolSteps: keptSteps(end.toolSteps),
    });
  }

  /** The user's answer with this id in their chat (404 for anyone else's, or none). */
  async function findAnswer(userId: string, chatId: string, answerId: string): Promise<{ conversation: ConversationRow; message: MessageRow }> {
    const row = await findConversation(db, userId, chatId);
    const message = row ? await findMessage(db, row.id, answerId) : undefined;
    if (!row || !message || message.role !== 'assistant') throw new AppError('NOT_FOUND', 'Answer not found');
    return { conversation: row, message };
  }

  /** The answer as stored now (another process may be writing it). */
  async function answerNow(conversationId: string, answerId: string): Promise<MessageRow | undefined> {
    return findMessage(db, conversationId, answerId);
  }

  /** Asks whichever process writes the answer to stop it: 'asked', or 'ended' when it is not being written. */
  async function askToStop(conversationId: string, answerId: string): Promise<'asked' | 'ended'> {
    return (await requestAnswerStop(db, conversationId, answerId)) ? 'asked' : 'ended';
  }

  // --- presets -----------------------------------------------------------------------------------

  const { nameTaken, orNameTaken } = uniqueNameRule('preset');

  async function presets(userId: string): Promise<{ presets: TPreset[] }> {
    return { presets: (await listPresets(db, userId)).map(presetOf) };
  }

  async function createPreset(userId: string, input: z.output<typeof ZCreatePreset>): Promise<TPreset> {
    if ((await countPresets(db, userId)) >= MAX_PRESETS) throw new AppError('CONFLICT', `You can keep ${MAX_PRESETS} presets. Delete one to add another.`);
    if (await presetNamed(db, userId, input.name)) throw nameTaken(input.name);
    const at = now();
    return presetOf(await orNameTaken(input.name, () => insertPreset(db, { userId, name: input.name, systemPrompt: input.systemPrompt, temperature: input.temperature, createdAt: at, updatedAt: at })));
  }

  async function updatePresetFor(userId: string, id: string, patch: z.output<typeof ZUpdatePreset>): Promise<TPreset> {
    if (!(await findPreset(db, userId, id))) throw new AppError('NOT_FOUND', PRESET_NOT_FOUND);
    if (patch.name !== undefined && (await presetNamed(db, userId, patch.name, id))) throw nameTaken(patch.name);
    const row = await orNameTaken(patch.name, () => updatePreset(db, userId, id, { ...patch, updatedAt: now() }));
    if (!row) throw new AppError('NOT_FOUND', PRESET_NOT_FOUND);
    return presetOf(row);
  }

  async function removePreset(userId: string, id: string): Promise<void> {
    if (!(await deletePreset(db, userId, id))) throw new AppError('NOT_FOUND', PRESET_NOT_FOUND);
  }

  return {
    list,
    get,
    save,
    importMany,
    update,
    remove,
    exportFile,
    presets,
    createPreset,
    updatePreset: updatePresetFor,
    removePreset,
    beginAnswer,
    saveAnswerProgress,
    endAnswer: endAnswerWith,
    findAnswer,
    answerNow,
    askToStop,
  };
}

export type ConversationsService = ReturnType<typeof createConversationsService>;
