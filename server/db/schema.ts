import { sql } from 'drizzle-orm';
import { bigint, boolean, check, customType, doublePrecision, index, integer, type AnyPgColumn, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { NOTIFICATION_KINDS, type TNotificationKind } from '../../contracts/agent-health.ts';
import type { TAgentConfig, TAgentRun, TAgentStatus } from '../../contracts/agents.ts';
import type { PROPOSAL_SOURCES, TProposal, TProposalStatus } from '../../contracts/assistant-tools.ts';
import type { TRunAlert } from '../../contracts/market.ts';
import type { TNotifiedCondition } from '../../contracts/condition-outcomes.ts';
import type { TChannelKind, TDeliveryEvent, TDeliveryStatus } from '../../contracts/channels.ts';
import type { TToolStep } from '../../contracts/assistant-tools.ts';
import type { TChatFinish, TChatImageType, TChatProvider } from '../../contracts/chat.ts';
import type { TCitation, TDocumentStatus, TDocumentType, TRetrievalInfo } from '../../contracts/documents.ts';
import type { TBriefStatus } from '../../contracts/notifications.ts';
import type { TArticleRevisionFields, TArticleStatus } from '../../contracts/articles.ts';
import { TOKEN_SCOPES } from '../../contracts/assistant-tools.ts';

const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();

/** Bytes (PostgreSQL bytea): node-postgres reads a Buffer, PGlite a Uint8Array; both become a Buffer. */
const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) => (Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength)),
});

export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** 'local' or 'google'; with `subject` it is the identity (Google's `sub`, or the email locally). */
    provider: text('provider').notNull(),
    subject: text('subject').notNull(),
    email: text('email').notNull(),
    name: text('name').notNull().default(''),
    profilePicture: text('profile_picture').notNull().default(''),
    role: text('role', { enum: ['admin', 'guest'] }).notNull().default('guest'),
    /** Where agent alerts are emailed (Settings); null = the sign-in email. */
    alertEmail: text('alert_email'),
    /** The user's IANA time zone (Settings); the wizard's default for new schedules. */
    timeZone: text('time_zone'),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('users_identity_idx').on(t.provider, t.subject),
    index('users_email_idx').on(t.email),
    check('users_role_check', sql`${t.role} in ('admin', 'guest')`),
  ],
);

export const sessions = pgTable(
  'sessions',
  {
    /** SHA-256 of the cookie's token, hex: a leaked table cannot be replayed as cookies. */
    tokenHash: text('token_hash').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    /** The passkey that signed this session in, if one did: removing that passkey ends the
     * sessions it started (but the one that removes it), docs/decisions/0092's amendment. */
    passkeyId: uuid('passkey_id').references((): AnyPgColumn => passkeys.id, { onDelete: 'set null' }),
  },
  (t) => [
    index('sessions_user_idx').on(t.userId),
    index('sessions_expires_idx').on(t.expiresAt),
    index('sessions_passkey_idx').on(t.passkeyId).where(sql`${t.passkeyId} is not null`),
  ],
);

/**
 * Invitations to a passkey account (issue 33 item 2, docs/decisions/0092): an admin names an
 * email and a role; the person opens the one-time link and registers a passkey. Only the link
 * token's SHA-256 is kept; `used_at` makes it single use, `expires_at` ends it.
 */
export const invites = pgTable(
  'invites',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    email: text('email').notNull(),
    role: text('role', { enum: ['admin', 'guest'] }).notNull(),
    tokenHash: text('token_hash').notNull(),
    invitedBy: uuid('invited_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    /** The account the invite made, once used. */
    userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
  },
  (t) => [
    uniqueIndex('invites_token_hash_idx').on(t.tokenHash),
    index('invites_email_idx').on(t.email),
    check('invites_role_check', sql`${t.role} in ('admin', 'guest')`),
  ],
);

/** A passkey account's WebAuthn credentials (docs/decisions/0092): the public key, never a secret. */
export const passkeys = pgTable(
  'passkeys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The credential's id as the browser sends it (base64url). */
    credentialId: text('credential_id').notNull(),
    /** The COSE public key. */
    publicKey: bytea('public_key').notNull(),
    /** The authenticator's signature counter (0 for authenticators that keep none). */
    counter: bigint('counter', { mode: 'number' }).notNull().default(0),
    transports: jsonb('transports').$type<string[]>().notNull().default([]),
    name: text('name').notNull(),
    createdAt: createdAt(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('passkeys_credential_idx').on(t.credentialId), index('passkeys_user_idx').on(t.userId)],
);

/**
 * WebAuthn challenges handed out and not yet answered: each is taken (deleted) by the one answer
 * that uses it, so a replayed answer finds none. Kept in the database so any process may finish
 * a ceremony another began.
 */
export const passkeyChallenges = pgTable(
  'passkey_challenges',
  {
    challenge: text('challenge').primaryKey(),
    purpose: text('purpose', { enum: ['invite', 'add', 'sign-in'] }).notNull(),
    /** 'add': the signed-in user adding a passkey. */
    userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
    /** 'invite': the invite being answered. */
    inviteId: uuid('invite_id').references(() => invites.id, { onDelete: 'cascade' }),
    /** 'invite': the WebAuthn user handle the new account's passkey was made for. */
    userHandle: text('user_handle'),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('passkey_challenges_expires_idx').on(t.expiresAt), check('passkey_challenges_purpose_check', sql`${t.purpose} in ('invite', 'add', 'sign-in')`)],
);

