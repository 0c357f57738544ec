import type { TArticle, TArticleSummary, TPublicArticle } from '../../../contracts/articles.ts';
import type { z } from 'zod';
import type { ZArticleInput, ZUpdateArticle } from '../../../contracts/articles.ts';
import type { Db } from '../../db/client.ts';
import { AppError } from '../../lib/errors.ts';
import {
  deleteArticle,
  findArticleById,
  findArticleBySlug,
  insertArticleIfSlugFree,
  listAllArticles,
  listPublishedArticles,
  updateArticle,
  type ArticleRow,
} from './articles.repo.ts';
import { slugCandidate, slugify } from './slug.ts';

/**
 * How long another process's write may stay unseen here. Writes through this process
 * invalidate at once; with several processes on PostgreSQL, each refreshes within this bound.
 */
const PUBLISHED_CACHE_TTL_MS = 5_000;
const SLUG_ATTEMPTS = 50;

export type ArticlesServiceDeps = { db: Db; now?: () => number; cacheTtlMs?: number };
type PublishedSummary = TArticleSummary & { updatedAt: string };

function toApiArticle(row: ArticleRow): TArticle {
  return {
    id: row.id,
    slug: row.slug,
    title: row.title,
    category: row.category,
    excerpt: row.excerpt,
    content: row.content,
    readTime: row.readTime,
    published: row.published,
    authorId: row.authorId,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** What a visitor's read carries: the page's fields, never the author's id or the draft state. */
function toPublicArticle({ id, slug, title, category, excerpt, content, createdAt, readTime }: TArticle): TPublicArticle {
  return { id, slug, title, category, excerpt, content, createdAt, readTime };
}

export function createArticlesService({ db, now = Date.now, cacheTtlMs = PUBLISHED_CACHE_TTL_MS }: ArticlesServiceDeps) {
  // Public reads (the landing page, /insights, article pages, feeds) are served from memory:
  // they are frequent and change rarely. One database read refills the list for all concurrent
  // requests; JSON is serialised once per fill; article pages are kept per slug.
  type Generation = {
    at: number;
    list: Promise<PublishedSummary[]>;
    json: Map<string, string>;
    pages: Map<string, Promise<TArticle | null>>;
  };
  let generation: Generation | null = null;

  function current(): Generation {
    if (generation && now() - generation.at < cacheTtlMs) return generation;
    const fresh: Generation = {
      at: now(),
      json: new Map(),
      pages: new Map(),
      list: listPublishedArticles(db).then((rows) =>
        rows.map(({ updatedAt, createdAt, ...row }) => ({ ...row, createdAt: createdAt.toISOString(), updatedAt: updatedAt.toISOString() })),
      ),
    };
    generation = fresh;
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
    const items = all.slice(offset, limit === undefined ? undefined : offset + limit).map(({ updatedAt: _u, ...summary }) => summary);
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
  function publishedBySlug(slug: string): Promise<TArticle | null> {
    const gen = current();
    let page = gen.pages.get(slug);
    if (!page) {
      page = findArticleBySlug(db, slug).then((row) => (row?.published ? toApiArticle(row) : null));
      gen.pages.set(slug, page);
      page.catch(() => gen.pages.delete(slug));
    }
    return page;
  }

  /** An article page as a reader sees it; admins may also open drafts (to preview them), and
   * get the whole article. */
  async function readBySlug(slug: string, asAdmin: boolean): Promise<TPublicArticle | TArticle> {
    const article = asAdmin ? await findArticleBySlug(db, slug).then((row) => (row ? toApiArticle(row) : null)) : await publishedBySlug(slug);
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

  /** Creates an article under a unique slug made from its title (post, post-2, post-3, ...). */
  async function create(input: z.output<typeof ZArticleInput>, authorId: string): Promise<TArticle> {
    const base = slugify(input.title);
    for (let attempt = 0; attempt < SLUG_ATTEMPTS; attempt++) {
      const row = await insertArticleIfSlugFree(db, { ...input, slug: slugCandidate(base, attempt), authorId });
      if (row) {
        invalidate();
        return toApiArticle(row);
      }
    }
    throw new AppError('CONFLICT', 'Too many articles share this title; choose another title');
  }

  /** Changes fields; the slug stays, so links already shared keep working. */
  async function update(id: string, patch: z.output<typeof ZUpdateArticle>): Promise<TArticle> {
    const row = await updateArticle(db, id, patch);
    if (!row) throw new AppError('NOT_FOUND', 'Article not found');
    invalidate();
    return toApiArticle(row);
  }

  async function remove(id: string): Promise<void> {
    if (!(await deleteArticle(db, id))) throw new AppError('NOT_FOUND', 'Article not found');
    invalidate();
  }

  /** Every write calls this, so this process never serves a stale article or list. */
  function invalidate(): void {
    generation = null;
  }

  return { listPublished, listPublishedJson, publishedWithDates, publishedBySlug, readBySlug, listForAdmin, getForAdmin, create, update, remove, invalidate };
}

export type ArticlesService = ReturnType<typeof createArticlesService>;
