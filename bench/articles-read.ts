import { PUBLISHED, readVsBare } from './read-vs-bare.ts';

/** GET /api/articles, the public list (issue 2's target 0.4; issue 3 raised it to 0.6, issue 19 to 0.8). */
export default readVsBare({
  name: 'articles-read',
  description: 'GET /api/articles, 50 connections: our app vs bare Fastify with the same JSON in memory',
  path: () => '/api/articles',
  check: (body) => {
    const count = (JSON.parse(body) as unknown[]).length;
    if (count !== PUBLISHED) throw new Error(`expected ${PUBLISHED} published articles, got ${count}`);
  },
  targetRatio: 0.8,
});