/**
 * Personal access tokens for the MCP server (issue 31, docs/decisions/0078): each acts as its
 * user, with the user's role read on every request. Only the token's SHA-256 is kept, like a
 * session's; a revoked token keeps its row (revoked_at) so its last use stays on record.
 */
export const accessTokens = pgTable(
  'access_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    scope: text('scope', { enum: TOKEN_SCOPES }).notNull(),
    /** SHA-256 of the token, hex: a leaked table cannot be replayed as tokens. */
    tokenHash: text('token_hash').notNull(),
    /** The first characters after `agt_`, so its owner can tell tokens apart; not enough to guess the rest. */
    prefix: text('prefix').notNull(),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('access_tokens_hash_idx').on(t.tokenHash),
    index('access_tokens_user_idx').on(t.userId),
    check('access_tokens_scope_check', sql`${t.scope} in ('read', 'propose')`),
  ],
);

export const articles = pgTable(
  'articles',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    slug: text('slug').notNull(),
    title: text('title').notNull(),
    category: text('category').notNull(),
    excerpt: text('excerpt').notNull(),
    content: text('content').notNull(),
    readTime: text('read_time').notNull().default('5 min read'),
    /** 'draft', 'scheduled' (public from publish_at) or 'published' (docs/decisions/0098). The
     * API's `published` is status = 'published'. */
    status: text('status').$type<TArticleStatus>().notNull().default('draft'),
    /** When a scheduled article goes public; null unless scheduled. */
    publishAt: timestamp('publish_at', { withTimezone: true }),
    /** When it went public: the public pages' date (the creation date for articles published before 0098). */
    publishedAt: timestamp('published_at', { withTimezone: true }),
    authorId: uuid('author_id').references(() => users.id, { onDelete: 'set null' }),
    /** Search and social (docs/decisions/0096): null = the title, the excerpt, the article's
     * own URL. */
    metaTitle: text('meta_title'),
    metaDescription: text('meta_description'),
    canonicalUrl: text('canonical_url'),
    /** The cover (docs/decisions/0099) and its alt text, required when a cover is set. */
    coverImageId: uuid('cover_image_id').references((): AnyPgColumn => articleImages.id, { onDelete: 'set null' }),
    coverAlt: text('cover_alt'),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('articles_slug_idx').on(t.slug),
    index('articles_status_published_idx').on(t.status, t.publishedAt),
    // The sweep's look for what is due.
    index('articles_publish_at_idx').on(t.publishAt).where(sql`${t.status} = 'scheduled'`),
    check('articles_status_check', sql`${t.status} in ('draft', 'scheduled', 'published')`),
    check('articles_scheduled_check', sql`(${t.status} = 'scheduled') = (${t.publishAt} is not null)`),
  ],
);

/**
 * Article images (issue 34 item 3, docs/decisions/0099): one row per uploaded picture, with the
 * SHA-256 of the bytes uploaded (the same file uploaded again is the same image) and its size;
 * the uploaded bytes are not kept. Its variants are what is served: re-encoded WebP at a few
 * widths, in the database so every process serves them (and one JPEG, the largest width, for social cards). Images no article uses (cover, content,
 * kept revision) are deleted after a grace period.
 */
