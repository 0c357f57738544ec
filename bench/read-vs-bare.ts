import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { SeedArticle } from '../tests/e2e/support/seed-articles.ts';
import { load, startAppServer, startBareServer, type LoadResult } from './lib.ts';
import { publishThroughApi } from './signed-in-load.ts';
import type { Benchmark } from './types.ts';

const CONNECTIONS = 50;
export const PUBLISHED = 20;

export function seedList(): SeedArticle[] {
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
 * A public read on our real server (child process, PGlite, 20 published articles) against bare
 * Fastify answering the same bytes from memory on the same path, one after the other (the
 * machine has two cores), with autocannon at 50 connections.
 */
export function readVsBare(spec: {
  name: string;
  description: string;
  /** The path to load, given the first published article's slug. */
  path: (slug: string) => string;
  /** What a correct answer looks like, so a benchmark of an error page cannot pass. */
  check: (body: string) => void;
  targetRatio: number;
}): Benchmark {
  return {
    name: spec.name,
    description: spec.description,
    async run({ quick, log }) {
      const settings = { connections: CONNECTIONS, seconds: quick ? 1 : 10, warmupSeconds: quick ? 0.5 : 2 };
      const work = mkdtempSync(path.join(tmpdir(), `bench-${spec.name}-`));
      try {
        log(`starting our server with ${PUBLISHED} published articles (PGlite)...`);
        const ours = await startAppServer();
        await publishThroughApi(ours.url, seedList());
        let oursResult: LoadResult;
        let url: string;
        let contentType: string;
        const bodyFile = path.join(work, 'body');
        try {
          const list = (await (await fetch(`${ours.url}/api/articles?limit=1`)).json()) as Array<{ slug: string }>;
          url = spec.path(list[0]!.slug);
          const res = await fetch(`${ours.url}${url}`);
          const body = await res.text();
          if (!res.ok) throw new Error(`GET ${url} answered ${res.status}: ${body.slice(0, 200)}`);
          spec.check(body);
          contentType = res.headers.get('content-type') ?? 'application/octet-stream';
          writeFileSync(bodyFile, body);
          log(`  GET ${url}: ${body.length} bytes per response; autocannon ${settings.seconds} s...`);
          oursResult = await load(`${ours.url}${url}`, settings);
        } finally {
          await ours.stop();
        }
        log(`  ours: ${oursResult.requestsPerSecond.toFixed(0)} req/s (p99 ${oursResult.latencyP99Ms} ms)`);

        log('starting bare Fastify with the same bytes...');
        const bare = await startBareServer({ route: url.split('?')[0]!, bodyFile, contentType });
        let bareResult: LoadResult;
        try {
          bareResult = await load(`${bare.url}${url}`, settings);
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
            name: spec.name,
            unit: 'req/s',
            ours: oursResult.requestsPerSecond,
            reference: bareResult.requestsPerSecond,
            ratio,
            target: `ratio >= ${spec.targetRatio}`,
            met: ratio >= spec.targetRatio && problems.length === 0,
            ...(problems.length > 0 ? { note: problems.join('; ') } : {}),
          },
        ];
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    },
  };
}
