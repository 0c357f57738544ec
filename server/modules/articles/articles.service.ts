import { ARTICLE_REVISION_FIELDS, type TArticle, type TArticleRevision, type TArticleRevisionFields, type TArticleRevisionList, type TArticleSummary, type TPublicArticle } from '../../../contracts/articles.ts';
import type { z } from 'zod';
import type { ZArticleInput, ZUpdateArticle } from '../../../contracts/articles.ts';
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { articles as articlesTable } from '../../db/schema.ts';
import { AppError } from '../../lib/errors.ts';
import type { Invalidations, Sent } from '../../lib/invalidations.ts';
import {
  deleteArticle,
  findArticleById,
  findArticleBySlug,
  insertArticleIfSlugFree,
  listAllArticles,
  listPublishedArticles,
  publishDue,
  updateArticle,
  type ArticlePatch,
  type ArticleRow,
  type ArticleWithCover,
} from './articles.repo.ts';
import { findImage } from './article-images.repo.ts';
import { articleImageSources, CARD_IMAGE_SIZES, CONTENT_IMAGE_SIZES, type TArticleCover } from '../../../contracts/article-images.ts';
import { COVER_ALT_REQUIRED } from '../../../contracts/articles.ts';
import type { ArticleSchedule } from './article-schedule.ts';
import { findRevision, listRevisions, newestRevisionFields, recordRevision } from './article-revisions.repo.ts';
import { slugCandidate, slugify } from './slug.ts';

const SLUG_ATTEMPTS = 50;

export type ArticlesServiceDeps = {
  db: Db;
  /** Publish, edit and delete in every process (docs/decisions/0049); without them, no cache. */
  invalidations: Invalidations;
  /** Scheduled publishing's jobs (docs/decisions/0098), written in the saves' transactions. */
  schedule: Pick<ArticleSchedule, 'schedule' | 'cancel'>;
  now?: () => Date;
};
/** A list entry as the feeds need it: also when it was last edited and where its canonical page is. */
type PublishedSummary = TArticleSummary & { updatedAt: string; canonicalUrl: string | null };
type SeoField = 'metaTitle' | 'metaDescription' | 'canonicalUrl' | 'coverImageId' | 'coverAlt';
/** A new article's fields; the search and social ones may be left out (none). */
type NewArticleInput = Omit<z.output<typeof ZArticleInput>, SeoField> & Partial<Pick<z.output<typeof ZArticleInput>, SeoField>>;

/** An article's cover as the pages show it (docs/decisions/0099), or null. */
export function coverOf(row: { coverImageId: string | null; coverAlt: string | null; coverWidth: number | null; coverHeight: number | null }, place: 'page' | 'card' = 'page'): TArticleCover | null {
  if (!row.coverImageId || row.coverWidth === null || row.coverHeight === null) return null;
  const shown = place === 'card' ? { sizes: CARD_IMAGE_SIZES, loading: 'lazy' as const } : { sizes: CONTENT_IMAGE_SIZES, fetchPriority: 'high' as const };
  return { alt: row.coverAlt ?? '', ...shown, ...articleImageSources({ id: row.coverImageId, width: row.coverWidth, height: row.coverHeight }) };
}

export function toApiArticle(row: ArticleWithCover): TArticle {
  return {
    id: row.id,
    slug: row.slug,
    title: row.title,
    category: row.category,
    excerpt: row.excerpt,
    content: row.content,
    readTime: row.readTime,
    published: row.status === 'published',
    status: row.status,
    publishAt: row.publishAt?.toISOString() ?? null,
    authorId: row.authorId,
    createdAt: row.createdAt.toISOString(),
    publishedAt: (row.publishedAt ?? row.createdAt).toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    metaTitle: row.metaTitle,
    metaDescription: row.metaDescription,
    canonicalUrl: row.canonicalUrl,
    coverImageId: row.coverImageId,
    coverAlt: row.coverAlt,
    cover: coverOf(row),
  };
}

/** A published article as its page's head needs it: with its author's name (JSON-LD). */
export type PublishedArticle = TArticle & { authorName: string | null };

function withoutAuthorName({ authorName: _name, ...article }: PublishedArticle): TArticle {
  return article;
}