export const articleImages = pgTable(
  'article_images',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    sha256: text('sha256').notNull(),
    width: integer('width').notNull(),
    height: integer('height').notNull(),
    /** What was uploaded: image/jpeg, image/png or image/webp. */
    sourceType: text('source_type').notNull(),
    uploadedBy: uuid('uploaded_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('article_images_sha256_idx').on(t.sha256)],
);

export const articleImageVariants = pgTable(
  'article_image_variants',
  {
    imageId: uuid('image_id')
      .notNull()
      .references(() => articleImages.id, { onDelete: 'cascade' }),
    width: integer('width').notNull(),
    height: integer('height').notNull(),
    /** image/webp for the pages; image/jpeg for the social card (not every site reads WebP). */
    contentType: text('content_type').notNull(),
    bytes: bytea('bytes').notNull(),
  },
  (t) => [primaryKey({ columns: [t.imageId, t.width, t.contentType] })],
);

/**
 * A link that shows a draft or scheduled article to anyone who has it (docs/decisions/0098):
 * only its SHA-256 is kept; it works until `expires_at` or until revoked.
 */
export const articlePreviewLinks = pgTable(
  'article_preview_links',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    articleId: uuid('article_id')
      .notNull()
      .references(() => articles.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('article_preview_links_token_idx').on(t.tokenHash), index('article_preview_links_article_idx').on(t.articleId)],
);

/**
 * Tags (issue 34 item 4, docs/decisions/0100): a tag is known by its slug (names that differ
 * only in case, or in punctuation, are one tag); its name is the spelling it was first given.
 */
export const tags = pgTable('tags', {
  id: uuid('id').primaryKey().defaultRandom(),
  slug: text('slug').notNull().unique('tags_slug_unique'),
  name: text('name').notNull(),
});

/** An article's tags in their order: position 0 is the primary tag, the one named by the
 * article's category (SPEC's field, kept in step by the articles service). */
export const articleTags = pgTable(
  'article_tags',
  {
    articleId: uuid('article_id')
      .notNull()
      .references(() => articles.id, { onDelete: 'cascade' }),
    tagId: uuid('tag_id')
      .notNull()
      .references(() => tags.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
  },
  (t) => [primaryKey({ columns: [t.articleId, t.tagId] }), index('article_tags_tag_idx').on(t.tagId)],
);

/**
 * An article's text as one save left it (issue 34 item 6, docs/decisions/0097): the newest 20
 * per article are kept, pruned in the save's own transaction. `fields` is the revision's text
 * (contracts' TArticleRevisionFields); `author_id` who saved it.
 */
export const articleRevisions = pgTable(
  'article_revisions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    articleId: uuid('article_id')
      .notNull()
      .references(() => articles.id, { onDelete: 'cascade' }),
    /** 1, 2, 3... per article, in the order of the saves (taken under the article's row lock). */
    number: integer('number').notNull(),
    authorId: uuid('author_id').references(() => users.id, { onDelete: 'set null' }),
    fields: jsonb('fields').$type<TArticleRevisionFields>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('article_revisions_article_number_idx').on(t.articleId, t.number)],
);

/**
 * One row per chat call to an AI provider, whatever its outcome: the daily token and image
 * budgets sum it, and admins read cost per user from it. Aborted and failed calls keep whatever
 * tokens are known (or estimated), so stopping a stream does not dodge the budget.
 */
export const chatUsage = pgTable(
  'chat_usage',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    provider: text('provider').notNull(),
    model: text('model').notNull(),
    inputTokens: integer('input_tokens').notNull().default(0),
    outputTokens: integer('output_tokens').notNull().default(0),
    /** Images generated (billed per image, not per token). */
    images: integer('images').notNull().default(0),
    durationMs: integer('duration_ms').notNull().default(0),
    /** 'stopped': the person stopped it (Stop, or a client that went away); 'interrupted': the
     * server stopped or died while it ran (docs/decisions/0061). */
    outcome: text('outcome', { enum: ['ok', 'error', 'stopped', 'interrupted', 'rejected'] }).notNull(),
    /** The tokens are our estimate: the provider reported none (docs/decisions/0061). */
    estimated: boolean('estimated').notNull().default(false),
    error: text('error'),
    /** What the call was for: a chat message, an alert's brief (docs/decisions/0044), or a
     * condition drafted from words (docs/decisions/0075). All count against the user's daily
     * budget; the usage report tells them apart. */
    purpose: text('purpose', { enum: ['chat', 'alert-brief', 'condition-draft', 'embedding'] }).notNull().default('chat'),
    createdAt: createdAt(),
  },
  (t) => [
    index('chat_usage_user_created_idx').on(t.userId, t.createdAt),
    index('chat_usage_created_idx').on(t.createdAt),
    check('chat_usage_outcome_check', sql`${t.outcome} in ('ok', 'error', 'stopped', 'interrupted', 'rejected')`),
    check('chat_usage_purpose_check', sql`${t.purpose} in ('chat', 'alert-brief', 'condition-draft', 'embedding')`),
  ],
);

/**
 * Budget held by a chat call in flight: its estimated input plus the most output it may produce
 * (or the image it may generate), taken under a per-user lock before the provider is called and
 * deleted when the call's `chat_usage` row is written (docs/decisions/0011). The process renews
 * `expires_at` while the call runs; a row whose process died stops counting when it expires.
 */
export const chatReservations = pgTable(
  'chat_reservations',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tokens: integer('tokens').notNull().default(0),
    images: integer('images').notNull().default(0),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('chat_reservations_user_expires_idx').on(t.userId, t.expiresAt)],
);

/**
 * A user's conversation with one assistant, on every device (docs/decisions/0046). Keyed for the
 * client by SPEC's chat id, unique per user: the browser's local copy and this row are the same
 * chat, so saving or importing it again adds nothing. `title` follows the first question of the
 * branch in view (SPEC); `custom_title` is the user's rename. `leaf_id` is the last message of
 * the branch in view (docs/decisions/0048); `system_prompt` and `temperature` are the chat's own
 * settings (docs/decisions/0047). The title's text-search index serves the sidebar's search.
 */
export const chatConversations = pgTable(
  'chat_conversations',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    chatId: text('chat_id').notNull(),
    provider: text('provider').$type<TChatProvider>().notNull(),
    title: text('title').notNull(),
    customTitle: text('custom_title'),
    model: text('model').notNull(),
    leafId: text('leaf_id'),
    systemPrompt: text('system_prompt').notNull().default(''),
    temperature: doublePrecision('temperature'),
    /** "Use my agents" (issue 31, docs/decisions/0076): null until the chat sets it (the default, on for admins, applies). */
    useAgents: boolean('use_agents'),
    /** "Search the web" (issue 32): null until the chat sets it. */
    webSearch: boolean('web_search'),
    /** Its project (issue 32); a deleted project leaves its chats outside any project. */
    projectId: uuid('project_id').references(() => projects.id, { onDelete: 'set null' }),
    /** Pinned chats head the list (issue 32). */
    pinned: boolean('pinned').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('chat_conversations_user_chat_idx').on(t.userId, t.chatId),
    index('chat_conversations_user_updated_idx').on(t.userId, t.updatedAt),
    index('chat_conversations_title_search_idx').using('gin', sql`to_tsvector('english', coalesce(${t.customTitle}, ${t.title}))`),
  ],
);

