import { z } from 'zod';
import { TOOL_LABELS, isAgentTool } from './assistant-tools.ts';
import { MAX_TOOL_STEPS_KEPT, ZToolStep, type TToolStep } from './tool-steps.ts';
import { MAX_CITATIONS, ZCitation, type TCitation, type TDocumentStatus, type TDocumentType, type TRetrievalInfo } from './documents.ts';
import { CHAT_FINISHES, CHAT_LIMITS, CHAT_PROVIDER_INFO, CHAT_PROVIDERS, ZChatId, ZMessageDocuments, ZMessageId, ZMessageImages, type TChatProvider } from './chat.ts';

export { ZChatId, ZMessageId } from './chat.ts';

/**
 * Chat history on the server (docs/decisions/0046): each user's conversations with every
 * assistant, on every device. A conversation is keyed by SPEC's chat id ('chat-' + millisecond
 * time + a random suffix), unique per user, so the browser's local copy (SPEC's
 * chat-sessions-{service}) and the server's are the same chat, and saving or importing it again
 * adds nothing twice. Messages form a tree: each names its parent, an edited question or a
 * regenerated answer is a sibling of the one it replaces, and `leafId` is the last message of
 * the branch in view (docs/decisions/0048).
 */
export const CHAT_HISTORY_LIMITS = {
  /** Text of one stored message: answers run longer than the 32,000 characters a question may. */
  maxStoredMessageChars: 200_000,
  /** Messages in one conversation, every version counted. */
  maxMessages: 2_000,
  /** Characters in one conversation, every version counted. */
  maxConversationChars: 5_000_000,
  /** Conversations one user keeps. */
  maxConversations: 10_000,
  /** Messages in one save (more are saved in several). */
  maxMessagesPerSave: 500,
  /** Conversations in one import request. */
  maxImportBatch: 50,
  /** A renamed conversation's title (SPEC: history titles are cut to 50 characters). */
  maxTitleChars: 50,
  /** Conversations per page of the list. */
  pageSize: 50,
  maxSearchChars: 200,
  /** An answer's note on its sources (up to three sentences, one naming the files without text), and the files without text it keeps. */
  maxSourcesNoteChars: 4_000,
  maxNoTextFiles: 50,
} as const;

export const ZConversationParams = z.object({ id: ZChatId }).strict();

const ZTimestamp = z.iso.datetime({ offset: true, error: 'Time must be an ISO date and time, such as 2025-05-01T10:00:00.000Z' });

export const ZChatProvider = z.enum(CHAT_PROVIDERS, `Assistant must be one of: ${CHAT_PROVIDERS.join(', ')}`);
const ZModelId = z.string().min(1, 'Model is required').max(100, 'Model must be at most 100 characters');

/** A chat's own settings: a system prompt and a temperature (docs/decisions/0047). */
export const ZSystemPrompt = z.string().max(CHAT_LIMITS.maxSystemPromptChars, `The system prompt must be at most ${CHAT_LIMITS.maxSystemPromptChars.toLocaleString('en-US')} characters`);
export const ZTemperature = z
  .number('Temperature must be a number')
  .min(0, 'Temperature must be from 0 to 2')
  .max(CHAT_LIMITS.maxTemperature, 'Temperature must be from 0 to 2');

/** How an answer's retrieval ran (contracts/documents.ts TRetrievalInfo), as a stored answer keeps it. */
export const ZRetrievalInfo = z
  .object({
    mode: z.enum(['hybrid', 'full-text'], 'Retrieval mode must be hybrid or full-text'),
    noText: z.array(z.string().max(255, 'A file name must be at most 255 characters')).max(CHAT_HISTORY_LIMITS.maxNoTextFiles, `Name at most ${CHAT_HISTORY_LIMITS.maxNoTextFiles} files without text`),
  })
  .strict() satisfies z.ZodType<TRetrievalInfo>;

