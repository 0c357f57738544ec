import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { articles } from '../../db/schema.ts';
import { listenLocally } from '../../test/event-stream-client.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { startTwoProcesses, type TwoProcesses } from '../../test/two-processes.ts';
import { until } from '../../test/until.ts';

const onPostgres = process.env.TEST_DATABASE === 'postgres';
/** The connection's own headers, and the length, which a compressed stream does not send. */
const PER_CONNECTION = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);
type Raw = { statusCode: number; headers: IncomingHttpHeaders; body: Buffer };
const headersOf = (res: Raw) => Object.fromEntries(Object.entries(res.headers).filter(([name]) => !PER_CONNECTION.has(name)));

/** A GET on a real socket, its body as the bytes that came (nothing decoded). Kept answers are
 * served by the server's front door, which `inject` never meets (docs/decisions/0057). */
function get(url: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ statusCode: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const article = (title: string, published = true) => ({ title, category: 'AI', excerpt: `An excerpt long enough to make the list worth compressing: ${'more words '.repeat(12)}`, content: `# ${title}\n\n${'Words. '.repeat(400)}`, published });

describe('public reads answered from memory (docs/decisions/0051, 0057)', () => {
  let t: TestApp;
  let admin: string;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.signIn('admin@example.com', 'Admin');
    for (const title of ['Article one', 'Article two', 'Article three', 'Article four', 'Article five', 'Article six']) await t.request({ method: 'POST', url: '/api/articles', payload: article(title), cookie: admin });
    base = await listenLocally(t.app);
  });
  afterAll(async () => t.close());

  /** A row written past the app: only a kept answer does not show it. */
  const sneakIn = (slug: string) => t.database.db.insert(articles).values({ slug, title: slug, category: 'AI', excerpt: 'e', content: 'c'.repeat(60), status: 'published' });
  const titles = (res: Raw) => (JSON.parse(res.body.toString()) as Array<{ title: string }>).map((a) => a.title);

  for (const [label, headers] of [
    ['uncompressed', {}],
    ['brotli', { 'accept-encoding': 'br, gzip' }],
    ['gzip', { 'accept-encoding': 'gzip' }],
  ] as const) {
    it(`sends the same status, headers and body as the normal path (${label}), and 304 the same way`, async () => {
      const url = `${base}/api/articles?limit=20&k=${label}`;
      const normal = await get(url, headers);
      await sneakIn(`sneaked-${label}`);
      const kept = await get(url, headers);
      expect(kept.statusCode).toBe(200);
      if (label === 'uncompressed') expect(Number(normal.headers['content-length'])).toBeGreaterThan(1024); // past compression's threshold
      expect(headersOf(kept)).toEqual(headersOf(normal));
      expect(kept.body.equals(normal.body)).toBe(true); // nothing decoded: equal bytes
      expect(kept.headers['content-length']).toBe(String(kept.body.length));
      expect(normal.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      if (label !== 'uncompressed') expect(kept.headers['content-encoding']).toBe(label === 'brotli' ? 'br' : 'gzip');
      const etag = normal.headers.etag as string;
      // 304 on the normal path: a URL not kept yet; on the kept one: the same headers.
      const fresh = await get(`${url}&n=1`, { ...headers, 'if-none-match': 'W/"other"' });
      const normal304 = await get(`${url}&n=2`, { ...headers, 'if-none-match': etag.replace(/\.\d+"$/, `.${String(fresh.headers['x-total-count'])}"`) });
      const kept304 = await get(url, { ...headers, 'if-none-match': etag });
      expect(kept304.statusCode).toBe(304);
      expect(kept304.body.length).toBe(0);
      if (normal304.statusCode === 304) expect(Object.keys(headersOf(kept304)).sort()).toEqual(Object.keys(headersOf(normal304)).sort());
      // Published through the app: the kept answers are dropped.
      await t.request({ method: 'PATCH', url: `/api/articles/${(await t.request({ url: '/api/admin/articles', cookie: admin })).json()[0].id}`, payload: { excerpt: 'Edited excerpt' }, cookie: admin });
    });
  }

  it('is dropped on publish, edit and delete through the app', async () => {
    const url = `${base}/api/articles`;
    await get(url);
    await sneakIn('sneaked-list');
    expect(titles(await get(url))).not.toContain('sneaked-list');
    const created = (await t.request({ method: 'POST', url: '/api/articles', payload: article('Article seven'), cookie: admin })).json() as { id: string; slug: string };
    expect(titles(await get(url))).toEqual(expect.arrayContaining(['Article seven', 'sneaked-list']));
    await t.request({ method: 'PATCH', url: `/api/articles/${created.id}`, payload: { title: 'Article seven, edited' }, cookie: admin });
    expect(titles(await get(url))).toContain('Article seven, edited');
    await t.request({ method: 'DELETE', url: `/api/articles/${created.id}`, cookie: admin });
    expect(titles(await get(url))).not.toContain('Article seven, edited');
  });

  it('keeps an article page: tagged, so kept, and 304 while unchanged', async () => {
    const created = (await t.request({ method: 'POST', url: '/api/articles', payload: article('Socket page'), cookie: admin })).json() as { id: string; slug: string };
    const url = `${base}/insights/${created.slug}`;
    const first = await get(url);
    expect(first.statusCode).toBe(200);
    // The cache keeps tagged answers only: a page without an ETag was rendered on every request.
    const etag = first.headers.etag;
    expect(etag).toMatch(/^W\/"/);
    await t.database.db.update(articles).set({ title: 'Changed past the app' });
    const kept = await get(url);
    expect(kept.headers.etag).toBe(etag);
    expect(kept.body.equals(first.body)).toBe(true);
    expect(kept.body.toString()).not.toContain('Changed past the app');
    expect((await get(url, { 'if-none-match': etag! })).statusCode).toBe(304);
  });

  it('keeps an article page and drops it when the article changes', async () => {
    const created = (await t.request({ method: 'POST', url: '/api/articles', payload: article('Article page'), cookie: admin })).json() as { id: string; slug: string };
    const url = `${base}/insights/${created.slug}`;
    const first = await get(url);
    expect(first.statusCode).toBe(200);
    expect((await get(url)).body.equals(first.body)).toBe(true);
    await t.request({ method: 'PATCH', url: `/api/articles/${created.id}`, payload: { title: 'Article page, renamed' }, cookie: admin });
    expect((await get(url)).body.toString()).toContain('Article page, renamed');
    await t.request({ method: 'PATCH', url: `/api/articles/${created.id}`, payload: { published: false }, cookie: admin });
    expect((await get(url)).statusCode).toBe(404);
  });

  it('answers a kept read at the door: it never reaches Fastify, and is logged as answered from memory', async () => {
    const lines: Array<{ msg: string; req?: { url?: string }; res?: { statusCode?: number } }> = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const logged = await createTestApp({ logger });
    try {
      const url = `${await listenLocally(logged.app)}/api/articles?door=1`;
      // On PostgreSQL nothing is kept until the new app's LISTEN connection has heard its own
      // first heartbeat back (bus.ts); under a loaded suite that can come after the first read.
      await until(async () => logged.app.invalidations.reliable(), (up) => up);
      const seen = (msg: string) => lines.filter((l) => l.msg === msg && l.req?.url === '/api/articles?door=1').length;
      const first = await get(url);
      await until(async () => seen('request completed'), (n) => n === 1);
      const kept = await get(url);
      expect(kept.body.equals(first.body)).toBe(true);
      expect(seen('request completed')).toBe(1); // Fastify saw the first only
      expect(seen('request answered from memory')).toBe(1);
      expect(lines.find((l) => l.msg === 'request answered from memory')?.res?.statusCode).toBe(200);
    } finally {
      await logged.close();
    }
  });

  it('answers a request with a session cookie on the normal path (an unknown one is cleared)', async () => {
    await get(`${base}/api/articles`);
    const res = await get(`${base}/api/articles`, { cookie: 'sid=unknown' });
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
