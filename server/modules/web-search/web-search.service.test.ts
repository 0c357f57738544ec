import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.ts';
import type { SessionUser } from '../../lib/http/types.ts';
import { memoryLogger } from '../../test/memory-logger.ts';
import { ARTICLE_SENTENCE, FAKE_PAGES, startFakeWebSearch, type FakeWebSearch } from '../../../tests/fakes/web-search.ts';
import { createWebSearchService, type WebSearchLimits } from './web-search.service.ts';

/** Small bounds so the too-big and slow pages are found out quickly. */
const LIMITS: Partial<WebSearchLimits> = { pageMaxBytes: 64 * 1024, pageTimeoutMs: 1_500 };

let fake: FakeWebSearch;
beforeAll(async () => {
  fake = await startFakeWebSearch({ pageMaxBytes: LIMITS.pageMaxBytes });
});
afterAll(async () => fake.close());
beforeEach(() => {
  fake.asked.length = 0;
  fake.pagesRequested.length = 0;
  fake.failWith = 0;
  fake.results = [FAKE_PAGES.article, FAKE_PAGES.redirectToPrivate, FAKE_PAGES.tooBig, FAKE_PAGES.redirectToArticle];
});

function service(provider: 'searxng' | 'brave' | 'tavily', limits: Partial<WebSearchLimits> = LIMITS) {
  const config = loadConfig({ NODE_ENV: 'test', ...fake.env(provider) }, { inMemoryDatabase: true });
  return createWebSearchService({ engine: config.webSearch, outbound: config.outbound, limits });
}

