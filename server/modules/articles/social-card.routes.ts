import type { FastifyInstance } from 'fastify';
import { AppError } from '../../lib/errors.ts';
import { ifNoneMatchHits } from '../../lib/http/etag.ts';
import type { ArticlesService } from './articles.service.ts';
import type { CardDrawer } from './card-drawing.ts';
import { cardContentOf, cardHash } from './social-card.ts';

/** A card's URL names its content's hash, so a given URL always answers the same bytes. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
const CARD_FILE = /^([0-9a-f]{16})\.png$/;

/**
 * GET /og/:slug/:hash.png, an article's social card (docs/decisions/0096). Only a published
 * article's current card is drawn: an unknown or unpublished slug, or a hash that is not the
 * article's current one, answers 404 without drawing, so a visitor cannot make the server draw
 * anything else. Outside /api/ so that link-preview crawlers that obey robots.txt may fetch it.
 */
export async function socialCardRoutes(app: FastifyInstance, { articles, siteName, drawer }: { articles: ArticlesService; siteName: string; drawer: CardDrawer }): Promise<void> {
  app.get<{ Params: { slug: string; file: string } }>('/og/:slug/:file', async (request, reply) => {
    const hash = CARD_FILE.exec(request.params.file)?.[1];
    const article = hash ? await articles.publishedBySlug(request.params.slug) : null;
    const content = article ? cardContentOf(article, siteName) : null;
    if (!content || cardHash(content) !== hash) throw new AppError('NOT_FOUND', 'No such image');
    const etag = `"${hash}"`;
    reply.header('cache-control', IMMUTABLE).header('etag', etag);
    if (ifNoneMatchHits(request.headers['if-none-match'], etag)) return reply.status(304).send();
    const png = await drawer.draw(content);
    return reply.type('image/png').header('content-length', png.length).send(png);
  });
}