/**
 * What a save's publishing fields do to the row (docs/decisions/0098): a time schedules it (off
 * the site until then); `published` publishes now (keeping the date it first went public) or
 * makes it a draft; `publishAt: null` alone makes a scheduled article a draft again. Null: the
 * save leaves the publication state alone.
 */
function publicationChange(input: { published?: boolean | undefined; publishAt?: string | null | undefined }, now: Date): { patch: ArticlePatch; scheduleAt: Date | null } | null {
  if (typeof input.publishAt === 'string') {
    return { patch: { status: 'scheduled', publishAt: new Date(input.publishAt) }, scheduleAt: new Date(input.publishAt) };
  }
  if (input.published === true) return { patch: { status: 'published', publishAt: null, publishedAt: sql`coalesce(${articlesTable.publishedAt}, ${now.toISOString()}::timestamptz)` }, scheduleAt: null };
  if (input.published === false) return { patch: { status: 'draft', publishAt: null }, scheduleAt: null };
  if (input.publishAt === null) {
    return { patch: { status: sql`case when ${articlesTable.status} = 'scheduled' then 'draft' else ${articlesTable.status} end`, publishAt: null }, scheduleAt: null };
  }
  return null;
}

/** The text a revision keeps of an article. */
const revisionFieldsOf = (row: ArticleRow): TArticleRevisionFields => ({
  title: row.title,
  category: row.category,
  excerpt: row.excerpt,
  content: row.content,
  readTime: row.readTime,
  coverImageId: row.coverImageId,
  coverAlt: row.coverAlt,
});

/** What a visitor's read carries: the page's fields, never the author's id or the draft state. */
export function toPublicArticle({ id, slug, title, category, excerpt, content, createdAt, publishedAt, readTime, metaTitle, metaDescription, cover }: TArticle): TPublicArticle {
  return { id, slug, title, category, excerpt, content, createdAt, publishedAt, readTime, metaTitle, metaDescription, cover };
}

/** A cover must be an uploaded image (400 on the field otherwise). */
async function assertCoverExists(db: Db, coverImageId: string | null | undefined): Promise<void> {
  if (typeof coverImageId === 'string' && !(await findImage(db, coverImageId))) {
    throw new AppError('BAD_REQUEST', 'Invalid request', [{ path: 'coverImageId', message: 'Cover image must be an uploaded image' }]);
  }
}