/**
 * One message of a conversation, every version of every turn (docs/decisions/0048): `id` is the
 * browser's, unique within its conversation, so a message saved twice is stored once;
 * `parent_id` is the message it follows (null for the first). Messages are never changed once
 * stored; an edit or a regenerated answer is a new sibling. `seq` keeps the order they were
 * stored in. The content's text-search index serves the sidebar's search.
 */
export const chatMessages = pgTable(
  'chat_messages',
  {
    conversationId: uuid('conversation_id')
      .notNull()
      .references(() => chatConversations.id, { onDelete: 'cascade' }),
    id: text('id').notNull(),
    seq: bigint('seq', { mode: 'number' }).generatedAlwaysAsIdentity(),
    parentId: text('parent_id'),
    role: text('role', { enum: ['user', 'assistant'] }).notNull(),
    content: text('content').notNull(),
    model: text('model'),
    note: text('note'),
    failed: boolean('failed').notNull().default(false),
    imagesNotKept: integer('images_not_kept').notNull().default(0),
    /** Its images, in order (`chat_images` ids of the same conversation; docs/decisions/0055). */
    imageIds: jsonb('image_ids').$type<string[]>().notNull().default([]),
    /** Set while the server is still writing this answer (docs/decisions/0056): the text so far
     * is saved every second and this lease renewed; past it, the writing process is gone. Null
     * once the answer has ended, and from then on the row never changes. */
    streamingUntil: timestamp('streaming_until', { withTimezone: true }),
    /** Stop was pressed in a process that is not writing the answer: the writer reads it. */
    stopRequested: boolean('stop_requested').notNull().default(false),
    /** How an answer ended (contracts CHAT_FINISHES; docs/decisions/0061); null while it is being
     * written, for questions, and for answers kept before endings were. */
    finish: text('finish').$type<TChatFinish>(),
    /** An answer being written whose usage is not recorded yet: its estimated input, and the budget
     * reservation it holds. Whoever records its usage clears them in the same transaction (its
     * writer at the end, or, when the writer died, the sweep that settles it), so it is counted
     * once (docs/decisions/0061). */
    unsettledInputTokens: integer('unsettled_input_tokens'),
    reservationId: uuid('reservation_id'),
    /** The tool steps an answer took (issue 31, docs/decisions/0076), in order; saved as each ends
     * while the answer is written. Null: none. */
    toolSteps: jsonb('tool_steps').$type<TToolStep[]>(),
    /** A question's documents (issue 32; `documents` ids of the same user), in order. */
    documentIds: jsonb('document_ids').$type<string[]>().notNull().default([]),
    /** An answer's sources, cited as [n] (issue 32). Null: none. */
    citations: jsonb('citations').$type<TCitation[]>(),
    /** How an answer's sources were found, kept with it so a reload, a rejoin and the exports say
     * what the stream said (docs/decisions/0088): the sentence shown (full text only, files
     * without text, a failed web search) and the retrieval's mode and files without text. Null: none. */
    sourcesNote: text('sources_note'),
    retrieval: jsonb('retrieval').$type<TRetrievalInfo>(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.conversationId, t.id] }),
    index('chat_messages_conversation_seq_idx').on(t.conversationId, t.seq),
    index('chat_messages_content_search_idx').using('gin', sql`to_tsvector('english', ${t.content})`),
    index('chat_messages_streaming_idx').on(t.conversationId).where(sql`${t.streamingUntil} is not null`),
    check('chat_messages_role_check', sql`${t.role} in ('user', 'assistant')`),
    check(
      'chat_messages_finish_check',
      sql`${t.finish} is null or ${t.finish} in ('complete', 'length', 'content-filter', 'other', 'connection-lost', 'stopped', 'failed', 'interrupted')`,
    ),
  ],
);

/**
 * An image of a user's chats (docs/decisions/0055): one they uploaded to ask about, or one an
 * assistant generated. Kept in the database (every web process serves it; backups hold it) and
 * served only to its owner. `conversation_id` is set once a saved message of that chat refers to
 * it, and the chat's deletion deletes it; an upload never sent is deleted after a day.
 * `media_type`, `width` and `height` are read from the bytes, never taken from the client.
 */
export const chatImages = pgTable(
  'chat_images',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    conversationId: uuid('conversation_id').references(() => chatConversations.id, { onDelete: 'cascade' }),
    origin: text('origin', { enum: ['upload', 'generated'] }).notNull(),
    mediaType: text('media_type').$type<TChatImageType>().notNull(),
    bytes: integer('bytes').notNull(),
    width: integer('width').notNull(),
    height: integer('height').notNull(),
    data: bytea('data').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index('chat_images_user_created_idx').on(t.userId, t.createdAt),
    index('chat_images_conversation_idx').on(t.conversationId),
    check('chat_images_origin_check', sql`${t.origin} in ('upload', 'generated')`),
    check('chat_images_media_type_check', sql`${t.mediaType} in ('image/png', 'image/jpeg', 'image/webp', 'image/gif')`),
  ],
);

