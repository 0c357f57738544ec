import { sampleImage } from '../../tests/fakes/sample-images.ts';
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAgentConfig, findTemplate } from '../../contracts/agents.ts';
import { CHAT_PROVIDER_INFO, CHAT_PROVIDERS } from '../../contracts/chat.ts';
import { chatBody, conversationBody, imageBody, presetBody } from './chat-helpers.ts';
import { createTestApp, TEST_ORIGIN, type TestApp } from './test-app.ts';
import { inAppAlert } from './agent-fixtures.ts';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const ADMIN = 'admin@example.com';

type Route = { method: string; url: string };
/** `raw`: the route takes a file's bytes as application/octet-stream (a document upload), not JSON. */
type Call = { path: string; payload: unknown; raw?: true };

/** An attack: the headers a hostile page (or a request without browser headers) would send,
 * and the answer the request guard must give before any route runs. */
type Attack = { name: string; headers: Record<string, string>; body: (payload: unknown) => string; status: 403 | 415 };

const asJsonText = (payload: unknown) => JSON.stringify(payload);
const asForm = (payload: unknown) =>
  new URLSearchParams(Object.entries(payload as Record<string, unknown>).map(([k, v]): [string, string] => [k, JSON.stringify(v)])).toString();

const ATTACKS: Attack[] = [
  ...['https://evil.example', 'null', 'http://localhost:3001', 'https://localhost:3000', `${TEST_ORIGIN}.evil.example`].map(
    (origin): Attack => ({ name: `Origin: ${origin}`, headers: { origin, 'content-type': 'application/json' }, body: asJsonText, status: 403 }),
  ),
  { name: 'Sec-Fetch-Site: cross-site, no Origin', headers: { 'sec-fetch-site': 'cross-site', 'content-type': 'application/json' }, body: asJsonText, status: 403 },
  { name: 'Sec-Fetch-Site: same-site, no Origin', headers: { 'sec-fetch-site': 'same-site', 'content-type': 'application/json' }, body: asJsonText, status: 403 },
  { name: 'neither Origin nor Sec-Fetch-Site', headers: { 'content-type': 'application/json' }, body: asJsonText, status: 403 },
  // The three content types a form or a no-cors fetch may send without a CORS preflight.
  { name: 'our Origin, text/plain body', headers: { origin: TEST_ORIGIN, 'content-type': 'text/plain' }, body: asJsonText, status: 415 },
  { name: 'our Origin, form body', headers: { origin: TEST_ORIGIN, 'content-type': 'application/x-www-form-urlencoded' }, body: asForm, status: 415 },
  { name: 'our Origin, multipart body', headers: { origin: TEST_ORIGIN, 'content-type': 'multipart/form-data; boundary=x' }, body: () => '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--\r\n', status: 415 },
  { name: 'same-origin fetch, text/plain body', headers: { 'sec-fetch-site': 'same-origin', 'content-type': 'text/plain' }, body: asJsonText, status: 415 },
];

const EXPECTED_BODY = {
  403: { error: 'Forbidden', message: 'Cross-origin request refused' },
  415: { error: 'Unsupported Media Type', message: 'Send the request body as application/json' },
};
const EXPECTED_RAW_415 = { error: 'Unsupported Media Type', message: 'Send the file as application/octet-stream' };

/**
 * Every state-changing /api route the app registers (read from `app.apiRoutes`, so a new route
 * is covered without touching this file) refuses a cross-origin or origin-less request with 403
 * and a non-JSON body with 415, signed in as the admin who owns the target, with a body that
 * would otherwise succeed; and the database is left exactly as it was.
 */
