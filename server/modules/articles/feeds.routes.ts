import type { FastifyInstance } from 'fastify';
import { ZTagPageParams } from '../../../contracts/articles.ts';
import { parseInput } from '../../lib/validate.ts';
import type { ArticlesService } from './articles.service.ts';
import { robotsTxt, rssXml, sitemapXml, tagChannel } from './feeds.ts';

/** Crawlers and feed readers re-fetch these often; a few minutes of caching is plenty fresh. */
const FEED_CACHE = 'public, max-age=300';

export async function feedsRoutes(
  app: FastifyInstance,
  { articles, publicUrl, siteName }: { articles: ArticlesService; publicUrl: string; siteName: string },
): Promise<void> {
  app.get('/robots.txt', async (_request, reply) => reply.header('cache-control', FEED_CACHE).type('text/plain; charset=utf-8').send(robotsTxt(publicUrl)));

  app.get('/sitemap.xml', async (_request, reply) => {
    const xml = sitemapXml(publicUrl, await articles.publishedWithDates(), await articles.publishedTags());
    return reply.header('cache-control', FEED_CACHE).type('application/xml; charset=utf-8').send(xml);
  });

  app.get('/rss.xml', async (_request, reply) => {
    const xml = rssXml(publicUrl, siteName, await articles.publishedWithDates());
    return reply.header('cache-control', FEED_CACHE).type('application/rss+xml; charset=utf-8').send(xml);
  });

  // A tag's feed (decision 0100): its published articles; 404 for an unknown tag or one no
  // published article has.
  app.get('/insights/tag/:slug/rss.xml', async (request, reply) => {
    const { slug } = parseInput(ZTagPageParams, request.params);
    const tagged = await articles.publishedByTag(slug);
    if (!tagged) return reply.status(404).header('cache-control', FEED_CACHE).type('text/plain; charset=utf-8').send('No published article has this tag.\n');
    const xml = rssXml(publicUrl, siteName, tagged.articles, tagChannel(publicUrl, siteName, tagged.tag));
    return reply.header('cache-control', FEED_CACHE).type('application/rss+xml; charset=utf-8').send(xml);
  });
}