/** One stored message (SPEC's chat message, with its place in the tree). */
export const ZStoredMessage = z
  .object({
    id: ZMessageId,
    /** The message it answers or follows; null for the chat's first message. */
    parentId: ZMessageId.nullable(),
    role: z.enum(['user', 'assistant'], 'Role must be user or assistant'),
    content: z.string().max(CHAT_HISTORY_LIMITS.maxStoredMessageChars, `Content must be at most ${CHAT_HISTORY_LIMITS.maxStoredMessageChars.toLocaleString('en-US')} characters`),
    timestamp: ZTimestamp,
    /** The model that answered (assistant only). */
    model: ZModelId.optional(),
    /** '(stopped)' or why the answer is not whole (cut short, empty). */
    note: z.string().max(500, 'Note must be at most 500 characters').optional(),
    /** How the answer ended (docs/decisions/0061); absent on questions and on answers kept before endings were. */
    finish: z.enum(CHAT_FINISHES, `How the answer ended must be one of: ${CHAT_FINISHES.join(', ')}`).optional(),
    /** Our own error message ('Sorry, I encountered an error: ...'), never sent to a model. */
    failed: z.boolean().optional(),
    /** Generated images the saved chat does not keep (made before images were stored on the server). */
    imagesNotKept: z.number().int().min(0).max(100).optional(),
    /** Stored images (docs/decisions/0055): a question's uploads, an answer's generated images. */
    images: ZMessageImages.optional(),
    /** A question's documents; an answer's sources, cited as [n] (issue 32, docs/decisions/0081). */
    documents: ZMessageDocuments.optional(),
    citations: z.array(ZCitation).max(MAX_CITATIONS, `An answer keeps at most ${MAX_CITATIONS} sources`).optional(),
    /** How an answer's sources were found, as its stream said (docs/decisions/0088): the sentence
     * shown with them (full text only, files without text, a failed web search) and how retrieval ran. */
    sourcesNote: z.string().max(CHAT_HISTORY_LIMITS.maxSourcesNoteChars, `The sources' note must be at most ${CHAT_HISTORY_LIMITS.maxSourcesNoteChars.toLocaleString('en-US')} characters`).optional(),
    retrieval: ZRetrievalInfo.optional(),
    /** The tool steps an answer took (issue 31, docs/decisions/0076), in order. */
    toolSteps: z.array(ZToolStep).max(MAX_TOOL_STEPS_KEPT, `An answer keeps at most ${MAX_TOOL_STEPS_KEPT} tool steps`).optional(),
  })
  .strict();
export type TStoredMessage = z.infer<typeof ZStoredMessage>;

/** The fields a stored answer keeps of how its sources were found, within the limits above (a
 * long list of files without text is cut, never refused: it is the server's own text). */
export function keptSourcesInfo(note: string | undefined, retrieval: TRetrievalInfo | null | undefined): Pick<TStoredMessage, 'sourcesNote' | 'retrieval'> {
  const max = CHAT_HISTORY_LIMITS.maxSourcesNoteChars;
  return {
    ...(note ? { sourcesNote: note.length > max ? `${note.slice(0, max - 1)}…` : note } : {}),
    ...(retrieval ? { retrieval: { mode: retrieval.mode, noText: retrieval.noText.slice(0, CHAT_HISTORY_LIMITS.maxNoTextFiles).map((name) => name.slice(0, 255)) } } : {}),
  };
}

/** A question's document as the history names it (issue 32, docs/decisions/0088): the owner's file
 * with its name, type and state, or one since removed (its text and passages are gone). */
export type TMessageDocumentFile = { id: string; name: string; type: TDocumentType; status: TDocumentStatus } | { id: string; removed: true };

/** A message as the server answers it: `streaming` while the answer is still being written
 * (docs/decisions/0056), its text so far; a question's documents by name (`documents` holds their ids). */
export type TConversationMessage = TStoredMessage & { streaming?: true; documentFiles?: TMessageDocumentFile[] };

/** The Markdown export's words for a question's documents: their names when the history has them. */
function documentsLine(message: TConversationMessage): string | null {
  const files = message.documentFiles;
  if (files?.length) return `_Documents attached: ${files.map((f) => ('removed' in f ? 'Removed file' : f.name.replace(/\s+/g, ' ').trim())).join(', ')}._`;
  const count = message.documents?.length ?? 0;
  return count > 0 ? `_${count === 1 ? 'One document' : `${count} documents`} attached._` : null;
}

/**
 * POST /api/chat/conversations: saves a conversation, creating it or adding to it. Messages
 * already stored (by id) are left as they are; the title, model, branch in view and settings
 * are replaced when `updatedAt` is not older than what the server holds, so an older copy (a
 * second import, a browser that was offline) never undoes a newer change.
 */
