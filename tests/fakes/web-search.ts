import type { IncomingMessage, ServerResponse } from 'node:http';
import { readJson, runStandalone, sendJson, startFakeHttpServer } from './http.ts';

/**
 * A fake search engine and fake web pages on 127.0.0.1 (issue 32). The engine answers in each
 * real API's shape, as their documentation gives it:
 * - SearXNG `GET /search?q=&format=json`: `{query, number_of_results, results: [{url, title,
 *   content, engine, score, category}], answers, suggestions, unresponsive_engines}`; without
 *   `format=json` (an instance that did not enable JSON) 403, as SearXNG answers.
 * - Brave `GET /res/v1/web/search` with `X-Subscription-Token`: `{type: 'search', query: {original},
 *   web: {type: 'search', results: [{title, url, description}]}}`; a wrong token 401 with Brave's
 *   `{type: 'ErrorResponse', error: {status, code: 'SUBSCRIPTION_TOKEN_INVALID', detail}}`.
 * - Tavily `POST /search` with `Authorization: Bearer <key>` and `{query, max_results}`: `{query,
 *   answer, images, results: [{title, url, content, score, raw_content}], response_time}`; a wrong
 *   key 401 with `{detail: {error}}`.
 * The pages (`/pages/...`): a plain article, one redirecting (301) to the article, one redirecting
 * to a private address (the cloud metadata one), one too big, one that never answers.
 */
export const FAKE_SEARCH_KEY = 'fake-search-key-0123456789';
export const ARTICLE_SENTENCE = 'Solar output in the region grew by 41 percent in the third quarter.';

export type FakeWebSearch = {
  root: string;
  /** What the engine was asked, in order: the API ('searxng' | 'brave' | 'tavily') and the question. */
  asked: { api: string; query: string }[];
  /** Pages requested, by path. */
  pagesRequested: string[];
  /** The paths the engine returns as results (under root), in order. */
  results: string[];
  /** The engine's next answers fail with this status (0: answer normally). */
  failWith: number;
  env(provider: 'searxng' | 'brave' | 'tavily'): Record<string, string>;
  close(): Promise<void>;
};

export const FAKE_PAGES = {
  article: '/pages/article',
  redirectToArticle: '/pages/moved',
  redirectToPrivate: '/pages/metadata',
  tooBig: '/pages/huge',
  slow: '/pages/slow',
} as const;

const ARTICLE_HTML = `<!doctype html><html><head><title>Solar report Q3</title>
<script>window.stolen = document.cookie</script><style>body{color:red}</style></head>
<body><nav><a href="/">Home</a> · <a href="/about">About</a></nav>
<article><h1>Solar output grew</h1>
<p>${ARTICLE_SENTENCE} Analysts credit new panels installed over the summer across the valley.</p>
<p>The grid operator expects the trend to hold through the winter, with storage smoothing the evening peak.</p>
<p>Prices for households fell slightly as the share of solar in the mix rose above a third for the first time.</p>
</article><footer>Copyright footer text</footer></body></html>`;