/** A user's named chat settings (docs/decisions/0047): a system prompt and a temperature to apply to a chat. */
export const chatPresets = pgTable(
  'chat_presets',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    systemPrompt: text('system_prompt').notNull().default(''),
    temperature: doublePrecision('temperature'),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('chat_presets_user_name_idx').on(t.userId, sql`lower(${t.name})`)],
);

/**
 * A monitoring agent, owned by the user who created it. `config` is the whole wizard
 * configuration (schedule with its IANA time zone, notifications, parameters), checked against
 * the template before every write. The runtime's state is elsewhere (the next slot in
 * agent_schedules, the last run and its performance in agent_runs): this wide row is written only
 * when a person changes the agent (docs/decisions/0103, 0104).
 */
export const agents = pgTable(
  'agents',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    ownerId: uuid('owner_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    templateId: text('template_id').notNull(),
    name: text('name').notNull(),
    status: text('status', { enum: ['running', 'paused'] }).$type<TAgentStatus>().notNull().default('paused'),
    config: jsonb('config').$type<TAgentConfig>().notNull(),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  // The default fillfactor again (migration 0035 resets 0034's 50): no run writes this row now.
  (t) => [index('agents_owner_created_idx').on(t.ownerId, t.createdAt), check('agents_status_check', sql`${t.status} in ('running', 'paused')`)],
);

/**
 * An agent's next slot, one row per agent, created with it in the same transaction by a trigger
 * on agents' inserts (migration 0035's SQL; docs/decisions/0103): the row a dispatch claims and
 * moves to its next slot, ~40 bytes where the agent's row with its config is 1-2 KB. The dispatch
 * claims due rows through the partial index on next_run_at (null while paused: a paused agent is
 * not in it), locking these rows, never the agent's. A run's record writes nothing here: the
 * agent's last run and performance are read from its runs (docs/decisions/0104). Migration
 * 0035's SQL (drizzle cannot say it here) sets fillfactor 50 and adds the agents list cache's
 * trigger (migration 0015).
 */
export const agentSchedules = pgTable(
  'agent_schedules',
  {
    agentId: uuid('agent_id')
      .primaryKey()
      .references(() => agents.id, { onDelete: 'cascade' }),
    /** The next slot; null while paused or when the schedule has none left. */
    nextRunAt: timestamp('next_run_at', { withTimezone: true }),
  },
  (t) => [index('agent_schedules_next_run_idx').on(t.nextRunAt).where(sql`${t.nextRunAt} is not null`)],
);

/**
 * One execution of an agent. Run-now rows are 'queued' with no `scheduled_for`; scheduled runs
 * carry their slot, and (agent, slot) is unique so a slot runs at most once even with several
 * workers or after a crash (DESIGN section 7). NULL slots never collide, so run-now is unlimited.
 *
 * Written three times (queued, running, finished), so no index covers a column those writes
 * change (status, start_time, end_time, result...): each is a HOT update, on the same page, with
 * no new index entries (docs/decisions/0102). The table's fillfactor (50, set by migration 0034's
 * SQL; drizzle cannot say it here) leaves that room on each page. A running run's lease is in
 * run_leases, one row per batch, not in this row.
 */
export const agentRuns = pgTable(
  'agent_runs',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    /**
     * References the agent's schedule row, not the agent's (decision 0103): the key share lock the
     * foreign key takes as a dispatch inserts runs falls on the schedule row the dispatch holds
     * already, so a run leaves the agents page untouched. Deleting the agent deletes its schedule
     * row, and that its runs, as before.
     */
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agentSchedules.agentId, { onDelete: 'cascade' }),
    status: text('status', { enum: ['queued', 'running', 'success', 'failure'] }).$type<TAgentRun['status']>().notNull().default('queued'),
    scheduledFor: timestamp('scheduled_for', { withTimezone: true }),
    startTime: timestamp('start_time', { withTimezone: true }),
    endTime: timestamp('end_time', { withTimezone: true }),
    /** Compressed with lz4 on PostgreSQL (migration 0013, decision 0052; drizzle cannot say so here). */
    result: jsonb('result'),
    /**
     * A successful run's price of each market it read, keyed 'source:symbol': what the agent's
     * next run measures its performance against, read without the large result (decision 0052).
     * Null before migration 0013; the result's markets say the same then.
     */
    prices: jsonb('prices').$type<Record<string, number>>(),
    /**
     * When set, the result's markets are these rows of agent_run_markets, in this order, and
     * `result` holds the rest (decision 0102: the runs of a batch that read one market share its
     * ~8 KB, written once). Null: the result is whole (runs recorded before migration 0034).
     */
    marketIds: bigint('market_ids', { mode: 'number' }).array(),
    /**
     * A success's change against the previous success, signed percent text such as '+1.2%'
     * (SPEC), null when it had nothing to compare with: the agent's performance is its latest
     * success's (docs/decisions/0104). Null on failures.
     */
    performance: text('performance'),
    error: text('error'),
    createdAt: createdAt(),
  },
  (t) => [
    index('agent_runs_agent_id_idx').on(t.agentId, t.id.desc()),
    uniqueIndex('agent_runs_agent_slot_idx').on(t.agentId, t.scheduledFor),
    check('agent_runs_status_check', sql`${t.status} in ('queued', 'running', 'success', 'failure')`),
  ],
);

