import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { SeedArticle } from '../tests/e2e/support/seed-articles.ts';
import { load, startAppServer, startBareServer, type LoadResult } from './lib.ts';
import type { Benchmark } from './types.ts';

const TARGET_RATIO = 0.4;
const CONNECTIONS = 50;
const PUBLISHED = 20;

function seedList(): SeedArticle[] {
  const categories = ['Automation', 'AI', 'Analytics', 'Case Study'];
  const list: SeedArticle[] = [];
  for (let i = 0; i < PUBLISHED + 5; i++) {
    list.push({
      title: `Insight ${i + 1}: automating the ${['invoice', 'onboarding', 'reporting', 'support', 'inventory'][i % 5]} workflow`,
      category: categories[i % categories.length]!,
      excerpt: 'How a mid-sized team replaced manual hand-offs with an automated, observable pipeline, and what it saved.',
      content: `# Insight ${i + 1}\n\n${'Lorem ipsum dolor sit amet. '.repeat(40)}`,
      readTime: `${3 + (i % 5)} min read`,
      published: i < PUBLISHED,
      createdAt: new Date(Date.UTC(2025, 0, 1 + i, 12)).toISOString(),
    });
  }
  return list;
}

/**
 * GET /api/articles (public list of published articles) on our real server (child process,
 * PGlite, 20 published articles) against bare Fastify returning the same JSON from memory.
 * One server at a time, one autocannon run at a time: the machine has two cores.
 */
const benchmark: Benchmark = {
  name: 'articles-read',
  description: `GET /api/articles, ${CONNECTIONS} connections: our app vs bare Fastify with the same JSON in memory`,
  async run({ quick, log }) {
    const seconds = quick ? 2 : 10;
    const settings = { connections: CONNECTIONS, seconds, warmupSeconds: quick ? 1 : 2 };
    const work = mkdtempSync(path.join(tmpdir(), 'bench-articles-'));
    try {
      log(`starting our server with ${PUBLISHED} published articles (PGlite)...`);
      const ours = await startAppServer({ articles: seedList() });
      let oursResult: LoadResult;
      const bodyFile = path.join(work, 'articles.json');
      try {
        const res = await fetch(`${ours.url}/api/articles`);
        const body = await res.text();
        if (!res.ok) throw new Error(`GET /api/articles answered ${res.status}: ${body}`);
        const count = (JSON.parse(body) as unknown[]).length;
        if (count !== PUBLISHED) throw new Error(`expected ${PUBLISHED} published articles, got ${count}`);
        writeFileSync(bodyFile, body);
        log(`  ${body.length} bytes of JSON per response; autocannon ${seconds} s...`);
        oursResult = await load(`${ours.url}/api/articles`, settings);
      } finally {
        await ours.stop();
      }
      log(`  ours: ${oursResult.requestsPerSecond.toFixed(0)} req/s (p99 ${oursResult.latencyP99Ms} ms)`);

      log('starting bare Fastify with the same JSON...');
      const bare = await startBareServer({ articlesFile: bodyFile });
      let bareResult: LoadResult;
      try {
        bareResult = await load(`${bare.url}/api/articles`, settings);
      } finally {
        await bare.stop();
      }
      log(`  bare: ${bareResult.requestsPerSecond.toFixed(0)} req/s (p99 ${bareResult.latencyP99Ms} ms)`);

      const ratio = oursResult.requestsPerSecond / bareResult.requestsPerSecond;
      const problems = [
        oursResult.errors + oursResult.non2xx > 0 ? `ours: ${oursResult.errors} errors, ${oursResult.non2xx} non-2xx` : '',
        bareResult.errors + bareResult.non2xx > 0 ? `bare: ${bareResult.errors} errors, ${bareResult.non2xx} non-2xx` : '',
      ].filter(Boolean);
      return [
        {
          name: 'articles-read',
          unit: 'req/s',
          ours: oursResult.requestsPerSecond,
          reference: bareResult.requestsPerSecond,
          ratio,
          target: `ratio >= ${TARGET_RATIO}`,
          met: ratio >= TARGET_RATIO && problems.length === 0,
          ...(problems.length > 0 ? { note: problems.join('; ') } : {}),
        },
      ];
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  },
};

export default benchmark;