/** A port nothing listens on: one the system gave, closed again. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function userWithId(id: string): SessionUser {
  return { id, provider: 'local', subject: id, email: `${id}@example.com`, name: id, profilePicture: '', role: 'guest', createdAt: new Date() };
}
const user = userWithId('00000000-0000-4000-8000-000000000001');

describe('web search service', () => {
  it.each(['searxng', 'brave', 'tavily'] as const)('searches with %s, fetches the pages through the outbound door and keeps their readable text', async (provider) => {
    const { logger, lines } = memoryLogger();
    const found = await service(provider).search(user, 'solar output third quarter', { signal: new AbortController().signal, log: logger });
    expect(found.failed).toBe(false);
    expect(fake.asked).toEqual([{ api: provider, query: 'solar output third quarter' }]);
    // The article, and the article again through a public redirect (same page, both kept as the
    // engine listed two results); the private redirect and the huge page are left out.
    expect(found.sources.map((s) => s.url)).toEqual([`${fake.root}${FAKE_PAGES.article}`, `${fake.root}${FAKE_PAGES.article}`]);
    const [article] = found.sources;
    expect(article!.title).toBe('Result 1');
    expect(article!.snippet).toBe('The snippet of result 1');
    expect(article!.text).toContain(ARTICLE_SENTENCE);
    // Readable text only: no script, style, navigation or footer.
    expect(article!.text).not.toMatch(/stolen|color:red|About|Copyright/);
    const leftOut = lines.filter((l) => l.msg === 'web page left out').map((l) => l.webPage as Record<string, unknown>);
    expect(leftOut).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ reason: 'refused', kind: 'forbidden-address', range: 'link-local', address: '169.254.169.254' }),
        expect.objectContaining({ reason: 'too-big' }),
      ]),
    );
  });

  it('never connects to a private address a page redirects to: the hop is checked before anything connects', async () => {
    fake.results = [FAKE_PAGES.redirectToPrivate];
    const { logger, lines } = memoryLogger();
    const found = await service('searxng').search(user, 'metadata', { signal: new AbortController().signal, log: logger });
    expect(found).toEqual({ sources: [], failed: false });
    expect(fake.pagesRequested).toEqual([FAKE_PAGES.redirectToPrivate]);
    expect(lines.find((l) => l.msg === 'web page left out')?.webPage).toMatchObject({ reason: 'refused', kind: 'forbidden-address', range: 'link-local' });
  });

  it('leaves out a page over the size bound without reading it all, and a page that does not answer in time', async () => {
    fake.results = [FAKE_PAGES.tooBig, FAKE_PAGES.slow, FAKE_PAGES.article];
    const { logger, lines } = memoryLogger();
    const found = await service('brave').search(user, 'bounds', { signal: new AbortController().signal, log: logger });
    expect(found.sources.map((s) => s.url)).toEqual([`${fake.root}${FAKE_PAGES.article}`]);
    const reasons = lines.filter((l) => l.msg === 'web page left out').map((l) => (l.webPage as { reason: string }).reason);
    expect(reasons.sort()).toEqual(['timeout', 'too-big']);
  });

  it.each([
    ['searxng', 503],
    ['brave', 429],
    ['tavily', 500],
  ] as const)('says the search failed when %s answers %i, and logs the status without the key or the question', async (provider, status) => {
    fake.failWith = status;
    const { logger, lines } = memoryLogger();
    const found = await service(provider).search(user, 'a private question', { signal: new AbortController().signal, log: logger });
    expect(found).toEqual({ sources: [], failed: true });
    const line = lines.find((l) => l.msg === 'web search failed: the engine did not answer');
    expect(line?.webSearch).toEqual({ provider, status });
    expect(JSON.stringify(lines)).not.toMatch(/fake-search-key|a private question/);
  });

  it('says the search failed when the engine cannot be reached', async () => {
    const config = loadConfig({ NODE_ENV: 'test', WEB_SEARCH_PROVIDER: 'searxng', SEARXNG_URL: `http://127.0.0.1:${await closedPort()}` }, { inMemoryDatabase: true });
    const { logger, lines } = memoryLogger();
    const found = await createWebSearchService({ engine: config.webSearch, outbound: config.outbound }).search(user, 'q', { signal: new AbortController().signal, log: logger });
    expect(found).toEqual({ sources: [], failed: true });
    expect(lines.find((l) => l.msg === 'web search failed: the engine did not answer')?.webSearch).toEqual({ provider: 'searxng', code: 'ECONNREFUSED' });
  });

  it('refuses a wrong key as a failed search (Brave and Tavily answer 401)', async () => {
    for (const provider of ['brave', 'tavily'] as const) {
      const config = loadConfig({ NODE_ENV: 'test', ...fake.env(provider), [provider === 'brave' ? 'BRAVE_SEARCH_API_KEY' : 'TAVILY_API_KEY']: 'wrong' }, { inMemoryDatabase: true });
      const { logger } = memoryLogger();
      const found = await createWebSearchService({ engine: config.webSearch, outbound: config.outbound }).search(user, 'q', { signal: new AbortController().signal, log: logger });
      expect(found).toEqual({ sources: [], failed: true });
    }
    expect(fake.asked).toEqual([]);
  });

  it('bounds searches per user per minute, each user on their own', async () => {
    fake.results = [];
    let clock = 1_000_000;
    const config = loadConfig({ NODE_ENV: 'test', ...fake.env('searxng') }, { inMemoryDatabase: true });
    const search = createWebSearchService({ engine: config.webSearch, outbound: config.outbound, limits: { perMinute: 2 }, now: () => clock });
    const { logger, lines } = memoryLogger();
    const ask = (id: string) => search.search(userWithId(id), 'q', { signal: new AbortController().signal, log: logger });
    expect((await ask('a')).failed).toBe(false);
    expect((await ask('a')).failed).toBe(false);
    expect((await ask('a')).failed).toBe(true);
    expect((await ask('b')).failed).toBe(false);
    expect(lines.some((l) => l.msg === 'web search refused: the user is over the per-minute limit')).toBe(true);
    clock += 60_001;
    expect((await ask('a')).failed).toBe(false);
    expect(fake.asked).toHaveLength(4);
  });

  it('is off without an engine', async () => {
    const search = createWebSearchService({ engine: null, outbound: { allowLoopback: false } });
    expect(search.enabled).toBe(false);
  });
});
