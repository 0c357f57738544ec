import type { TArticleSummary } from '../../../contracts/articles.ts';
import type { Db } from '../../db/client.ts';
import { listPublishedArticles } from './articles.repo.ts';

/**
 * How long another process's write may stay unseen here. Writes through this process
 * invalidate at once; with several processes on PostgreSQL, each refreshes within this bound.
 */
export const PUBLISHED_CACHE_TTL_MS = 5_000;

export type ArticlesServiceDeps = { db: Db; now?: () => number; cacheTtlMs?: number };

export function createArticlesService({ db, now = Date.now, cacheTtlMs = PUBLISHED_CACHE_TTL_MS }: ArticlesServiceDeps) {
  // The public list is read on every landing-page visit and changes rarely: it is served from
  // memory, already serialised, and one database read refills it for all concurrent requests.
  let cached: { at: number; load: Promise<TArticleSummary[]>; json: Map<number | 'all', string> } | null = null;

  function published(): Promise<TArticleSummary[]> {
    if (cached && now() - cached.at < cacheTtlMs) return cached.load;
    const entry = {
      at: now(),
      json: new Map<number | 'all', string>(),
      load: listPublishedArticles(db).then((rows) => rows.map((row) => ({ ...row, createdAt: row.createdAt.toISOString() }))),
    };
    cached = entry;
    entry.load.catch(() => {
      if (cached === entry) cached = null; // a failed read is not cached
    });
    return entry.load;
  }

  async function listPublished(limit?: number): Promise<TArticleSummary[]> {
    const all = await published();
    return limit === undefined ? all : all.slice(0, limit);
  }

  /** The same list as JSON text, serialised once per cache fill and limit. */
  async function listPublishedJson(limit?: number): Promise<string> {
    const entry = (await published(), cached);
    const key = limit ?? 'all';
    let json = entry?.json.get(key);
    if (json === undefined) {
      json = JSON.stringify(await listPublished(limit));
      entry?.json.set(key, json);
    }
    return json;
  }

  /** Every write to articles calls this, so this process never serves a stale list. */
  function invalidate(): void {
    cached = null;
  }

  return { listPublished, listPublishedJson, invalidate };
}

export type ArticlesService = ReturnType<typeof createArticlesService>;
