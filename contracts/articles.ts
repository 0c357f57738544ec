import { z } from 'zod';

/** An article as GET /api/articles lists it (published articles only, newest first). */
export const ZArticleSummary = z.object({
  id: z.string(),
  title: z.string(),
  category: z.string(),
  excerpt: z.string(),
  createdAt: z.string(),
  readTime: z.string(),
});
export type TArticleSummary = z.infer<typeof ZArticleSummary>;
export const ZArticleList = z.array(ZArticleSummary);

export const ZArticleListQuery = z.object({
  limit: z.coerce.number().int('limit must be a whole number').min(1, 'limit must be at least 1').max(100, 'limit must be at most 100').optional(),
});
