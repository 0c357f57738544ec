import type { FastifyInstance } from 'fastify';
import {
  ZArticleIdParams,
  ZArticleListQuery,
  ZArticleRevisionParams,
  ZArticleSlugParams,
  ZCreateArticle,
  ZPreviewLinkParams,
  ZPreviewTokenParams,
  ZTagPageParams,
  ZUpdateArticle,
} from '../../../contracts/articles.ts';
import { keepPublicAnswer } from '../../lib/http/public-cache.ts';
import { parseInput } from '../../lib/validate.ts';
import type { ArticlesService } from './articles.service.ts';
import type { PreviewLinksService } from './preview-links.service.ts';

/** A preview is for the people it was shared with: kept by no cache and by no search engine. */
export const PREVIEW_HEADERS = { 'cache-control': 'no-store', 'x-robots-tag': 'noindex, nofollow', 'referrer-policy': 'no-referrer' } as const;

export async function articlesRoutes(app: FastifyInstance, { articles, previews }: { articles: ArticlesService; previews: PreviewLinksService }): Promise<void> {
  // Published articles: revalidated on every use (no-cache) and answered 304 while unchanged.
  app.get('/api/articles', { config: { access: 'public', etag: true } }, async (request, reply) => {
    const { limit, offset } = parseInput(ZArticleListQuery, request.query);
    keepPublicAnswer(request, articles); // the same for every visitor: sent again from memory
    const { json, total } = await articles.listPublishedJson(limit, offset);
    return reply.header('cache-control', 'no-cache').header('x-total-count', String(total)).type('application/json; charset=utf-8').send(json);
  });

  // A tag's page (decision 0100): its published articles, newest first; 404 for an unknown tag
  // or one no published article has.
  app.get('/api/articles/tag/:slug', { config: { access: 'public', etag: true } }, async (request, reply) => {
    const { slug } = parseInput(ZTagPageParams, request.params);
    const { limit, offset } = parseInput(ZArticleListQuery, request.query);
    keepPublicAnswer(request, articles);
    reply.header('cache-control', 'no-cache');
    return articles.tagPage(slug, limit, offset);
  });

  app.get('/api/articles/:slug', { config: { access: 'public', etag: true } }, async (request, reply) => {
    const { slug } = parseInput(ZArticleSlugParams, request.params);
    // An admin may read a draft here: kept out of shared caches and apart per session.
    reply.header('cache-control', 'no-cache').header('vary', 'cookie');
    return articles.readBySlug(slug, request.user?.role === 'admin');
  });

  app.post('/api/articles', { config: { access: 'admin' } }, async (request, reply) => {
    const input = parseInput(ZCreateArticle, request.body);
    return reply.status(201).send(await articles.create(input, request.user!.id));
  });

  app.patch('/api/articles/:id', { config: { access: 'admin' } }, async (request) => {
    const { id } = parseInput(ZArticleIdParams, request.params);
    return articles.update(id, parseInput(ZUpdateArticle, request.body), request.user!.id);
  });

  app.delete('/api/articles/:id', { config: { access: 'admin' } }, async (request, reply) => {
    const { id } = parseInput(ZArticleIdParams, request.params);
    await articles.remove(id);
    return reply.status(204).send();
  });

  app.get('/api/admin/articles', { config: { access: 'admin' } }, async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    return articles.listForAdmin();
  });

  app.get('/api/admin/articles/:id', { config: { access: 'admin' } }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const { id } = parseInput(ZArticleIdParams, request.params);
    return articles.getForAdmin(id);
  });

  // Revisions (issue 34 item 6): each save's text, to compare with the current one and restore.
  app.get('/api/admin/articles/:id/revisions', { config: { access: 'admin' } }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const { id } = parseInput(ZArticleIdParams, request.params);
    return articles.revisions(id);
  });

  app.get('/api/admin/articles/:id/revisions/:revisionId', { config: { access: 'admin' } }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const { id, revisionId } = parseInput(ZArticleRevisionParams, request.params);
    return articles.revision(id, revisionId);
  });

  app.post('/api/articles/:id/revisions/:revisionId/restore', { config: { access: 'admin' } }, async (request) => {
    const { id, revisionId } = parseInput(ZArticleRevisionParams, request.params);
    return articles.restore(id, revisionId, request.user!.id);
  });

  // Preview links (issue 34 item 2, docs/decisions/0098): a draft or scheduled article shown to
  // whoever has the link, signed in or not.
  app.get('/api/admin/articles/:id/preview-links', { config: { access: 'admin' } }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const { id } = parseInput(ZArticleIdParams, request.params);
    return previews.list(id);
  });

  app.post('/api/admin/articles/:id/preview-links', { config: { access: 'admin' } }, async (request, reply) => {
    const { id } = parseInput(ZArticleIdParams, request.params);
    return reply.status(201).header('cache-control', 'no-store').send(await previews.create(id, request.user!.id));
  });

  app.delete('/api/admin/articles/:id/preview-links/:linkId', { config: { access: 'admin' } }, async (request, reply) => {
    const { id, linkId } = parseInput(ZPreviewLinkParams, request.params);
    await previews.revoke(id, linkId);
    return reply.status(204).send();
  });

  app.get('/api/preview/:token', { config: { access: 'public' } }, async (request, reply) => {
    reply.headers(PREVIEW_HEADERS);
    const { token } = parseInput(ZPreviewTokenParams, request.params);
    return previews.read(token);
  });
}

/** The preview's page (the app's /preview/:token, served by the client app's handler) goes out
 * with the same headers. On the root instance, where that handler is. */
export function registerPreviewPageHeaders(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply) => {
    if (request.url.startsWith('/preview/')) reply.headers(PREVIEW_HEADERS);
  });
}
