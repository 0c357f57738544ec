import autocannon from 'autocannon';
import { findTemplate } from '../contracts/agents.ts';
import { ADMIN_EMAIL } from '../tests/e2e/support/constants.ts';
import { startPostgresCluster } from '../tests/support/postgres-cluster.ts';
import { rssMb, sleep, startAppServer, type AppServer } from './lib.ts';
import type { Benchmark, BenchResult } from './types.ts';

const CONNECTIONS = 200;
const SECONDS = 60;
const MEMORY_TARGET_MB = 400;
const ARTICLES = 20;
const AGENTS = 10;

type Session = { cookie: string; origin: string };

async function signIn(url: string): Promise<Session> {
  const res = await fetch(`${url}/api/auth/local/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url },
    body: JSON.stringify({ email: ADMIN_EMAIL, name: 'Bench' }),
  });
  if (!res.ok) throw new Error(`sign-in answered ${res.status}`);
  return { cookie: res.headers.getSetCookie()[0]!.split(';')[0]!, origin: url };
}

async function post(url: string, path: string, session: Session, body: unknown): Promise<{ id: string; slug?: string }> {
  const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...session }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`POST ${path} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as { id: string; slug?: string };
}

/** What a signed-in admin's pages read: the dashboard, an article, the agents console. */
async function seed(url: string, session: Session): Promise<string[]> {
  const slugs: string[] = [];
  for (let i = 0; i < ARTICLES; i++) {
    const article = await post(url, '/api/articles', session, {
      title: `Automation note ${i}`,
      category: 'Operations',
      excerpt: 'How a small team took the busywork out of its week.',
      content: `# Note ${i}\n\n${'Automation pays when it removes a decision nobody needed to make. '.repeat(30)}`,
      published: true,
    });
    slugs.push(article.slug!);
  }
  const template = findTemplate('stock-market-scanner')!;
  const parameters = Object.fromEntries(Object.entries(template.defaultConfig.parameters).map(([k, p]) => [k, p.default]));
  for (let i = 0; i < AGENTS; i++) {
    await post(url, '/api/agents', session, {
      templateId: template.id,
      name: `Scanner ${i}`,
      config: { schedule: { ...template.defaultConfig.schedule, timeZone: 'UTC' }, notifications: template.defaultConfig.notifications, parameters },
    });
  }
  return slugs;
}

/**
 * 200 connections of signed-in traffic for 60 s (5 s with --quick): each connection cycles
 * through the reads of the dashboard (who am I, the newest articles, notifications), an article
 * page's data, and the agents console's list, on PGlite and on PostgreSQL. Prints throughput,
 * p50 and p99 latency, errors, and the server's resident memory after start and after the load.
 */
const benchmark: Benchmark = {
  name: 'mixed-load',
  description: `signed-in mixed reads, ${CONNECTIONS} connections, ${SECONDS} s, on PGlite and PostgreSQL: throughput, latency, errors, memory`,
  async run({ quick, log }) {
    const seconds = quick ? 5 : SECONDS;
    const results: BenchResult[] = [];

    async function measure(server: AppServer, database: string): Promise<void> {
      const session = await signIn(server.url);
      const slugs = await seed(server.url, session);
      await sleep(quick ? 2_000 : 10_000); // past start-up's own garbage
      const memoryAfterStart = rssMb(server.pid);
      const headers = { cookie: session.cookie };
      const requests = [
        { method: 'GET' as const, path: '/api/auth/me', headers },
        { method: 'GET' as const, path: '/api/articles?limit=3', headers },
        { method: 'GET' as const, path: '/api/notifications?limit=20', headers },
        ...slugs.slice(0, 5).map((slug) => ({ method: 'GET' as const, path: `/api/articles/${slug}`, headers })),
        { method: 'GET' as const, path: '/api/agents', headers },
      ];
      log(`${database}: ${CONNECTIONS} connections for ${seconds} s over ${requests.length} reads (RSS after start ${memoryAfterStart.toFixed(0)} MB)...`);
      await autocannon({ url: server.url, connections: 20, duration: 2, requests }); // warm-up
      const result = await autocannon({ url: server.url, connections: CONNECTIONS, duration: seconds, requests });
      const memoryAfterLoad = rssMb(server.pid);
      const errors = result.errors + result.timeouts;
      log(
        `  ${result.requests.average.toFixed(0)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, ` +
          `${errors} errors, ${result.non2xx} non-2xx of ${result.requests.total}; RSS after load ${memoryAfterLoad.toFixed(0)} MB`,
      );
      const clean = errors === 0 && result.non2xx === 0;
      results.push(
        {
          name: `mixed-load req/s (${database})`,
          unit: 'req/s',
          ours: result.requests.average,
          reference: null,
          ratio: null,
          target: 'zero errors',
          met: clean,
          ...(clean ? {} : { note: `${errors} errors, ${result.non2xx} non-2xx` }),
        },
        { name: `mixed-load p99 (${database})`, unit: 'ms', ours: result.latency.p99, reference: result.latency.p50, ratio: null, target: 'printed (reference column: p50)', met: true },
        {
          name: `memory after load (${database})`,
          unit: 'MB',
          ours: memoryAfterLoad,
          reference: memoryAfterStart,
          ratio: memoryAfterLoad / memoryAfterStart,
          target: `< ${MEMORY_TARGET_MB} MB (reference column: after start)`,
          met: memoryAfterLoad < MEMORY_TARGET_MB,
        },
      );
    }

    // Agents stay paused and market data simulated: this measures the web, not the runtime.
    const env = { MARKET_DATA: 'simulated', SIGN_IN_RATE_LIMIT: '1000' };
    const pglite = await startAppServer({ env });
    try {
      await measure(pglite, 'PGlite');
    } finally {
      await pglite.stop();
    }
    const postgres = await startPostgresCluster();
    try {
      const server = await startAppServer({ env: { ...env, DATABASE_URL: postgres.url } });
      try {
        await measure(server, 'PostgreSQL');
      } finally {
        await server.stop();
      }
    } finally {
      postgres.stop();
    }
    return results;
  },
};

export default benchmark;
