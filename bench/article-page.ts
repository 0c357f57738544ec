import { readVsBare } from './read-vs-bare.ts';

/** GET /insights/:slug, an article's page rendered by the server (the article and its Open Graph
 * tags in the HTML). */
export default readVsBare({
  name: 'article-page',
  description: 'GET /insights/:slug, 50 connections: our app vs bare Fastify with the same HTML in memory',
  path: (slug) => `/insights/${slug}`,
  check: (body) => {
    if (!body.includes('<meta property="og:type" content="article" />')) throw new Error('the article page has no Open Graph tags');
    if (!body.includes('data-article-body')) throw new Error("the article page has no article: is the client built (npm run build)?");
  },
  targetRatio: 0.8,
});