export async function startFakeWebSearch(options: { pageMaxBytes?: number } = {}): Promise<FakeWebSearch> {
  const hanging = new Set<ServerResponse>();
  const fake: FakeWebSearch = {
    root: '',
    asked: [],
    pagesRequested: [],
    results: [FAKE_PAGES.article, FAKE_PAGES.redirectToPrivate, FAKE_PAGES.tooBig, FAKE_PAGES.redirectToArticle],
    failWith: 0,
    env: (provider) => ({
      WEB_SEARCH_PROVIDER: provider,
      OUTBOUND_ALLOW_LOOPBACK: 'true',
      ...(provider === 'searxng' ? { SEARXNG_URL: fake.root } : {}),
      ...(provider === 'brave' ? { BRAVE_SEARCH_API_KEY: FAKE_SEARCH_KEY, BRAVE_SEARCH_BASE_URL: fake.root } : {}),
      ...(provider === 'tavily' ? { TAVILY_API_KEY: FAKE_SEARCH_KEY, TAVILY_BASE_URL: fake.root } : {}),
    }),
    close: async () => {
      for (const res of hanging) res.destroy();
      await server.close();
    },
  };
  const results = () =>
    fake.results.map((path, i) => ({ url: `${fake.root}${path}`, title: `Result ${i + 1}`, snippet: `The <strong>snippet</strong> of result ${i + 1}` }));

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (url.pathname.startsWith('/pages/')) return page(url.pathname, res);
    if (url.pathname === '/search' && req.method === 'GET') {
      const query = url.searchParams.get('q') ?? '';
      if (url.searchParams.get('format') !== 'json') return res.writeHead(403, { 'content-type': 'text/html' }).end('<h1>403 Forbidden</h1>');
      fake.asked.push({ api: 'searxng', query });
      if (fake.failWith) return res.writeHead(fake.failWith, { 'content-type': 'text/html' }).end('<h1>Server error</h1>');
      return sendJson(res, 200, {
        query,
        number_of_results: 0,
        results: results().map((r, i) => ({ url: r.url, title: r.title, content: r.snippet, engine: 'duckduckgo', engines: ['duckduckgo'], score: 1 / (i + 1), category: 'general', positions: [i + 1] })),
        answers: [],
        corrections: [],
        infoboxes: [],
        suggestions: [],
        unresponsive_engines: [],
      });
    }
    if (url.pathname === '/res/v1/web/search' && req.method === 'GET') {
      const query = url.searchParams.get('q') ?? '';
      if (req.headers['x-subscription-token'] !== FAKE_SEARCH_KEY) {
        return sendJson(res, 401, { type: 'ErrorResponse', error: { id: 'fake', status: 401, code: 'SUBSCRIPTION_TOKEN_INVALID', detail: 'The provided subscription token is invalid.', meta: {} }, time: Date.now() });
      }
      fake.asked.push({ api: 'brave', query });
      if (fake.failWith) return sendJson(res, fake.failWith, { type: 'ErrorResponse', error: { id: 'fake', status: fake.failWith, code: 'RATE_LIMITED', detail: 'Request rate limit exceeded for plan.', meta: {} }, time: Date.now() });
      const count = Number(url.searchParams.get('count') ?? 20);
      return sendJson(res, 200, {
        type: 'search',
        query: { original: query, more_results_available: false },
        mixed: { type: 'mixed', main: [] },
        web: { type: 'search', family_friendly: true, results: results().slice(0, count).map((r) => ({ type: 'search_result', title: r.title, url: r.url, description: r.snippet, is_source_local: false, language: 'en' })) },
      });
    }
    if (url.pathname === '/search' && req.method === 'POST') {
      const body = await readJson(req);
      if (req.headers.authorization !== `Bearer ${FAKE_SEARCH_KEY}`) return sendJson(res, 401, { detail: { error: 'Unauthorized: missing or invalid API key.' } });
      const query = typeof body.query === 'string' ? body.query : '';
      fake.asked.push({ api: 'tavily', query });
      if (fake.failWith) return sendJson(res, fake.failWith, { detail: { error: 'Internal Server Error' } });
      const max = typeof body.max_results === 'number' ? body.max_results : 5;
      return sendJson(res, 200, {
        query,
        answer: null,
        images: [],
        results: results().slice(0, max).map((r, i) => ({ title: r.title, url: r.url, content: r.snippet, score: 1 - i / 10, raw_content: null })),
        response_time: 0.42,
      });
    }
    sendJson(res, 404, { error: 'not found' });
  }

  function page(path: string, res: ServerResponse) {
    fake.pagesRequested.push(path);
    switch (path) {
      case FAKE_PAGES.article:
        return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE_HTML);
      case FAKE_PAGES.redirectToArticle:
        return res.writeHead(301, { location: FAKE_PAGES.article }).end();
      case FAKE_PAGES.redirectToPrivate:
        return res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      case FAKE_PAGES.tooBig: {
        // Chunked, no length: the reader finds out by counting.
        res.writeHead(200, { 'content-type': 'text/html' });
        const chunk = `<p>${'filler '.repeat(1_000)}</p>`;
        const total = (options.pageMaxBytes ?? 2 * 1024 * 1024) * 2;
        let sent = 0;
        const write = () => {
          while (sent < total) {
            sent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', write);
          }
          res.end();
        };
        res.on('close', () => (sent = total));
        return write();
      }
      case FAKE_PAGES.slow:
        // Headers never come: the reader's deadline ends it.
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      default:
        return res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
    }
  }

  const server = await startFakeHttpServer('fake web search', 0, async (req, res) => {
    await handle(req, res);
  });
  fake.root = server.root;
  return fake;
}

void runStandalone(import.meta.url, async () => {
  const fake = await startFakeWebSearch();
  return { env: fake.env('searxng'), close: fake.close };
});
