import type { TArticleSummary } from '../../../contracts/articles.ts';
import type { Db } from '../../db/client.ts';
import { listPublishedArticles } from './articles.repo.ts';

export function createArticlesService({ db }: { db: Db }) {
  async function listPublished(limit?: number): Promise<TArticleSummary[]> {
    const rows = await listPublishedArticles(db, limit);
    return rows.map((row) => ({ ...row, createdAt: row.createdAt.toISOString() }));
  }
  return { listPublished };
}

export type ArticlesService = ReturnType<typeof createArticlesService>;
