import { readVsBare } from './read-vs-bare.ts';

/** GET /insights/:slug, an article page with its Open Graph tags rendered by the server. */
export default readVsBare({
  name: 'article-page',
  description: 'GET /insights/:slug, 50 connections: our app vs bare Fastify with the same HTML in memory',
  path: (slug) => `/insights/${slug}`,
  check: (body) => {
    if (!body.includes('<meta property="og:type" content="article" />')) throw new Error('the article page has no Open Graph tags');
  },
  targetRatio: 0.8,
});