export const ZSaveConversation = z
  .object({
    id: ZChatId,
    provider: ZChatProvider,
    title: z.string().max(200, 'Title must be at most 200 characters'),
    model: ZModelId,
    leafId: ZMessageId.nullable(),
    systemPrompt: ZSystemPrompt.optional(),
    temperature: ZTemperature.nullable().optional(),
    /** "Use my agents" for this chat (issue 31); absent: the default (on for admins). */
    useAgents: z.boolean('Use my agents must be true or false').optional(),
    /** "Search the web" for this chat (issue 32). */
    webSearch: z.boolean('Search the web must be true or false').optional(),
    /** The project it is in (issue 32); null or absent: none. */
    projectId: z.uuid('A project id must be a UUID').nullable().optional(),
    createdAt: ZTimestamp.optional(),
    updatedAt: ZTimestamp,
    messages: z.array(ZStoredMessage).max(CHAT_HISTORY_LIMITS.maxMessagesPerSave, `Save at most ${CHAT_HISTORY_LIMITS.maxMessagesPerSave} messages at once`),
  })
  .strict();
export type TSaveConversation = z.input<typeof ZSaveConversation>;

/** POST /api/chat/conversations/import: a browser's saved chats, each saved as above. */
export const ZImportConversations = z
  .object({
    conversations: z
      .array(ZSaveConversation)
      .min(1, 'Import at least one conversation')
      .max(CHAT_HISTORY_LIMITS.maxImportBatch, `Import at most ${CHAT_HISTORY_LIMITS.maxImportBatch} conversations at once`),
  })
  .strict();
export type TImportConversations = z.input<typeof ZImportConversations>;
export type TImportResult = { created: number; updated: number };

/** PATCH /api/chat/conversations/:id: rename (null: the title follows the first message again) and settings. */
export const ZUpdateConversation = z
  .object({
    customTitle: z
      .string()
      .trim()
      .min(1, 'Enter a title')
      .max(CHAT_HISTORY_LIMITS.maxTitleChars, `The title must be at most ${CHAT_HISTORY_LIMITS.maxTitleChars} characters`)
      .nullable()
      .optional(),
    systemPrompt: ZSystemPrompt.optional(),
    temperature: ZTemperature.nullable().optional(),
    useAgents: z.boolean('Use my agents must be true or false').optional(),
    webSearch: z.boolean('Search the web must be true or false').optional(),
    /** Moved into a project, or out (null) (issue 32). */
    projectId: z.uuid('A project id must be a UUID').nullable().optional(),
    pinned: z.boolean('Pinned must be true or false').optional(),
  })
  .strict();
export type TUpdateConversation = z.input<typeof ZUpdateConversation>;

const PAGE_RULE = 'The page must start where the previous one ended (its `next`)';

/** GET /api/chat/conversations: newest first, by assistant; `q` searches titles and messages. */
export const ZConversationListQuery = z
  .object({
    provider: ZChatProvider.optional(),
    /** Only the chats of one project (issue 32); search finds chats by their project's name too. */
    projectId: z.uuid('A project id must be a UUID').optional(),
    q: z.string().trim().max(CHAT_HISTORY_LIMITS.maxSearchChars, `The search must be at most ${CHAT_HISTORY_LIMITS.maxSearchChars} characters`).optional(),
    /** The page after the one that ended with this conversation (the answer's `next`). */
    before: z
      .string()
      .regex(/^\d{4}-\d\d-\d\dT[\d:.]+Z~chat-\d{1,16}-[a-z0-9]{1,20}$/, PAGE_RULE)
      .refine((value) => !Number.isNaN(Date.parse(value.split('~')[0]!)), PAGE_RULE)
      .optional(),
    limit: z.coerce
      .number()
      .int('Limit must be a whole number')
      .min(1, 'Limit must be 1 to 100')
      .max(100, 'Limit must be 1 to 100')
      .default(CHAT_HISTORY_LIMITS.pageSize),
  })
  .strict();
export type TConversationListQuery = z.input<typeof ZConversationListQuery>;

export const ZExportQuery = z.object({ format: z.enum(['md', 'json'], "Format must be 'md' or 'json'").default('md') }).strict();