/**
 * A market's result as runs recorded it (TMarketResult, chart and all), written once for every run
 * of a batch that read it (agent_runs.market_ids; decision 0102). Compressed with lz4 on
 * PostgreSQL (migration 0034's SQL). The runs that read it have ids from `first_run_id` to
 * `last_run_id`, so a row no run reads any more is found without an index on market_ids
 * (deleteUnreadRunMarkets).
 */
export const agentRunMarkets = pgTable('agent_run_markets', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  market: jsonb('market').notNull(),
  firstRunId: bigint('first_run_id', { mode: 'number' }).notNull(),
  lastRunId: bigint('last_run_id', { mode: 'number' }).notNull(),
});

/**
 * The lease of a batch of running runs (docs/decisions/0102): until when the worker that took
 * them is known alive. Created with the runs' move to 'running' (one statement), renewed as one
 * row every third of the lease, deleted once none of its runs is running. A lease that passed
 * belonged to a dead worker: the dispatcher's sweep deletes it and fails those of its runs still
 * running 'interrupted'. A few hundred rows at most, read whole: no index but its key.
 */
export const runLeases = pgTable('run_leases', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  runIds: bigint('run_ids', { mode: 'number' }).array().notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
});

/**
 * A notification for a user: the alerts one run of their agent raised, or that the agent is
 * failing or has recovered. `email_status`
 * follows the email: 'none' (email off), 'pending' (queued or being retried), 'sent', 'logged'
 * (no SMTP_URL: written to the log instead) or 'failed' (gave up after the retries).
 */
export const notifications = pgTable(
  'notifications',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    agentId: uuid('agent_id').references(() => agents.id, { onDelete: 'set null' }),
    runId: bigint('run_id', { mode: 'number' }).references(() => agentRuns.id, { onDelete: 'set null' }),
    /** 'alerts' (a run's alerts, listed in `alerts`), 'failing' or 'recovered' (the agent's health),
     * 'alert-storm' (the alerts its per-hour cap held back, listed in `alerts`; docs/decisions/0041). */
    kind: text('kind', { enum: NOTIFICATION_KINDS }).$type<TNotificationKind>().notNull().default('alerts'),
    agentName: text('agent_name').notNull(),
    /** The market and threshold type when the notification is about one; null otherwise. */
    market: text('market'),
    thresholdType: text('threshold_type'),
    /** Every alert of the run, with its numbers (one notification per run, docs/decisions/0029). */
    alerts: jsonb('alerts').$type<TRunAlert[]>().notNull().default([]),
    /** Every condition of the owner's the run notified, in plain words with its values (issue 30). */
    conditions: jsonb('conditions').$type<TNotifiedCondition[]>().notNull().default([]),
    title: text('title').notNull(),
    message: text('message').notNull(),
    readAt: timestamp('read_at', { withTimezone: true }),
    emailStatus: text('email_status', { enum: ['none', 'pending', 'sent', 'logged', 'failed'] }).notNull().default('none'),
    emailAttempts: integer('email_attempts').notNull().default(0),
    emailError: text('email_error'),
    /** An 'alert-storm' notice's end of the held period: when the agent's cap lets alerts through
     * again. It names the period, so each held period has one notice (docs/decisions/0041). */
    heldUntil: timestamp('held_until', { withTimezone: true }),
    /**
     * "Explain alerts" (docs/decisions/0044): the brief of an 'alerts' notification whose agent
     * asked for one; status null = none. The assistant's text is plain text, bounded.
     */
    briefStatus: text('brief_status').$type<TBriefStatus>(),
    briefProvider: text('brief_provider'),
    briefModel: text('brief_model'),
    briefText: text('brief_text'),
    briefError: text('brief_error'),
    /** The brief settled after the email and channel deliveries were released: it follows them. */
    briefFollows: boolean('brief_follows').notNull().default(false),
    /** The follow-up email that carries a brief written after the alert's email went out. */
    briefEmailStatus: text('brief_email_status', { enum: ['none', 'pending', 'sent', 'logged', 'failed'] }).notNull().default('none'),
    /** When the email and channel deliveries were let go: at once without a brief, else when the
     * brief settled or its grace (ALERT_BRIEF_WAIT_SECONDS) ended, whichever came first. Set once. */
    deliveriesReleasedAt: timestamp('deliveries_released_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    index('notifications_user_created_idx').on(t.userId, t.createdAt.desc()),
    index('notifications_user_unread_idx').on(t.userId).where(sql`${t.readAt} is null`),
    // The per-hour cap counts an agent's latest notifications (docs/decisions/0041).
    index('notifications_agent_created_idx').on(t.agentId, t.createdAt),
    // Removing old runs (docs/decisions/0101) sets their notifications' run_id to null, a lookup
    // per removed run: without this index, a scan of every notification for each of them.
    index('notifications_run_id_idx').on(t.runId).where(sql`${t.runId} is not null`),
    check('notifications_email_status_check', sql`${t.emailStatus} in ('none', 'pending', 'sent', 'logged', 'failed')`),
    check('notifications_kind_check', sql`${t.kind} in ('alerts', 'failing', 'recovered', 'alert-storm')`),
    check('notifications_brief_status_check', sql`${t.briefStatus} in ('pending', 'ready', 'failed')`),
    check('notifications_brief_email_status_check', sql`${t.briefEmailStatus} in ('none', 'pending', 'sent', 'logged', 'failed')`),
  ],
);

