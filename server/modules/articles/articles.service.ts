import { ARTICLE_LIMITS, ARTICLE_REVISION_FIELDS, TAGS_AT_MOST, type TArticle, type TArticleAuthor, type TArticleTag, type TArticleTagPage, type TRelatedArticle, type TArticleRevision, type TArticleRevisionFields, type TArticleRevisionList, type TArticleSummary, type TPublicArticle } from '../../../contracts/articles.ts';
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
import { slugCandidate, slugify, tagSlug } from './slug.ts';
import { setArticleTags, tagsOfArticles, type TagToSet } from './tags.repo.ts';

/** A list entry as the API's lists show it. */
export const toSummary = ({ updatedAt: _u, canonicalUrl: _c, tags: _t, ...summary }: PublishedSummary): TArticleSummary => summary;

/** Related articles at the end of an article's page (decision 0100). */
const RELATED_MAX = 3;

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
type PublishedSummary = TArticleSummary & { updatedAt: string; canonicalUrl: string | null; tags: TArticleTag[] };
/** A tag's public page (decision 0100): the tag and its published articles, newest first. */
export type TaggedArticles = { tag: TArticleTag; articles: PublishedSummary[] };
type SeoField = 'metaTitle' | 'metaDescription' | 'canonicalUrl' | 'tags' | 'coverImageId' | 'coverAlt';
/** A new article's fields; the search and social ones, the further tags and the cover may be left out (none). */
type NewArticleInput = Omit<z.output<typeof ZArticleInput>, SeoField> & Partial<Pick<z.output<typeof ZArticleInput>, SeoField>>;

/** An article's cover as the pages show it (docs/decisions/0099), or null. */
export function coverOf(row: { coverImageId: string | null; coverAlt: string | null; coverWidth: number | null; coverHeight: number | null }, place: 'page' | 'card' = 'page'): TArticleCover | null {
  if (!row.coverImageId || row.coverWidth === null || row.coverHeight === null) return null;
  const shown = place === 'card' ? { sizes: CARD_IMAGE_SIZES, loading: 'lazy' as const } : { sizes: CONTENT_IMAGE_SIZES, fetchPriority: 'high' as const };
  return { alt: row.coverAlt ?? '', ...shown, ...articleImageSources({ id: row.coverImageId, width: row.coverWidth, height: row.coverHeight }) };
}

export function toApiArticle(row: ArticleWithCover, tags: TArticleTag[]): TArticle {
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
    tags,
    coverImageId: row.coverImageId,
    coverAlt: row.coverAlt,
    cover: coverOf(row),
  };
}

/**
 * The tags an article is given (decision 0100): its category first (the primary tag), then the
 * further ones, one per slug (names that differ only in case or punctuation are one tag);
 * refused beyond ARTICLE_LIMITS.tags in all.
 */
export function tagsToSet(category: string, further: string[]): TagToSet[] {
  const bySlug = new Map<string, TagToSet>();
  for (const name of [category, ...further]) {
    const slug = tagSlug(name);
    if (!bySlug.has(slug)) bySlug.set(slug, { name, slug });
  }
  if (bySlug.size > ARTICLE_LIMITS.tags.max) throw new AppError('BAD_REQUEST', 'Invalid request', [{ path: 'tags', message: TAGS_AT_MOST }]);
  return [...bySlug.values()];
}

/** The author as the public page shows them: a photo only from an https address (the CSP's
 * rule for images, and no mixed content); null when the account is gone or has no name. */
