import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_EMAIL } from '../e2e/support/constants.ts';
import { startAppServer, type AppServer } from '../e2e/support/app-server.ts';
import { postgresInstalled, startPostgresCluster, type PostgresCluster } from '../support/postgres-cluster.ts';

/**
 * Scheduled articles (issue 34 item 2, docs/decisions/0098) across real server processes: two web
 * processes on one PostgreSQL. An article scheduled a moment ahead appears at its time in both
 * processes' lists and RSS, once; one scheduled by a process that then stops is published by the
 * other; and the stopped process, started again, publishes nothing twice (its sweep finds nothing
 * due, the jobs are done).
 */
const title = 'scheduled articles in two server processes on one PostgreSQL, and a restart';
describe.skipIf(!postgresInstalled())(postgresInstalled() ? title : `${title} (skipped: PostgreSQL not installed)`, () => {
  let cluster: PostgresCluster;
  let a: AppServer;
  let b: AppServer;
  let env: Record<string, string>;

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    env = { DATABASE_URL: cluster.url, ADMIN_EMAILS: ADMIN_EMAIL, SESSION_SECRET: 'a-session-secret-both-processes-share-0123456789', MARKET_DATA: 'simulated' };
    [a, b] = await Promise.all([startAppServer({ env }), startAppServer({ env: { ...env, RUN_WORKERS: 'false' } })]);
  }, 120_000);
  afterAll(async () => {
    await Promise.allSettled([a?.stop(), b?.stop()]);
    cluster?.stop();
  });

  async function signIn(server: AppServer): Promise<string> {
    const res = await fetch(`${server.url}/api/auth/local/login`, { method: 'POST', headers: { origin: server.url, 'content-type': 'application/json' }, body: JSON.stringify({ email: ADMIN_EMAIL, name: 'Admin' }) });
    expect(res.status).toBe(200);
    return res.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  }
  async function schedule(server: AppServer, cookie: string, heading: string, inMs: number) {
    const publishAt = new Date(Date.now() + inMs).toISOString();
    const res = await fetch(`${server.url}/api/articles`, {
      method: 'POST',
      headers: { origin: server.url, cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ title: heading, category: 'Automation', excerpt: 'Written ahead of its day.', content: 'A paragraph that waits for its minute to come. '.repeat(3), publishAt }),
    });
    expect(res.status).toBe(201);
    return (await res.json()) as { id: string; slug: string; status: string };
  }
  /** How many times each process lists the article, and names it in its RSS feed. */
  async function seen(slug: string, servers: AppServer[]) {
    return Promise.all(
      servers.map(async (server) => {
        const list = (await (await fetch(`${server.url}/api/articles`)).json()) as Array<{ slug: string }>;
        const rss = await (await fetch(`${server.url}/rss.xml`)).text();
        return { list: list.filter((item) => item.slug === slug).length, rss: rss.split(`/insights/${slug}</link>`).length - 1 };
      }),
    );
  }
  async function waitUntilSeen(slug: string, servers: AppServer[], timeoutMs = 30_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const views = await seen(slug, servers);
      if (views.every((view) => view.list > 0 && view.rss > 0)) return views;
      if (Date.now() > deadline) throw new Error(`not published in time: ${JSON.stringify(views)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  async function database<T>(query: string, values: unknown[]): Promise<T[]> {
    const client = new pg.Client({ connectionString: cluster.url });
    await client.connect();
    try {
      return (await client.query(query, values)).rows as T[];
    } finally {
      await client.end();
    }
  }
  const articleRow = (id: string) => database<{ status: string; published_at: Date; updated_at: Date }>('select status, published_at, updated_at from articles where id = $1', [id]);
  const jobs = (id: string) => database<{ state: string }>("select state from pgboss.job where name = 'article-publish' and singleton_key = $1", [id]);

  it('appears at its time once in both processes, is published by the other process when the first stops, and never twice after a restart', async () => {
    const cookie = await signIn(a);
    const first = await schedule(a, cookie, 'Scheduled across two processes', 3_000);
    expect(first.status).toBe('scheduled');
    expect(await seen(first.slug, [a, b])).toEqual([
      { list: 0, rss: 0 },
      { list: 0, rss: 0 },
    ]);
    expect(await waitUntilSeen(first.slug, [a, b])).toEqual([
      { list: 1, rss: 1 },
      { list: 1, rss: 1 },
    ]);

    // Scheduled through a, which stops before the time: b's worker takes the job.
    const second = await schedule(a, cookie, 'Scheduled by a process that stopped', 4_000);
    await a.stop();
    expect(await waitUntilSeen(second.slug, [b])).toEqual([{ list: 1, rss: 1 }]);

    const before = await Promise.all([articleRow(first.id), articleRow(second.id)]);
    // The restarted process answers once its first sweep has run (article-schedule.ts).
    a = await startAppServer({ env });
    const after = await Promise.all([articleRow(first.id), articleRow(second.id)]);
    expect(after).toEqual(before);
    expect(after.map(([row]) => row!.status)).toEqual(['published', 'published']);
    expect(await jobs(first.id)).toEqual([{ state: 'completed' }]);
    expect(await jobs(second.id)).toEqual([{ state: 'completed' }]);
    for (const article of [first, second]) {
      expect(await seen(article.slug, [a, b])).toEqual([
        { list: 1, rss: 1 },
        { list: 1, rss: 1 },
      ]);
    }
  }, 120_000);
});