/** One conversation in the sidebar's list. */
export type TConversationSummary = {
  id: string;
  provider: TChatProvider;
  /** The title shown: the user's own when renamed, else the first question's. */
  title: string;
  renamed: boolean;
  model: string;
  createdAt: string;
  updatedAt: string;
  /** An answer of this chat is being written now (docs/decisions/0056). */
  answering: boolean;
  /** Its project (issue 32), and whether it is pinned (pinned chats head the list). */
  projectId?: string | null;
  pinned?: boolean;
};
export type TConversationList = { conversations: TConversationSummary[]; next: string | null };

/** One conversation's fields: what PATCH answers. */
export type TConversationInfo = TConversationSummary & {
  /** The first question's title (SPEC), which the title follows unless renamed. */
  autoTitle: string;
  leafId: string | null;
  systemPrompt: string;
  temperature: number | null;
  /** "Use my agents" (issue 31): null until the chat sets it (the default applies: on for admins). */
  useAgents?: boolean | null;
  webSearch?: boolean | null;
};
/** One conversation with every message (every version). */
export type TConversation = TConversationInfo & { messages: TConversationMessage[] };

/** GET /api/chat/conversations/:id/stream?answer=: the answer's events, joined again
 * (docs/decisions/0056); POST /api/chat/conversations/:id/stop {answer}: Stop. */
export const ZAnswerQuery = z.object({ answer: ZMessageId }).strict();
export const ZStopAnswer = z.object({ answer: ZMessageId }).strict();
/** POST /api/chat/conversations: 201 when it was created, 200 when it was added to. */
export type TSaveResult = { conversation: TConversationSummary; created: boolean };

// --- presets (docs/decisions/0047) ----------------------------------------------------------

export const MAX_PRESETS = 50;
const ZPresetName = z.string().trim().min(1, 'Enter a name for this preset').max(60, 'The name must be at most 60 characters');

export const ZCreatePreset = z
  .object({
    name: ZPresetName,
    systemPrompt: ZSystemPrompt.default(''),
    temperature: ZTemperature.nullable().default(null),
  })
  .strict();
export type TCreatePreset = z.input<typeof ZCreatePreset>;
export const ZUpdatePreset = z.object({ name: ZPresetName.optional(), systemPrompt: ZSystemPrompt.optional(), temperature: ZTemperature.nullable().optional() }).strict();
export type TUpdatePreset = z.input<typeof ZUpdatePreset>;
export const ZPresetIdParams = z.object({ id: z.uuid('Preset id must be a UUID') }).strict();
export type TPreset = { id: string; name: string; systemPrompt: string; temperature: number | null; createdAt: string; updatedAt: string };
export type TPresetList = { presets: TPreset[] };

// --- the tree of versions (docs/decisions/0048) -----------------------------------------------

type TreeMessage = { id: string; parentId?: string | null };

/** The messages with each one's children in the order they were made (the list's order). */
function childrenOf<M extends TreeMessage>(messages: readonly M[]): Map<string | null, M[]> {
  const children = new Map<string | null, M[]>();
  for (const message of messages) {
    const parent = message.parentId ?? null;
    const list = children.get(parent);
    if (list) list.push(message);
    else children.set(parent, [message]);
  }
  return children;
}

/** The newest message at the end of the branch that starts at `id`: at each step, the child made last. */
export function newestLeaf<M extends TreeMessage>(messages: readonly M[], id: string | null): string | null {
  const children = childrenOf(messages);
  let at = id;
  for (let guard = 0; guard <= messages.length; guard++) {
    const next = children.get(at)?.at(-1);
    if (!next) return at;
    at = next.id;
  }
  return at;
}

/**
 * The branch in view: the messages from the first to `leafId`, each with its siblings (the
 * versions of its turn) and its place among them. An unknown or missing leaf shows the newest
 * branch; a message whose parent is missing starts the branch.
 */
export function branchOf<M extends TreeMessage>(messages: readonly M[], leafId: string | null | undefined): Array<{ message: M; versions: M[]; index: number }> {
  const byId = new Map(messages.map((m) => [m.id, m]));
  const children = childrenOf(messages);
  const leaf = leafId && byId.has(leafId) ? leafId : newestLeaf(messages, null);
  const path: M[] = [];
  const seen = new Set<string>();
  for (let at = leaf ? byId.get(leaf) : undefined; at && !seen.has(at.id); at = at.parentId ? byId.get(at.parentId) : undefined) {
    seen.add(at.id);
    path.push(at);
  }
  return path.reverse().map((message) => {
    const versions = children.get(message.parentId && byId.has(message.parentId) ? message.parentId : null) ?? [message];
    return { message, versions, index: Math.max(0, versions.indexOf(message)) };
  });
}

