import type { FastifyBaseLogger } from 'fastify';
import { WEB_SEARCH_LIMITS } from '../../../contracts/web-search.ts';
import type { OutboundConfig, WebSearchConfig } from '../../config.ts';
import { fetchPage, PageFetchError } from '../../integrations/web-search/fetch-page.ts';
import { SearchEngineError, searchEngine, type EngineResult } from '../../integrations/web-search/search-engines.ts';
import type { OutboundLookup } from '../../integrations/outbound/check-outbound-url.ts';
import { createRateWindow } from '../../lib/rate-window.ts';
import type { WebSearchService, WebSource } from './types.ts';

export type WebSearchLimits = { [K in keyof typeof WEB_SEARCH_LIMITS]: number };

export type WebSearchDeps = {
  /** The engine; null: web search is off (`enabled: false`). */
  engine: WebSearchConfig | null;
  outbound: OutboundConfig;
  /** The contract's limits; tests shorten the times. */
  limits?: Partial<WebSearchLimits>;
  /** Tests resolve names with their own table (the outbound door's lookup). */
  lookup?: OutboundLookup;
  now?: () => number;
};

/**
 * Web search in chat (issue 32, docs/decisions/0081): the question goes to the operator's engine,
 * the best pages are fetched through the outbound door in parallel and reduced to their readable
 * text. Bounded per user (WEB_SEARCH_LIMITS.perMinute) so one person cannot turn the server into
 * their crawler; over the bound, the search is not made and the answer goes on without the web.
 */
export function createWebSearchService({ engine, outbound, limits: override = {}, lookup, now = Date.now }: WebSearchDeps): WebSearchService {
  const limits: WebSearchLimits = { ...WEB_SEARCH_LIMITS, ...override };
  const perUser = createRateWindow(limits.perMinute);

  async function search(
    user: { id: string },
    question: string,
    { signal, log }: { signal: AbortSignal; log: FastifyBaseLogger },
  ): Promise<{ sources: WebSource[]; failed: boolean }> {
    if (!engine) return { sources: [], failed: true };
    const rate = perUser.take(user.id, now());
    if (!rate.ok) {
      log.warn({ webSearch: { provider: engine.provider, retryAfterSeconds: rate.retryAfterSeconds } }, 'web search refused: the user is over the per-minute limit');
      return { sources: [], failed: true };
    }
    let results: EngineResult[];
    try {
      results = await searchEngine(engine, question.slice(0, 400), limits.results, AbortSignal.any([signal, AbortSignal.timeout(limits.pageTimeoutMs)]));
    } catch (err) {
      if (signal.aborted) return { sources: [], failed: true };
      const detail = err instanceof SearchEngineError ? err.detail : { provider: engine.provider, code: (err as Error).name };
      log.warn({ webSearch: detail }, 'web search failed: the engine did not answer');
      return { sources: [], failed: true };
    }
    const chosen = distinctByUrl(results).slice(0, limits.pagesFetched);
    const pages = await Promise.all(chosen.map((result) => source(result, signal, log)));
    return { sources: pages.filter((page): page is WebSource => page !== null), failed: false };
  }

  async function source(result: EngineResult, signal: AbortSignal, log: FastifyBaseLogger): Promise<WebSource | null> {
    try {
      const page = await fetchPage(result.url, {
        allowLoopback: outbound.allowLoopback,
        ...(outbound.ca ? { ca: outbound.ca } : {}),
        ...(lookup ? { lookup } : {}),
        maxBytes: limits.pageMaxBytes,
        timeoutMs: limits.pageTimeoutMs,
        signal,
      });
      // Loaded when first needed, as the documents' HTML reader is: the server starts without linkedom.
      const { readableText } = await import('../../integrations/web-search/readable-text.ts');
      const { title, text } = readableText(page, limits.pageTextChars);
      if (!text) return null;
      return { url: page.url, title: result.title || title || page.url, text, snippet: plainSnippet(result.snippet) };
    } catch (err) {
      if (signal.aborted) return null;
      if (err instanceof PageFetchError) {
        log.info({ webPage: { reason: err.reason, ...err.detail } }, 'web page left out');
      } else {
        log.warn({ err, webPage: { target: originOf(result.url) } }, 'web page left out: it could not be read');
      }
      return null;
    }
  }

  return { enabled: engine !== null, search };
}

function distinctByUrl(results: EngineResult[]): EngineResult[] {
  const seen = new Set<string>();
  return results.filter((r) => {
    const key = r.url.replace(/#.*$/, '');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Engines mark the words found (Brave with <strong>) and escape entities; the snippet is plain text. */
function plainSnippet(snippet: string): string {
  return snippet
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|#39);/g, (_m, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[name] ?? '')
    .trim();
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}