export function createArticlesService({ db, invalidations, schedule, now = () => new Date() }: ArticlesServiceDeps) {
  // Public reads (the landing page, /insights, article pages, feeds) are served from memory:
  // they are frequent and change rarely. One database read refills the list for all concurrent
  // requests; JSON is serialised once per fill; article pages are kept per slug. A generation
  // lives until an article is created, edited or deleted in any process (its transaction's
  // invalidation drops it at commit); while invalidations could be missed, none is kept.
  type Generation = {
    list: Promise<PublishedSummary[]>;
    json: Map<string, string>;
    pages: Map<string, Promise<PublishedArticle | null>>;
  };
  let generation: Generation | null = null;
  /** Counts the generations dropped: what the public responses cache keys its entries by. */
  let version = 0;
  const changeListeners: Array<() => void> = [];
  function drop(): void {
    generation = null;
    version++;
    for (const listener of changeListeners) listener();
  }
  invalidations.on('articles', drop);
  invalidations.onReset(drop);

  function current(): Generation {
    // Kept only while no invalidation can be missed (another process's may be on its way).
    if (generation && invalidations.reliable()) return generation;
    const fresh: Generation = {
      json: new Map(),
      pages: new Map(),
      list: listPublishedArticles(db).then((rows) =>
        rows.map(({ updatedAt, createdAt, publishedAt, coverImageId, coverAlt, coverWidth, coverHeight, ...row }) => ({
          ...row,
          // The lists' covers show on cards.
          cover: coverOf({ coverImageId, coverAlt, coverWidth, coverHeight }, 'card'),
          createdAt: createdAt.toISOString(),
          publishedAt: publishedAt.toISOString(),
          updatedAt: updatedAt.toISOString(),
        })),
      ),
    };
    if (invalidations.reliable()) generation = fresh;
    fresh.list.catch(() => {
      if (generation === fresh) generation = null; // a failed read is not cached
    });
    return fresh;
  }

  /** Published summaries (with updatedAt, for feeds and the sitemap), newest first. */
  async function publishedWithDates(): Promise<PublishedSummary[]> {
    return current().list;
  }

  async function listPublished(limit?: number, offset = 0): Promise<{ items: TArticleSummary[]; total: number }> {
    const all = await current().list;
    const items = all.slice(offset, limit === undefined ? undefined : offset + limit).map(({ updatedAt: _u, canonicalUrl: _c, ...summary }) => summary);
    return { items, total: all.length };
  }

  /** The same page of the list as JSON text, serialised once per cache fill. */
  async function listPublishedJson(limit?: number, offset = 0): Promise<{ json: string; total: number }> {
    const gen = current();
    const { items, total } = await listPublished(limit, offset);
    const key = `${limit ?? 'all'}:${offset}`;
    let json = gen.json.get(key);
    if (json === undefined) {
      json = JSON.stringify(items);
      gen.json.set(key, json);
    }
    return { json, total };
  }

  /** A published article by slug, or null. */
  function publishedBySlug(slug: string): Promise<PublishedArticle | null> {
    const gen = current();
    let page = gen.pages.get(slug);
    if (!page) {
      page = findArticleBySlug(db, slug).then((row) => (row?.status === 'published' ? { ...toApiArticle(row), authorName: row.authorName || null } : null));
      gen.pages.set(slug, page);
      page.catch(() => gen.pages.delete(slug));
    }
    return page;
  }

  /** An article page as a reader sees it; admins may also open drafts (to preview them), and
   * get the whole article. */
  async function readBySlug(slug: string, asAdmin: boolean): Promise<TPublicArticle | TArticle> {
    // A published article is the same for an admin: only a draft needs the database.
    const published = await publishedBySlug(slug);
    const article = published ? withoutAuthorName(published) : asAdmin ? await findArticleBySlug(db, slug).then((row) => (row ? toApiArticle(row) : null)) : null;
    if (!article) throw new AppError('NOT_FOUND', 'Article not found');
    return asAdmin ? article : toPublicArticle(article);
  }

  async function listForAdmin(): Promise<TArticle[]> {
    return (await listAllArticles(db)).map(toApiArticle);
  }

  async function getForAdmin(id: string): Promise<TArticle> {
    const row = await findArticleById(db, id);
    if (!row) throw new AppError('NOT_FOUND', 'Article not found');
    return toApiArticle(row);
  }

  /** Creates an article under a unique slug made from its title (post, post-2, post-3, ...);
   * its text is its first revision. */
  async function create(input: NewArticleInput, authorId: string): Promise<TArticle> {
    const base = slugify(input.title);
    const { published, publishAt, ...text } = input;
    await assertCoverExists(db, text.coverImageId);
    const at = now();
    const state = typeof publishAt === 'string' ? { status: 'scheduled' as const, publishAt: new Date(publishAt) } : published ? { status: 'published' as const, publishedAt: at } : { status: 'draft' as const };
    for (let attempt = 0; attempt < SLUG_ATTEMPTS; attempt++) {
      const written = await writeAndInvalidate(async (tx) => {
        const row = await insertArticleIfSlugFree(tx, { ...text, ...state, slug: slugCandidate(base, attempt), authorId });
        if (row) await recordRevision(tx, row.id, authorId, revisionFieldsOf(row));
        if (row?.publishAt) await schedule.schedule(tx, row.id, row.publishAt);
        return row ? findArticleById(tx, row.id) : undefined;
      });
      if (written) return toApiArticle(written);
    }
    throw new AppError('CONFLICT', 'Too many articles share this title; choose another title');
  }

  /** Changes fields; the slug stays, so links already shared keep working. A save that changed
   * the text (not only the publication state) is kept as a revision by `editorId`. */
  async function update(id: string, input: z.output<typeof ZUpdateArticle>, editorId: string | null): Promise<TArticle> {
    const { published, publishAt, ...text } = input;
    const publication = publicationChange({ published, publishAt }, now());
    const patch: ArticlePatch = { ...text, ...publication?.patch };
    await assertCoverExists(db, text.coverImageId);
    const row = await writeAndInvalidate(async (tx) => {
      const updated = await updateArticle(tx, id, patch);
      // Checked on the saved row, so a patch that clears the alt text of a kept cover is refused too.
      if (updated?.coverImageId && !updated.coverAlt) throw new AppError('BAD_REQUEST', 'Invalid request', [{ path: 'coverAlt', message: COVER_ALT_REQUIRED }]);
      if (updated && publication) {
        if (publication.scheduleAt) await schedule.schedule(tx, id, publication.scheduleAt);
        else await schedule.cancel(tx, id);
      }
      if (updated && ARTICLE_REVISION_FIELDS.some((field) => field in patch)) {
        const newestText = await newestRevisionFields(tx, id);
        const text = revisionFieldsOf(updated);
        // A revision kept before covers has none (undefined): the same as no cover.
        if (!newestText || ARTICLE_REVISION_FIELDS.some((field) => (newestText[field] ?? null) !== (text[field] ?? null))) await recordRevision(tx, id, editorId, text);
      }
      return updated ? findArticleById(tx, id) : undefined;
    });
    if (!row) throw new AppError('NOT_FOUND', 'Article not found');
    return toApiArticle(row);
  }

  async function revisions(id: string): Promise<TArticleRevisionList> {
    await getForAdmin(id); // 404 for an unknown article, not an empty list
    return { revisions: (await listRevisions(db, id)).map(toRevisionSummary) };
  }

  async function revision(id: string, revisionId: string): Promise<TArticleRevision> {
    const row = await findRevision(db, id, revisionId);
    if (!row) throw new AppError('NOT_FOUND', 'Revision not found');
    return { ...toRevisionSummary(row), fields: row.fields };
  }

  /** Puts a revision's text back (the publication state stays); itself a save, so a new revision. */
  async function restore(id: string, revisionId: string, editorId: string): Promise<TArticle> {
    const { fields } = await revision(id, revisionId);
    return update(id, fields, editorId);
  }

  async function remove(id: string): Promise<void> {
    const removed = await writeAndInvalidate(async (tx) => {
      const gone = await deleteArticle(tx, id);
      if (gone) await schedule.cancel(tx, id);
      return gone;
    });
    if (!removed) throw new AppError('NOT_FOUND', 'Article not found');
  }

  /**
   * Publishes the scheduled articles that are due (or the one, `articleId`: its job's), once
   * each whoever calls (docs/decisions/0098), and drops every process's cache when it did.
   */
  async function publishScheduled(articleId?: string): Promise<string[]> {
    const published = await writeAndInvalidate(async (tx) => {
      const ids = await publishDue(tx, now(), articleId);
      return ids.length > 0 ? ids : null;
    });
    return published ?? [];
  }

  /**
   * Runs a write in a transaction that invalidates every process's cache when it commits (when
   * the write changed something), and returns once this process has seen that: no process
   * serves the old article or list after the write has answered.
   */
  async function writeAndInvalidate<T>(write: (tx: Db) => Promise<T>): Promise<T> {
    let sent = null as Sent | null;
    const result = await db.transaction(async (tx) => {
      const value = await write(tx as unknown as Db); // a transaction is a Db for the repo's queries
      if (value) sent = await invalidations.notify(tx, 'articles', '*');
      return value;
    });
    await sent?.delivered();
    return result;
  }

  function toRevisionSummary(row: { id: string; number: number; createdAt: Date; authorId: string | null; authorName: string | null }) {
    return { id: row.id, number: row.number, createdAt: row.createdAt.toISOString(), author: row.authorId ? { id: row.authorId, name: row.authorName ?? '' } : null };
  }

  return {
    publishScheduled,
    revisions,
    revision,
    restore,
    listPublished,
    listPublishedJson,
    publishedWithDates,
    publishedBySlug,
    readBySlug,
    listForAdmin,
    getForAdmin,
    create,
    update,
    remove,
    /** What the public responses' cache is keyed by: changes with every invalidation. */
    version: () => version,
    /** Whether a response computed now may be kept (invalidations cannot be missed). */
    cacheable: () => invalidations.reliable(),
    onChange: (listener: () => void) => void changeListeners.push(listener),
  };
}

export type ArticlesService = ReturnType<typeof createArticlesService>;
