import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { articles } from '../../db/schema.ts';
import { listenLocally } from '../../test/event-stream-client.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { startTwoProcesses, type TwoProcesses } from '../../test/two-processes.ts';

const onPostgres = process.env.TEST_DATABASE === 'postgres';
/** The connection's own headers, and the length, which a compressed stream does not send. */
const PER_CONNECTION = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);
const headersOf = (res: LightMyRequestResponse) => Object.fromEntries(Object.entries(res.headers).filter(([name]) => !PER_CONNECTION.has(name)));

const article = (title: string, published = true) => ({ title, category: 'AI', excerpt: `An excerpt long enough to make the list worth compressing: ${'more words '.repeat(12)}`, content: `# ${title}\n\n${'Words. '.repeat(400)}`, published });

describe('public reads answered from memory (docs/decisions/0051)', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.signIn('admin@example.com', 'Admin');
    for (const title of ['Article one', 'Article two', 'Article three', 'Article four', 'Article five', 'Article six']) await t.request({ method: 'POST', url: '/api/articles', payload: article(title), cookie: admin });
  });
  afterAll(async () => t.close());

  /** A row written past the app: only a kept answer does not show it. */
  const sneakIn = (slug: string) => t.database.db.insert(articles).values({ slug, title: slug, category: 'AI', excerpt: 'e', content: 'c'.repeat(60), published: true });
  const titles = (res: LightMyRequestResponse) => (res.json() as Array<{ title: string }>).map((a) => a.title);

  for (const [label, headers] of [
    ['uncompressed', {}],
    ['brotli', { 'accept-encoding': 'br, gzip' }],
    ['gzip', { 'accept-encoding': 'gzip' }],
  ] as const) {
    it(`sends the same status, headers and body as the normal path (${label}), and 304 the same way`, async () => {
      const url = `/api/articles?limit=20&k=${label}`;
      const normal = await t.request({ url, headers });
      await sneakIn(`sneaked-${label}`);
      const kept = await t.request({ url, headers });
      expect(kept.statusCode).toBe(200);
      if (label === 'uncompressed') expect(Number(normal.headers['content-length'])).toBeGreaterThan(1024); // past compression's threshold
      expect(headersOf(kept)).toEqual(headersOf(normal));
      expect(kept.body).toBe(normal.body); // light-my-request decodes neither: equal bytes
      expect(normal.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      if (label !== 'uncompressed') expect(kept.headers['content-encoding']).toBe(label === 'brotli' ? 'br' : 'gzip');
      const etag = normal.headers.etag as string;
      // 304 on the normal path: a URL not kept yet; on the kept one: the same headers.
      const fresh = await t.request({ url: `${url}&n=1`, headers: { ...headers, 'if-none-match': 'W/"other"' } });
      const normal304 = await t.request({ url: `${url}&n=2`, headers: { ...headers, 'if-none-match': etag.replace(/\.\d+"$/, `.${fresh.headers['x-total-count']}"`) } });
      const kept304 = await t.request({ url, headers: { ...headers, 'if-none-match': etag } });
      expect(kept304.statusCode).toBe(304);
      expect(kept304.body).toBe('');
      if (normal304.statusCode === 304) expect(Object.keys(headersOf(kept304)).sort()).toEqual(Object.keys(headersOf(normal304)).sort());
      // Published through the app: the kept answers are dropped.
      await t.request({ method: 'PATCH', url: `/api/articles/${(await t.request({ url: '/api/admin/articles', cookie: admin })).json()[0].id}`, payload: { excerpt: 'Edited excerpt' }, cookie: admin });
    });
  }

  it('is dropped on publish, edit and delete through the app', async () => {
    const url = '/api/articles';
    await t.request({ url });
    await sneakIn('sneaked-list');
    expect(titles(await t.request({ url }))).not.toContain('sneaked-list');
    const created = (await t.request({ method: 'POST', url: '/api/articles', payload: article('Article seven'), cookie: admin })).json() as { id: string; slug: string };
    expect(titles(await t.request({ url }))).toEqual(expect.arrayContaining(['Article seven', 'sneaked-list']));
    await t.request({ method: 'PATCH', url: `/api/articles/${created.id}`, payload: { title: 'Article seven, edited' }, cookie: admin });
    expect(titles(await t.request({ url }))).toContain('Article seven, edited');
    await t.request({ method: 'DELETE', url: `/api/articles/${created.id}`, cookie: admin });
    expect(titles(await t.request({ url }))).not.toContain('Article seven, edited');
  });

  it('keeps an article page served on a real socket: tagged, so kept, and 304 while unchanged', async () => {
    const created = (await t.request({ method: 'POST', url: '/api/articles', payload: article('Socket page'), cookie: admin })).json() as { id: string; slug: string };
    const url = `${await listenLocally(t.app)}/insights/${created.slug}`;
    const first = await fetch(url);
    expect(first.status).toBe(200);
    const body = await first.text();
    // The cache keeps tagged answers only: a page without an ETag was rendered on every request.
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^W\/"/);
    const kept = await fetch(url);
    expect(kept.headers.get('etag')).toBe(etag);
    expect(await kept.text()).toBe(body);
    expect((await fetch(url, { headers: { 'if-none-match': etag! } })).status).toBe(304);
  });

  it('keeps an article page and drops it when the article changes', async () => {
    const created = (await t.request({ method: 'POST', url: '/api/articles', payload: article('Article page'), cookie: admin })).json() as { id: string; slug: string };
    const first = await t.request({ url: `/insights/${created.slug}` });
    expect(first.statusCode).toBe(200);
    expect((await t.request({ url: `/insights/${created.slug}` })).body).toBe(first.body);
    await t.request({ method: 'PATCH', url: `/api/articles/${created.id}`, payload: { title: 'Article page, renamed' }, cookie: admin });
    expect((await t.request({ url: `/insights/${created.slug}` })).body).toContain('Article page, renamed');
    await t.request({ method: 'PATCH', url: `/api/articles/${created.id}`, payload: { published: false }, cookie: admin });
    expect((await t.request({ url: `/insights/${created.slug}` })).statusCode).toBe(404);
  });

  it('answers a request with a session cookie on the normal path (an unknown one is cleared)', async () => {
    await t.request({ url: '/api/articles' });
    const res = await t.request({ url: '/api/articles', headers: { cookie: 'sid=unknown' } });
    expect(res.statusCode).toBe(200);
    expect(String(res.headers['set-cookie'])).toContain('sid=;');
  });
});

describe.runIf(onPostgres)('public reads across two processes on PostgreSQL', () => {
  let processes: TwoProcesses;
  let a: TestApp;
  let bUrl: string;
  let admin: string;
  beforeAll(async () => {
    ({ a, bUrl, admin } = processes = await startTwoProcesses());
  });
  afterAll(() => processes?.close());
  const titlesInB = async () => ((await (await fetch(`${bUrl}/api/articles`)).json()) as Array<{ title: string }>).map((x) => x.title);

  it('publish, edit and delete in one process show at the next read in the other', async () => {
    expect(await titlesInB()).toEqual([]);
    expect(await titlesInB()).toEqual([]); // kept in b
    const created = (await a.request({ method: 'POST', url: '/api/articles', payload: article('Across processes'), cookie: admin })).json() as { id: string };
    expect(await titlesInB()).toEqual(['Across processes']);
    await a.request({ method: 'PATCH', url: `/api/articles/${created.id}`, payload: { title: 'Across processes, edited' }, cookie: admin });
    expect(await titlesInB()).toEqual(['Across processes, edited']);
    await a.request({ method: 'DELETE', url: `/api/articles/${created.id}`, cookie: admin });
    expect(await titlesInB()).toEqual([]);
  });
});