// --- export ---------------------------------------------------------------------------------

/** A file name for an exported conversation: its title in safe characters, and the extension. */
export function exportFileName(title: string, format: 'md' | 'json'): string {
  const base =
    title
      .normalize('NFKD')
      .replace(/[^\w\s-]/g, '')
      .trim()
      .replace(/[\s_]+/g, '-')
      .replace(/-+/g, '-')
      .toLowerCase()
      .slice(0, 60)
      .replace(/-$/, '') || 'chat';
  return `${base}.${format}`;
}

/** How long a tool step took, as the chat shows it: '120 ms', '2.4 s'. */
export const stepDuration = (ms: number) => (ms < 1_000 ? `${ms} ms` : `${(ms / 1_000).toFixed(1)} s`);

/** One tool step in a line (issue 31): what it did, with what, what it found, and how long it took. */
export function toolStepLine(step: TToolStep): string {
  const label = isAgentTool(step.tool) ? TOOL_LABELS[step.tool] : step.tool;
  const outcome = step.status === 'ok' ? '' : ` (${step.status})`;
  const found = step.summary ? `: ${step.summary}` : '';
  return `${label}${step.argsText ? ` (${step.argsText})` : ''}${outcome}${found} — ${stepDuration(step.durationMs)}`.replace(/\n/g, ' ');
}

/**
 * The conversation as Markdown: its title, assistant and settings, then the branch in view, each
 * message under a heading naming who wrote it (and the model of each answer), an answer's tool
 * steps a line each after its text. Failed messages and notes are kept, as the chat shows them.
 */
/** A source an answer cited, as the Markdown export lists it (issue 32): the file and where in it, or the web page. */
function citationLine(c: TCitation): string {
  const flat = (text: string) => text.replace(/\s+/g, ' ').trim();
  if (c.kind === 'web') return `[${flat(c.title) || c.url}](<${c.url}>)`;
  const where = [c.page !== null ? `page ${c.page}` : null, c.sheet !== null ? `sheet ${flat(c.sheet)}` : null, c.heading !== null ? flat(c.heading) : null].filter(Boolean).join(', ');
  return `${flat(c.fileName)}${where ? ` (${where})` : ''}: “${flat(c.snippet)}”`;
}

export function conversationMarkdown(conversation: TConversation): string {
  const assistant = CHAT_PROVIDER_INFO[conversation.provider]?.label ?? conversation.provider;
  const lines = [`# ${conversation.title.replace(/\n/g, ' ')}`, '', `- Assistant: ${assistant}`, `- Created: ${conversation.createdAt}`, `- Updated: ${conversation.updatedAt}`];
  if (conversation.temperature !== null) lines.push(`- Temperature: ${conversation.temperature}`);
  if (conversation.systemPrompt) lines.push('', '## System prompt', '', conversation.systemPrompt);
  for (const { message, versions, index } of branchOf(conversation.messages, conversation.leafId)) {
    const who = message.role === 'user' ? 'You' : `${assistant}${message.model ? ` (${message.model})` : ''}`;
    const version = versions.length > 1 ? ` — version ${index + 1} of ${versions.length}` : '';
    lines.push('', `## ${who}${version}`, '', message.content || '_(no text)_');
    if (message.toolSteps?.length) lines.push('', ...message.toolSteps.map((step) => `- ${toolStepLine(step)}`));
    const images = message.images?.length ?? 0;
    if (images > 0) lines.push('', `_${images === 1 ? 'One image' : `${images} images`} (kept in the chat on the server)._`);
    if (message.imagesNotKept) lines.push('', `_${message.imagesNotKept === 1 ? 'A generated image was' : `${message.imagesNotKept} generated images were`} not kept._`);
    const documents = documentsLine(message);
    if (documents) lines.push('', documents);
    if (message.citations?.length) lines.push('', '### Sources', '', ...message.citations.map((c) => `${c.n}. ${citationLine(c)}`));
    // How the sources were found (full text only, files without text, a failed web search), as the chat says it.
    if (message.sourcesNote) lines.push('', `_${message.sourcesNote.replace(/\s+/g, ' ').trim()}_`);
    if (message.note) lines.push('', `_${message.note}_`);
  }
  return `${lines.join('\n')}\n`;
}
