/**
 * Web search in chat (issue 32, docs/decisions/0081): optional, configured by the operator
 * (WEB_SEARCH_PROVIDER = searxng | brave | tavily, with SEARXNG_URL, BRAVE_SEARCH_API_KEY or
 * TAVILY_API_KEY). On, a chat's "Search the web" lets the assistant's answer use the results:
 * the question is searched, the top pages fetched through the one outbound door (public addresses
 * only, no redirect to a private one, bounded size and time), reduced to their readable text, and
 * cited like documents with their URL and title.
 */
export const WEB_SEARCH_PROVIDERS = ['searxng', 'brave', 'tavily'] as const;
export type TWebSearchProvider = (typeof WEB_SEARCH_PROVIDERS)[number];
export const WEB_SEARCH_LIMITS = {
  /** Results asked of the engine, and pages fetched of them. */
  results: 8,
  pagesFetched: 4,
  /** One page's bytes and time. */
  pageMaxBytes: 2 * 1024 * 1024,
  pageTimeoutMs: 8_000,
  /** Readable characters kept per page. */
  pageTextChars: 20_000,
  /** Searches per user per minute. */
  perMinute: 10,
} as const;
/** GET /api/chat/providers says whether web search is on (`webSearch: true`). */
export const WEB_SEARCH_FAILED_NOTE = 'The web search failed, so this answer does not use the web.';
