import type { WebSearchConfig } from '../../config.ts';

/** One result an engine gave: the page's address, its title, and the engine's snippet. */
export type EngineResult = { url: string; title: string; snippet: string };

/**
 * The engine could not answer: unreachable, a status other than 200, or a body not in its API's
 * shape. `detail` is for the log: the engine and status only, never the key or the question.
 */
export class SearchEngineError extends Error {
  readonly detail: { provider: WebSearchConfig['provider']; status?: number; code?: string };

  constructor(detail: SearchEngineError['detail']) {
    super('The search engine did not answer');
    this.name = 'SearchEngineError';
    this.detail = detail;
  }
}

/** The most an engine's answer may hold; ten results are a few kilobytes. */
const MAX_ENGINE_BYTES = 2 * 1024 * 1024;

/**
 * Searches `query` on the operator's engine with its own API (the engine is configured by the
 * operator, like an AI provider, so it is reached directly: a self-hosted SearXNG is often on a
 * private network; the pages it finds go through the outbound door):
 * - SearXNG: `GET {SEARXNG_URL}/search?q=&format=json` (its JSON API, which the instance must
 *   enable in `search.formats`, else 403), `results: [{url, title, content}]`.
 * - Brave: `GET /res/v1/web/search?q=&count=` with `X-Subscription-Token`,
 *   `web.results: [{url, title, description}]`.
 * - Tavily: `POST /search` with `Authorization: Bearer <key>` and `{query, max_results}`,
 *   `results: [{url, title, content}]`.
 */
export async function searchEngine(config: WebSearchConfig, query: string, count: number, signal: AbortSignal): Promise<EngineResult[]> {
  const { provider } = config;
  let response: Response;
  try {
    const [url, init] = engineRequest(config, query, count);
    response = await fetch(url, { ...init, signal });
  } catch (err) {
    if (signal.aborted) throw err;
    throw new SearchEngineError({ provider, code: causeCode(err) });
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    throw new SearchEngineError({ provider, status: response.status });
  }
  const length = Number(response.headers.get('content-length') ?? 0);
  if (length > MAX_ENGINE_BYTES) {
    await response.body?.cancel();
    throw new SearchEngineError({ provider, status: response.status, code: 'TOO_LARGE' });
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw new SearchEngineError({ provider, status: response.status, code: 'NOT_JSON' });
  }
  const results = resultsOf(provider, body);
  if (!results) throw new SearchEngineError({ provider, status: response.status, code: 'UNEXPECTED_SHAPE' });
  return results.slice(0, count);
}

function engineRequest(config: WebSearchConfig, query: string, count: number): [string, RequestInit] {
  const accept = { accept: 'application/json' };
  switch (config.provider) {
    case 'searxng': {
      const params = new URLSearchParams({ q: query, format: 'json' });
      return [`${config.baseUrl}/search?${params}`, { method: 'GET', headers: accept }];
    }
    case 'brave': {
      const params = new URLSearchParams({ q: query, count: String(count) });
      return [`${config.baseUrl}/res/v1/web/search?${params}`, { method: 'GET', headers: { ...accept, 'x-subscription-token': config.apiKey ?? '' } }];
    }
    case 'tavily':
      return [
        `${config.baseUrl}/search`,
        {
          method: 'POST',
          headers: { ...accept, 'content-type': 'application/json', authorization: `Bearer ${config.apiKey ?? ''}` },
          body: JSON.stringify({ query, max_results: count, search_depth: 'basic', include_answer: false }),
        },
      ];
  }
}

/** The results in the engine's shape, as ours; null when the body is not in that shape. */
function resultsOf(provider: WebSearchConfig['provider'], body: unknown): EngineResult[] | null {
  const list = provider === 'brave' ? field(field(body, 'web'), 'results') : field(body, 'results');
  // Brave leaves `web` out when nothing was found.
  if (list === undefined && provider === 'brave' && field(body, 'type') === 'search') return [];
  if (!Array.isArray(list)) return null;
  const results: EngineResult[] = [];
  for (const item of list as unknown[]) {
    const url = field(item, 'url');
    if (typeof url !== 'string' || !/^https?:\/\//i.test(url)) continue;
    const title = field(item, 'title');
    const snippet = field(item, provider === 'brave' ? 'description' : 'content');
    results.push({ url, title: typeof title === 'string' ? title : url, snippet: typeof snippet === 'string' ? snippet : '' });
  }
  return results;
}

function field(value: unknown, name: string): unknown {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[name] : undefined;
}

/** fetch's TypeError carries the socket's code in its cause (ECONNREFUSED and the like), or in
 * the first of its causes when every address was tried (an AggregateError). */
function causeCode(err: unknown): string {
  type Coded = { code?: unknown; errors?: Coded[] };
  const cause = (err as { cause?: Coded }).cause;
  const code = cause?.code ?? cause?.errors?.[0]?.code;
  return typeof code === 'string' ? code : 'FETCH_FAILED';
}
