import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();

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
  },
  (t) => [index('sessions_user_idx').on(t.userId), index('sessions_expires_idx').on(t.expiresAt)],
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
    published: boolean('published').notNull().default(false),
    authorId: uuid('author_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('articles_slug_idx').on(t.slug),
    index('articles_published_created_idx').on(t.published, t.createdAt),
  ],
);

/**
 * One row per chat call to an AI provider, whatever its outcome: the daily token budget sums
 * it, and admins read cost per user from it. Aborted and failed calls keep whatever tokens are
 * known (or estimated), so stopping a stream does not dodge the budget.
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
    durationMs: integer('duration_ms').notNull().default(0),
    outcome: text('outcome', { enum: ['ok', 'error', 'aborted', 'rejected'] }).notNull(),
    error: text('error'),
    createdAt: createdAt(),
  },
  (t) => [
    index('chat_usage_user_created_idx').on(t.userId, t.createdAt),
    index('chat_usage_created_idx').on(t.createdAt),
    check('chat_usage_outcome_check', sql`${t.outcome} in ('ok', 'error', 'aborted', 'rejected')`),
  ],
);