describe('request guard on every state-changing route', () => {
  let t: TestApp;
  let admin: string;
  let routes: Route[];
  /** One prepared call per route, each with its own target objects. */
  const calls = new Map<string, Call>();
  let n = 0;

  const key = (r: Route) => `${r.method} ${r.url}`;
  const asAdmin = async (method: string, path: string, payload?: object) => {
    const res = await t.request({ method: method as 'POST', url: path, cookie: admin, ...(payload ? { payload } : {}) });
    if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${res.body}`);
    return res.json();
  };
  const template = findTemplate('stock-market-scanner')!;
  const agentConfig = () => defaultAgentConfig(template);
  const article = () => ({
    title: `Guard article ${++n}`,
    category: 'Operations',
    excerpt: 'How a small team took the busywork out of its week.',
    content: 'Automation pays when it removes a decision nobody needed to make. '.repeat(3),
  });
  const newAgent = async (): Promise<{ id: string; name: string }> => asAdmin('POST', '/api/agents', { templateId: template.id, name: `Guard ${++n}`, config: agentConfig() });
  const newChannelId = async (): Promise<string> => (await asAdmin('POST', '/api/channels', { kind: 'telegram', name: 'Desk', botToken: '123456789:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', chatId: '42' })).id;
  const newConversationId = async (): Promise<string> => (await asAdmin('POST', '/api/chat/conversations', conversationBody())).conversation.id;
  const newPresetId = async (): Promise<string> => (await asAdmin('POST', '/api/chat/presets', presetBody())).id;
  const newImageId = async (): Promise<string> => (await asAdmin('POST', '/api/chat/images', imageBody())).id;
  const newDocumentId = async (): Promise<string> => {
    const res = await t.request({ method: 'POST', url: `/api/documents?name=guard-${++n}.txt`, cookie: admin, headers: { 'content-type': 'application/octet-stream' }, payload: Buffer.from('Guarded words.') });
    if (res.statusCode !== 201) throw new Error(`POST /api/documents: ${res.statusCode} ${res.body}`);
    return res.json<{ id: string }>().id;
  };
  const newArticleId = async (): Promise<string> => (await asAdmin('POST', '/api/articles', { ...article(), published: true })).id;
  const newUserId = async (): Promise<string> => {
    const email = `user-${++n}@example.com`;
    await t.signIn(email);
    return ((await asAdmin('GET', '/api/users')) as Array<{ id: string; email: string }>).find((u) => u.email === email)!.id;
  };
  const newNotificationId = async (): Promise<string> => {
    const agent = await newAgent();
    const { runId } = await asAdmin('POST', `/api/agents/${agent.id}/run`);
    return inAppAlert(t, { userId: (await asAdmin('GET', '/api/auth/me')).user.id, agentId: agent.id, agentName: agent.name, runId });
  };

  /** Valid calls for the routes known today. A route not listed here is still attacked, with an
   * empty JSON object and a made-up id; it only loses the proof that its call would succeed. */
  const knownCalls: Record<string, () => Promise<Call>> = {
    'POST /api/auth/local/login': async () => ({ path: '/api/auth/local/login', payload: { email: `new-${++n}@example.com`, name: 'New' } }),
    'POST /api/auth/user': async () => ({ path: '/api/auth/user', payload: {} }),
    'POST /api/auth/logout': async () => ({ path: '/api/auth/logout', payload: {} }),
    'PATCH /api/users/:id': async () => ({ path: `/api/users/${await newUserId()}`, payload: { role: 'admin' } }),
    'POST /api/invites': async () => ({ path: '/api/invites', payload: { email: `invited-${++n}@example.com`, role: 'guest' } }),
    'POST /api/auth/passkey/options': async () => ({ path: '/api/auth/passkey/options', payload: {} }),
    'POST /api/agents': async () => ({ path: '/api/agents', payload: { templateId: template.id, name: `Posted ${++n}`, config: agentConfig() } }),
    'PATCH /api/agents/:id': async () => ({ path: `/api/agents/${(await newAgent()).id}`, payload: { name: `Renamed ${++n}` } }),
    'DELETE /api/agents/:id': async () => ({ path: `/api/agents/${(await newAgent()).id}`, payload: {} }),
    'POST /api/agents/:id/run': async () => ({ path: `/api/agents/${(await newAgent()).id}/run`, payload: {} }),
    'POST /api/articles': async () => ({ path: '/api/articles', payload: article() }),
    'POST /api/articles/images': async () => ({ path: '/api/articles/images?type=image/png', payload: sampleImage('png'), raw: true }),
    'PATCH /api/articles/:id': async () => ({ path: `/api/articles/${await newArticleId()}`, payload: { title: `Edited ${++n}` } }),
    'DELETE /api/articles/:id': async () => ({ path: `/api/articles/${await newArticleId()}`, payload: {} }),
    'POST /api/articles/:id/revisions/:revisionId/restore': async () => {
      const id = await newArticleId();
      const { revisions } = await asAdmin('GET', `/api/admin/articles/${id}/revisions`);
      await asAdmin('PATCH', `/api/articles/${id}`, { title: `Edited before a restore ${++n}` });
      return { path: `/api/articles/${id}/revisions/${revisions[0].id}/restore`, payload: {} };
    },
    'POST /api/admin/articles/:id/preview-links': async () => ({ path: `/api/admin/articles/${(await asAdmin('POST', '/api/articles', article())).id}/preview-links`, payload: {} }),
    'DELETE /api/admin/articles/:id/preview-links/:linkId': async () => {
      const { id } = await asAdmin('POST', '/api/articles', article());
      const link = await asAdmin('POST', `/api/admin/articles/${id}/preview-links`);
      return { path: `/api/admin/articles/${id}/preview-links/${link.id}`, payload: {} };
    },
    'POST /api/notifications/read-all': async () => {
      await newNotificationId(); // something unread, so the call would change a row
      return { path: '/api/notifications/read-all', payload: {} };
    },
    'POST /api/notifications/:id/read': async () => ({ path: `/api/notifications/${await newNotificationId()}/read`, payload: {} }),
    'POST /api/channels': async () => ({ path: '/api/channels', payload: { kind: 'telegram', name: 'Desk', botToken: '123456789:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', chatId: '42' } }),
    'DELETE /api/channels/:id': async () => ({ path: `/api/channels/${await newChannelId()}`, payload: {} }),
    'POST /api/channels/:id/test': async () => ({ path: `/api/channels/${await newChannelId()}/test`, payload: {} }),
    'PUT /api/settings': async () => ({ path: '/api/settings', payload: { alertEmail: `alerts-${++n}@example.com`, timeZone: 'Europe/Paris' } }),
    'POST /api/chat/conversations': async () => ({ path: '/api/chat/conversations', payload: conversationBody() }),
    'POST /api/chat/conversations/import': async () => ({ path: '/api/chat/conversations/import', payload: { conversations: [conversationBody()] } }),
    'PATCH /api/chat/conversations/:id': async () => ({ path: `/api/chat/conversations/${await newConversationId()}`, payload: { customTitle: `Renamed ${++n}` } }),
    'DELETE /api/chat/conversations/:id': async () => ({ path: `/api/chat/conversations/${await newConversationId()}`, payload: {} }),
    'POST /api/chat/presets': async () => ({ path: '/api/chat/presets', payload: presetBody() }),
    'PATCH /api/chat/presets/:id': async () => ({ path: `/api/chat/presets/${await newPresetId()}`, payload: { name: `Renamed preset ${++n}` } }),
    'DELETE /api/chat/presets/:id': async () => ({ path: `/api/chat/presets/${await newPresetId()}`, payload: {} }),
    'POST /api/chat/conversations/:id/stop': async () => ({ path: `/api/chat/conversations/${await newConversationId()}/stop`, payload: { answer: 'a1' } }),
    'POST /api/chat/images': async () => ({ path: '/api/chat/images', payload: imageBody() }),
    'DELETE /api/chat/images/:id': async () => ({ path: `/api/chat/images/${await newImageId()}`, payload: {} }),
    'POST /api/documents': async () => ({ path: `/api/documents?name=posted-${++n}.txt`, payload: Buffer.from('Posted words.'), raw: true }),
    'DELETE /api/documents/:id': async () => ({ path: `/api/documents/${await newDocumentId()}`, payload: {} }),
    ...Object.fromEntries(
      CHAT_PROVIDERS.map((p) => [`POST ${CHAT_PROVIDER_INFO[p].endpoint}`, async (): Promise<Call> => ({ path: CHAT_PROVIDER_INFO[p].endpoint, payload: chatBody(p) })]),
    ),
  };
  const fallbackCall = (route: Route): Call => ({ path: route.url.replace(/:[A-Za-z]+/g, () => randomUUID()), payload: {} });

  /** Every row of every table, as a digest per table: any insert, update or delete shows. */
  async function snapshot(): Promise<Record<string, string>> {
    const tables = (await t.database.db.execute(
      sql`select table_schema as s, table_name as n from information_schema.tables
          where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema') order by 1, 2`,
    )) as unknown as { rows: Array<{ s: string; n: string }> };
    const digests: Record<string, string> = {};
    for (const { s, n: name } of tables.rows) {
      const table = sql.raw(`"${s}"."${name}"`);
      const res = (await t.database.db.execute(
        sql`select count(*)::int as rows, coalesce(md5(string_agg(x::text, '|' order by x::text)), '') as digest from ${table} x`,
      )) as unknown as { rows: Array<{ rows: number; digest: string }> };
      digests[`${s}.${name}`] = `${res.rows[0]!.rows} rows ${res.rows[0]!.digest}`;
    }
    return digests;
  }

  beforeAll(async () => {
    // No keys: allowed chat calls answer SPEC's error body without calling out.
    t = await createTestApp({ env: { ADMIN_EMAILS: ADMIN, MARKET_DATA: 'simulated', CHAT_RATE_LIMIT: '1000' } });
    admin = await t.signIn(ADMIN, 'Admin');
    routes = t.app.apiRoutes.filter((r) => STATE_CHANGING.has(r.method));
    for (const route of routes) calls.set(key(route), await (knownCalls[key(route)]?.() ?? fallbackCall(route)));
  });
  afterAll(async () => t.close());

  it('finds the state-changing routes in the app', () => {
    expect(routes.length).toBeGreaterThanOrEqual(Object.keys(knownCalls).length);
    expect(routes.map(key)).toEqual(expect.arrayContaining(Object.keys(knownCalls)));
  });

  it.each(ATTACKS.map((a) => [a.name, a] as const))('%s: refused on every route, nothing stored', async (_name, attack) => {
    const before = await snapshot();
    const wrong: string[] = [];
    for (const route of routes) {
      const { path, payload, raw } = calls.get(key(route))!;
      const res = await t.app.inject({ method: route.method as 'POST', url: path, payload: attack.body(payload), headers: { ...attack.headers, cookie: admin } });
      const body = res.headers['content-type']?.startsWith('application/json') ? res.json() : res.body;
      const expected = raw && attack.status === 415 ? EXPECTED_RAW_415 : EXPECTED_BODY[attack.status];
      if (res.statusCode !== attack.status || JSON.stringify(body) !== JSON.stringify(expected)) {
        wrong.push(`${key(route)}: ${res.statusCode} ${res.body.slice(0, 120)}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(await snapshot()).toEqual(before);
    // Still signed in: a refused sign-out did not end the session.
    expect((await t.request({ url: '/api/auth/me', cookie: admin })).json().user?.email).toBe(ADMIN);
  });

  it('control: the same calls from our origin, as JSON (or a file as octet-stream), are let through and succeed', async () => {
    const wrong: string[] = [];
    for (const route of routes) {
      const { path, payload, raw } = calls.get(key(route))!;
      // A fresh session each time: the sign-out call ends its own.
      const res = await t.request({
        method: route.method as 'POST',
        url: path,
        payload: payload as object,
        cookie: await t.signIn(ADMIN),
        ...(raw ? { headers: { 'content-type': 'application/octet-stream' } } : {}),
      });
      const ok = key(route) in knownCalls ? res.statusCode < 300 : res.statusCode !== 403 && res.statusCode !== 415;
      if (!ok) wrong.push(`${key(route)}: ${res.statusCode} ${res.body.slice(0, 120)}`);
    }
    expect(wrong).toEqual([]);
  });
});