function authorOf(row: { authorName: string | null; authorPicture: string | null }): TArticleAuthor | null {
  if (!row.authorName) return null;
  const picture = row.authorPicture && /^https:\/\/[^\s"'<>]+$/i.test(row.authorPicture) ? row.authorPicture : null;
  return { name: row.authorName, picture };
}

/**
 * Up to RELATED_MAX published articles sharing the most tags with `article` (ties: the newest),
 * never itself; worked out from the public list already in memory (its tags are read with it, in
 * its one query), so it is as fresh as the list: any publish, edit or delete drops both.
 */
export function relatedTo(article: { id: string; tags: TArticleTag[] }, published: PublishedSummary[]): TRelatedArticle[] {
  const mine = new Set(article.tags.map((tag) => tag.slug));
  if (mine.size === 0) return [];
  return published
    .map((other, index) => ({ other, index, shared: other.id === article.id ? 0 : other.tags.filter((tag) => mine.has(tag.slug)).length }))
    .filter(({ shared }) => shared > 0)
    .sort((a, b) => b.shared - a.shared || a.index - b.index) // the list is newest first
    .slice(0, RELATED_MAX)
    .map(({ other: { slug, title, excerpt, category, publishedAt } }) => ({ slug, title, excerpt, category, publishedAt }));
}

/** A published article as its page's head needs it: with its author's name (JSON-LD). */
export type PublishedArticle = TArticle & { authorName: string | null };

function withoutAuthorName({ authorName: _name, ...article }: PublishedArticle): TArticle {
  return article;
}

/** Whether two revisions' texts are the same (tags compared by value; none before 0100 = []). */
function sameRevisionText(a: TArticleRevisionFields, b: TArticleRevisionFields): boolean {
  // A revision kept before tags or covers has none (undefined): the same as none set.
  return ARTICLE_REVISION_FIELDS.every((field) => (field === 'tags' ? JSON.stringify(a.tags ?? []) === JSON.stringify(b.tags ?? []) : (a[field] ?? null) === (b[field] ?? null)));
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
const revisionFieldsOf = (row: ArticleRow, tags: TagToSet[]): TArticleRevisionFields => ({
  title: row.title,
  category: row.category,
  excerpt: row.excerpt,
  content: row.content,
  readTime: row.readTime,
  tags: tags.slice(1).map((tag) => tag.name),
  coverImageId: row.coverImageId,
  coverAlt: row.coverAlt,
});

/** What a visitor's read carries: the page's fields, never the author's id or the draft state. */
export function toPublicArticle({ id, slug, title, category, excerpt, content, createdAt, publishedAt, readTime, metaTitle, metaDescription, tags, author, related, cover }: TArticle): TPublicArticle {
  return { id, slug, title, category, excerpt, content, createdAt, publishedAt, readTime, metaTitle, metaDescription, tags, cover, ...(author !== undefined && { author }), ...(related && { related }) };
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
    /** Tag pages by slug, worked out from `list`. */
    tagged: Map<string, Promise<TaggedArticles | null>>;
    /** The authors the cached pages name (decision 0100): a change to one drops the pages. */
    authors: Set<string>;
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
  // An author's name or photo changed (every sign-in writes the profile): pages naming them go.
  invalidations.on('user', (userId) => {
    if (generation?.authors.has(userId)) drop();
  });

  function current(): Generation {
    // Kept only while no invalidation can be missed (another process's may be on its way).
    if (generation && invalidations.reliable()) return generation;
    const fresh: Generation = {
      json: new Map(),
      pages: new Map(),
      tagged: new Map(),
      authors: new Set(),
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
    const items = all.slice(offset, limit === undefined ? undefined : offset + limit).map(toSummary);
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
      page = findArticleBySlug(db, slug).then(async (row) => {
        if (row?.status !== 'published') return null;
        if (row.authorId) gen.authors.add(row.authorId);
        // Its tags are in the list (read with it), as are the articles related to it.
        const list = await gen.list;
        const tags = list.find((article) => article.id === row.id)?.tags ?? (await tagsOfArticles(db, [row.id])).get(row.id)!;
        return { ...toApiArticle(row, tags), author: authorOf(row), related: relatedTo({ id: row.id, tags }, list), authorName: row.authorName || null };
      });
      gen.pages.set(slug, page);
      page.catch(() => gen.pages.delete(slug));
    }
    return page;
  }

  /** A tag's page (decision 0100): the tag and its published articles, newest first; null for
   * an unknown tag or one no published article has. From the list in memory. */
  function publishedByTag(slug: string): Promise<TaggedArticles | null> {
    const gen = current();
    let tagged = gen.tagged.get(slug);
    if (!tagged) {
      tagged = gen.list.then((list) => {
        const articles = list.filter((article) => article.tags.some((tag) => tag.slug === slug));
        const tag = articles[0]?.tags.find((t) => t.slug === slug);
        return tag ? { tag, articles } : null;
      });
      gen.tagged.set(slug, tagged);
      tagged.catch(() => gen.tagged.delete(slug));
    }
    return tagged;
  }

  /** GET /api/articles/tag/:slug: a page of the tag's articles as the lists show them. */
  async function tagPage(slug: string, limit?: number, offset = 0): Promise<TArticleTagPage> {
    const tagged = await publishedByTag(slug);
    if (!tagged) throw new AppError('NOT_FOUND', 'Tag not found');
    const items = tagged.articles.slice(offset, limit === undefined ? undefined : offset + limit).map(toSummary);
    return { tag: tagged.tag, items, total: tagged.articles.length };
  }

  /** The tags at least one published article has, for the sitemap: each with its newest change. */
  async function publishedTags(): Promise<Array<TArticleTag & { updatedAt: string }>> {
    const newest = new Map<string, TArticleTag & { updatedAt: string }>();
    for (const article of await current().list) {
      for (const tag of article.tags) {
        const seen = newest.get(tag.slug);
        if (!seen || article.updatedAt > seen.updatedAt) newest.set(tag.slug, { ...tag, updatedAt: article.updatedAt });
      }
    }
    return [...newest.values()];
  }

  /** An article page as a reader sees it; admins may also open drafts (to preview them), and
   * get the whole article. */
  async function readBySlug(slug: string, asAdmin: boolean): Promise<TPublicArticle | TArticle> {
    // A published article is the same for an admin: only a draft needs the database.
    const published = await publishedBySlug(slug);
    const article = published ? withoutAuthorName(published) : asAdmin ? await findArticleBySlug(db, slug).then(async (row) => (row ? toApiArticle(row, (await tagsOfArticles(db, [row.id])).get(row.id)!) : null)) : null;
    if (!article) throw new AppError('NOT_FOUND', 'Article not found');
    return asAdmin ? article : toPublicArticle(article);
  }

  async function listForAdmin(): Promise<TArticle[]> {
    const rows = await listAllArticles(db);
    const tagsOf = await tagsOfArticles(
      db,
      rows.map((row) => row.id),
    );
    return rows.map((row) => toApiArticle(row, tagsOf.get(row.id)!));
  }

  async function getForAdmin(id: string): Promise<TArticle> {
    const row = await findArticleById(db, id);
    if (!row) throw new AppError('NOT_FOUND', 'Article not found');
    return toApiArticle(row, (await tagsOfArticles(db, [id])).get(id)!);
  }

  /** Creates an article under a unique slug made from its title (post, post-2, post-3, ...);
   * its text is its first revision. */
  async function create(input: NewArticleInput, authorId: string): Promise<TArticle> {
    const base = slugify(input.title);
    const { published, publishAt, tags: further = [], ...text } = input;
    const tags = tagsToSet(text.category, further);
    await assertCoverExists(db, text.coverImageId);
    const at = now();
    const state = typeof publishAt === 'string' ? { status: 'scheduled' as const, publishAt: new Date(publishAt) } : published ? { status: 'published' as const, publishedAt: at } : { status: 'draft' as const };
    for (let attempt = 0; attempt < SLUG_ATTEMPTS; attempt++) {
      const written = await writeAndInvalidate(async (tx) => {
        const row = await insertArticleIfSlugFree(tx, { ...text, ...state, slug: slugCandidate(base, attempt), authorId });
        if (row) await setArticleTags(tx, row.id, tags);
        if (row) await recordRevision(tx, row.id, authorId, revisionFieldsOf(row, tags));
        if (row?.publishAt) await schedule.schedule(tx, row.id, row.publishAt);
        return row ? findArticleById(tx, row.id) : undefined;
      });
      if (written) return getForAdmin(written.id);
    }
    throw new AppError('CONFLICT', 'Too many articles share this title; choose another title');
  }

  /** Changes fields; the slug stays, so links already shared keep working. A save that changed
   * the text (not only the publication state) is kept as a revision by `editorId`. */
  async function update(id: string, input: z.output<typeof ZUpdateArticle>, editorId: string | null): Promise<TArticle> {
    const { published, publishAt, tags: further, ...text } = input;
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
      if (!updated) return updated;
      // The category is the primary tag: either changing changes the article's tags.
      const current = (await tagsOfArticles(tx, [id])).get(id)!;
      const tags = further !== undefined || 'category' in patch ? tagsToSet(updated.category, further ?? current.slice(1).map((tag) => tag.name)) : current;
      if (tags !== current) await setArticleTags(tx, id, tags);
      if (further !== undefined || ARTICLE_REVISION_FIELDS.some((field) => field in patch)) {
        const newestText = await newestRevisionFields(tx, id);
        const text = revisionFieldsOf(updated, tags);
        if (!newestText || !sameRevisionText(newestText, text)) await recordRevision(tx, id, editorId, text);
      }
      return updated ? findArticleById(tx, id) : undefined;
    });
    if (!row) throw new AppError('NOT_FOUND', 'Article not found');
    return getForAdmin(row.id);
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
    publishedByTag,
    publishedTags,
    tagPage,
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
