import type { FastifyInstance } from 'fastify';
import { ZArticleListQuery } from '../../../contracts/articles.ts';
import { parseInput } from '../../lib/validate.ts';
import type { ArticlesService } from './articles.service.ts';

export async function articlesRoutes(app: FastifyInstance, { articles }: { articles: ArticlesService }): Promise<void> {
  app.get('/api/articles', { config: { access: 'public' } }, async (request, reply) => {
    const { limit } = parseInput(ZArticleListQuery, request.query);
    return reply.type('application/json; charset=utf-8').send(await articles.listPublishedJson(limit));
  });
}