/**
 * Which (agent, market, threshold) conditions are firing now. A notification is created only
 * when a condition starts firing, and the row is deleted when it clears, so one event gives one
 * alert however many runs see it.
 */
export const alertStates = pgTable(
  'alert_states',
  {
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    market: text('market').notNull(),
    thresholdType: text('threshold_type').notNull(),
    since: timestamp('since', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.market, t.thresholdType] })],
);

/**
 * The trigger state of an owner's condition on one market (issue 30, docs/decisions/0073): when
 * it last notified and for which candle (cooldown, once per candle). Each market of a watchlist
 * has its own row. Read when the runs are taken, written with the alerts in one transaction;
 * rows of a condition no longer in the config are never read (and deleted on the config change).
 */
export const conditionStates = pgTable(
  'condition_states',
  {
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    conditionId: uuid('condition_id').notNull(),
    market: text('market').notNull(),
    lastNotifiedAt: timestamp('last_notified_at', { withTimezone: true }),
    /** Open time (ms) of the candle it last notified for. */
    lastNotifiedCandle: bigint('last_notified_candle', { mode: 'number' }),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.conditionId, t.market] })],
);

/**
 * What the owner (or the condition itself) decided for a condition on all its markets
 * (docs/decisions/0073): disarmed after an 'only once' notification until re-armed, and snoozed
 * until a time. No row: armed and not snoozed.
 */
export const conditionControls = pgTable(
  'condition_controls',
  {
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    conditionId: uuid('condition_id').notNull(),
    disarmed: boolean('disarmed').notNull().default(false),
    snoozedUntil: timestamp('snoozed_until', { withTimezone: true }),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.conditionId] })],
);

/**
 * An agent or a change an assistant proposed (issue 31, docs/decisions/0076): nothing is created
 * or changed until the owner applies it through the agents service. `base_config` and `base_name`
 * are the agent as it was when the change was proposed: applying is refused when it has changed
 * since. `backtest` is its test on history, run when proposed (or why not, `backtest_error`).
 * A change's agent is not a foreign key: the proposal outlives it, and applying says it is gone.
 */
export const agentProposals = pgTable(
  'agent_proposals',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    source: text('source').$type<(typeof PROPOSAL_SOURCES)[number]>().notNull(),
    /** The assistant's label in the chat, the access token's name over MCP. */
    sourceName: text('source_name').notNull(),
    conversationId: uuid('conversation_id').references(() => chatConversations.id, { onDelete: 'set null' }),
    kind: text('kind').$type<TProposal['kind']>().notNull(),
    agentId: uuid('agent_id'),
    templateId: text('template_id').notNull(),
    name: text('name').notNull(),
    config: jsonb('config').$type<TAgentConfig>().notNull(),
    reason: text('reason').notNull(),
    baseName: text('base_name'),
    baseConfig: jsonb('base_config').$type<TAgentConfig>(),
    backtest: jsonb('backtest'),
    backtestError: text('backtest_error'),
    status: text('status').$type<TProposalStatus>().notNull().default('pending'),
    createdAt: createdAt(),
    decidedAt: timestamp('decided_at', { withTimezone: true }),
    resultAgentId: uuid('result_agent_id'),
  },
  (t) => [
    index('agent_proposals_user_status_idx').on(t.userId, t.status, t.createdAt),
    check('agent_proposals_status_check', sql`${t.status} in ('pending', 'applied', 'discarded')`),
    check('agent_proposals_kind_check', sql`${t.kind} in ('create', 'change')`),
    check('agent_proposals_source_check', sql`${t.source} in ('chat', 'mcp')`),
  ],
);

/**
 * Closed candles read for "Test on history" (issue 16), per (source, symbol, timeframe, open time
 * in ms), so a second test of a market fetches only what is newer (docs/decisions/0037). Per
 * market the rows are one run without holes, and at most CACHED_CANDLES_PER_MARKET of them.
 */
export const candleCache = pgTable(
  'candle_cache',
  {
    source: text('source').notNull(),
    symbol: text('symbol').notNull(),
    timeframe: text('timeframe').notNull(),
    time: bigint('time', { mode: 'number' }).notNull(),
    open: doublePrecision('open').notNull(),
    high: doublePrecision('high').notNull(),
    low: doublePrecision('low').notNull(),
    close: doublePrecision('close').notNull(),
    volume: doublePrecision('volume').notNull(),
  },
  (t) => [primaryKey({ columns: [t.source, t.symbol, t.timeframe, t.time] })],
);

/**
 * One row per cached market: what is known about the provider's history there, and when a test
 * last read it (markets nobody tested for a while are dropped from the cache).
 */
