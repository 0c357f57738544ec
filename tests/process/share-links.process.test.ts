import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TShareLink } from '../../contracts/share-links.ts';
import { ADMIN_EMAIL } from '../e2e/support/constants.ts';
import { startAppServer, type AppServer } from '../e2e/support/app-server.ts';
import { postgresInstalled, startPostgresCluster, type PostgresCluster } from '../support/postgres-cluster.ts';

/**
 * Share links (issue 32) across real server processes: two web processes on one PostgreSQL, as
 * a deployment with several processes runs. A link made and revoked through one answers 404 at
 * once through the other: each view reads the link from the database, nothing is cached.
 */
const title = 'share links in two server processes on one PostgreSQL';
describe.skipIf(!postgresInstalled())(postgresInstalled() ? title : `${title} (skipped: PostgreSQL not installed)`, () => {
  let cluster: PostgresCluster;
  const web: AppServer[] = [];

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    const env = {
      DATABASE_URL: cluster.url,
      ADMIN_EMAILS: ADMIN_EMAIL,
      CHAT_SHARE_ROLES: 'admin',
      SESSION_SECRET: 'a-session-secret-both-processes-share-0123456789',
      MARKET_DATA: 'simulated',
    };
    web.push(await startAppServer({ env }));
    web.push(await startAppServer({ env: { ...env, RUN_WORKERS: 'false' } }));
  }, 120_000);
  afterAll(async () => {
    await Promise.allSettled(web.map((w) => w.stop()));
    cluster?.stop();
  });

  async function signIn(server: AppServer): Promise<string> {
    const res = await fetch(`${server.url}/api/auth/local/login`, { method: 'POST', headers: { origin: server.url, 'content-type': 'application/json' }, body: JSON.stringify({ email: ADMIN_EMAIL, name: 'Admin' }) });
    expect(res.status).toBe(200);
    return res.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  }
  const send = (server: AppServer, method: string, path: string, cookie?: string, body?: unknown) =>
    fetch(`${server.url}${path}`, {
      method,
      headers: { origin: server.url, ...(cookie ? { cookie } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it('a link revoked through one process is 404 at once through the other', async () => {
    const [a, b] = web as [AppServer, AppServer];
    const cookie = await signIn(a);
    const chatId = `chat-${Date.now()}-shared`;
    const saved = await send(a, 'POST', '/api/chat/conversations', cookie, {
      id: chatId,
      provider: 'openai',
      title: 'Shared across processes',
      model: 'gpt-4o',
      leafId: 'a1',
      updatedAt: new Date().toISOString(),
      messages: [
        { id: 'q1', parentId: null, role: 'user', content: 'Hello there', timestamp: new Date().toISOString() },
        { id: 'a1', parentId: 'q1', role: 'assistant', content: 'General Kenobi', timestamp: new Date().toISOString(), model: 'gpt-4o' },
      ],
    });
    expect(saved.status).toBeLessThan(300);
    const made = await send(a, 'POST', `/api/chat/conversations/${chatId}/shares`, cookie, {});
    expect(made.status).toBe(201);
    const link = (await made.json()) as TShareLink;
    const path = new URL(link.url).pathname;

    const seen = await send(b, 'GET', path);
    expect(seen.status).toBe(200);
    expect(await seen.text()).toContain('General Kenobi');
    expect((await send(b, 'DELETE', `/api/chat/shares/${link.id}`, await signIn(b))).status).toBe(204);
    expect((await send(a, 'GET', path)).status).toBe(404);
    expect((await send(b, 'GET', path)).status).toBe(404);
  });
});
