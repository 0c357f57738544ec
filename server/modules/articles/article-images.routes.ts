import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ARTICLE_IMAGE_LIMITS, ZArticleImageFileParams } from '../../../contracts/article-images.ts';
import { ifNoneMatchHits } from '../../lib/http/etag.ts';
import { parseInput } from '../../lib/validate.ts';
import type { ArticleImagesService } from './article-images.service.ts';

/** A variant's URL names its image and width, which never change: cached for a year. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** The declared type rides in the query: the body is the file's raw bytes (application/octet-stream). */
export const ZUploadArticleImageQuery = z.object({ type: z.string().max(100, 'Type must be at most 100 characters').default('') });

/**
 * Article images (issue 34 item 3, docs/decisions/0099): an admin uploads one (its raw bytes,
 * its type declared in `?type=`), and anyone reads its variants at /media/articles/<id>/<width>.webp (and the social card's
 * JPEG at <width>.jpg).
 */
export async function articleImagesRoutes(app: FastifyInstance, { images }: { images: ArticleImagesService }): Promise<void> {
  const { maxBytes } = ARTICLE_IMAGE_LIMITS;
  // Scoped to this plugin's routes: elsewhere a body must still be JSON.
  app.addContentTypeParser('application/octet-stream', { parseAs: 'buffer', bodyLimit: maxBytes }, (_request, body, done) => done(null, body));

  app.post('/api/articles/images', { config: { access: 'admin', rawBody: true }, bodyLimit: maxBytes }, async (request, reply) => {
    const { type } = parseInput(ZUploadArticleImageQuery, request.query);
    const bytes = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    return reply.status(201).header('cache-control', 'no-store').send(await images.upload(request.user!.id, type, bytes));
  });

  app.get('/media/articles/:id/:file', { config: { access: 'public' } }, async (request, reply) => {
    const { id, file } = parseInput(ZArticleImageFileParams, request.params);
    const width = Number.parseInt(file, 10);
    const jpeg = file.endsWith('.jpg');
    const variant = await images.variant(id, width, jpeg ? 'image/jpeg' : 'image/webp');
    const etag = `"${id}-${width}${jpeg ? '-jpg' : ''}"`;
    reply.header('cache-control', IMMUTABLE).header('etag', etag).header('x-content-type-options', 'nosniff');
    if (ifNoneMatchHits(request.headers['if-none-match'], etag)) return reply.status(304).send();
    return reply.type(variant.contentType).header('content-length', variant.bytes.length).send(variant.bytes);
  });
}