export const candleCoverage = pgTable(
  'candle_coverage',
  {
    source: text('source').notNull(),
    symbol: text('symbol').notNull(),
    timeframe: text('timeframe').notNull(),
    /** Open time (ms) of the oldest candle the provider gives; it holds none older. Null: not known. */
    oldestAvailable: bigint('oldest_available', { mode: 'number' }),
    usedAt: timestamp('used_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.source, t.symbol, t.timeframe] }), index('candle_coverage_used_at_idx').on(t.usedAt)],
);

/**
 * A user's delivery channel (docs/decisions/0043). `secret` holds the channel's whole
 * configuration (URL, or bot token and chat id, and a webhook's signing secret) sealed by
 * server/lib/secret-box.ts under the channel's id; `target` is the masked hint the API shows.
 */
export const channels = pgTable(
  'channels',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    kind: text('kind').$type<TChannelKind>().notNull(),
    name: text('name').notNull(),
    target: text('target').notNull(),
    secret: text('secret').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index('channels_user_created_idx').on(t.userId, t.createdAt),
    check('channels_kind_check', sql`${t.kind} in ('webhook', 'slack', 'discord', 'telegram', 'teams')`),
  ],
);

/**
 * One channel's delivery of one notification: its status, attempts and last failure (a fixed
 * sentence). The channel's kind and name are copied, so the record outlives the channel.
 */
export const channelDeliveries = pgTable(
  'channel_deliveries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    notificationId: uuid('notification_id')
      .notNull()
      .references(() => notifications.id, { onDelete: 'cascade' }),
    channelId: uuid('channel_id').references(() => channels.id, { onDelete: 'set null' }),
    channelKind: text('channel_kind').$type<TChannelKind>().notNull(),
    channelName: text('channel_name').notNull(),
    /** The notification itself, or its brief's follow-up (docs/decisions/0044). */
    event: text('event').$type<TDeliveryEvent>().notNull().default('notification'),
    status: text('status').$type<TDeliveryStatus>().notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('channel_deliveries_notification_idx').on(t.notificationId),
    check('channel_deliveries_status_check', sql`${t.status} in ('pending', 'sent', 'failed')`),
    check('channel_deliveries_event_check', sql`${t.event} in ('notification', 'notification.brief')`),
  ],
);

// --- Documents, projects and share links (issue 32, docs/decisions/0081) ------------------------

/** A full-text vector (PostgreSQL tsvector), read back as its text. */
const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

/** A user's project: shared instructions, knowledge documents and a default assistant for its chats. */
export const projects = pgTable(
  'projects',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    instructions: text('instructions').notNull().default(''),
    defaultProvider: text('default_provider').$type<TChatProvider>(),
    defaultModel: text('default_model'),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('projects_user_name_idx').on(t.userId, sql`lower(${t.name})`)],
);

/**
 * A document's text, extracted on upload (its bytes are not kept). It belongs to a project's
 * knowledge, or to the chat whose question carried it (null until the question is kept);
 * deleting either deletes it, its passages and their vectors.
 */
export const documents = pgTable(
  'documents',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    projectId: uuid('project_id').references(() => projects.id, { onDelete: 'cascade' }),
    conversationId: uuid('conversation_id').references(() => chatConversations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    type: text('type').$type<TDocumentType>().notNull(),
    bytes: integer('bytes').notNull(),
    status: text('status').$type<TDocumentStatus>().notNull(),
    error: text('error'),
    pages: integer('pages'),
    passages: integer('passages').notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [
    index('documents_user_created_idx').on(t.userId, t.createdAt),
    index('documents_project_idx').on(t.projectId),
    index('documents_conversation_idx').on(t.conversationId),
    check('documents_status_check', sql`${t.status} in ('ready', 'no-text', 'failed')`),
    check('documents_type_check', sql`${t.type} in ('pdf', 'docx', 'xlsx', 'csv', 'markdown', 'text', 'html')`),
  ],
);

/**
 * A passage of a document: its text, where it sits (page or sheet, the heading it falls under),
 * a generated full-text vector, and, once embedded, its vector (float32 bytes) with the model and
 * dimensions that made it (a change of model re-embeds).
 */
export const documentPassages = pgTable(
  'document_passages',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    documentId: uuid('document_id')
      .notNull()
      .references(() => documents.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    ord: integer('ord').notNull(),
    page: integer('page'),
    sheet: text('sheet'),
    heading: text('heading'),
    text: text('text').notNull(),
    tsv: tsvector('tsv')
      .notNull()
      .generatedAlwaysAs(sql`to_tsvector('english', coalesce(heading, '') || ' ' || text)`),
    embedding: bytea('embedding'),
    embeddingModel: text('embedding_model'),
    embeddingDims: integer('embedding_dims'),
  },
  (t) => [
    uniqueIndex('document_passages_document_ord_idx').on(t.documentId, t.ord),
    index('document_passages_user_idx').on(t.userId),
    index('document_passages_tsv_idx').using('gin', t.tsv),
  ],
);

/** Each user's documents version: bumped with every change to their passages, so a process's vector cache knows when it is stale. */
export const documentVersions = pgTable('document_versions', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  version: bigint('version', { mode: 'number' }).notNull().default(0),
});

/** A conversation shared as a read-only snapshot at an unguessable URL; the token is kept as its SHA-256. */
export const shareLinks = pgTable(
  'share_links',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    conversationId: uuid('conversation_id')
      .notNull()
      .references(() => chatConversations.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    title: text('title').notNull(),
    provider: text('provider').$type<TChatProvider>().notNull(),
    includeImages: boolean('include_images').notNull().default(false),
    /** The branch in view when shared: role, content, model, note, image ids (when included), citations. */
    snapshot: jsonb('snapshot').$type<unknown[]>().notNull(),
    views: integer('views').notNull().default(0),
    createdAt: createdAt(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('share_links_token_idx').on(t.tokenHash), index('share_links_user_idx').on(t.userId), index('share_links_conversation_idx').on(t.conversationId)],
);
