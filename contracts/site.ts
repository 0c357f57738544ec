import type { TArticleSummary, TArticleTag, TPublicArticle } from './articles.ts';

/** Where a public page's HTML goes in client/site.html: script/prerender.ts puts `/` there at
 * build time, the server `/insights` and each article's page per request. */
export const SITE_PAGE_MARKER = '<!--site-page-->';

/** Articles a page of /insights shows, rendered by the server and by the app alike. Here, not
 * in contracts/articles.ts, because that module loads zod, which the public pages must not. */
export const INSIGHTS_PAGE_SIZE = 12;

/**
 * A public page the site's own small page renders (client/app/site-root.tsx): `/`, prerendered
 * at build time, or `/insights` and `/insights/:slug`, rendered by the server with their
 * articles. The server sends it along as JSON so the browser hydrates exactly what it rendered.
 */
export type TSitePage =
  | { kind: 'landing' }
  | { kind: 'insights'; page: number; list: { items: TArticleSummary[]; total: number } }
  | { kind: 'article'; article: TPublicArticle }
  /** /insights/tag/:slug (decision 0100): a page of the tag's published articles. */
  | { kind: 'tag'; tag: TArticleTag; page: number; list: { items: TArticleSummary[]; total: number } };

/** `/insights?page=N`: N, or 1 when absent or not a positive whole number (the server renders
 * and the browser hydrates the same page). */
export function insightsPageFrom(value: string | null): number {
  const page = Number(value);
  return value !== null && Number.isSafeInteger(page) && page >= 1 ? page : 1;
}

/**
 * Every page of the app's router (client/app/router.tsx), as its route patterns: the server
 * answers these with the app and status 200, and any other page with the app and status 404
 * (the app then shows its 404 screen). client/app/router.test.tsx keeps the two lists equal.
 */
export const APP_ROUTES = [
  '/',
  '/login',
  '/invite',
  '/insights',
  '/insights/:slug',
  '/insights/tag/:slug',
  '/preview/:token',
  '/dashboard',
  '/settings',
  '/deepseek-chat',
  '/llama-chat',
  '/create-article',
  '/chat-console',
  '/claude-chat',
  '/gemini-chat',
  '/grok-chat',
  '/agents-console',
  '/admin/articles',
  '/admin/articles/:id/edit',
  '/admin/users',
  '/admin/usage',
] as const;

/** A path's segments as React Router sees them: trailing slashes dropped, empty ones kept. */
const segmentsOf = (path: string) => path.replace(/\/+$/, '').split('/').slice(1);

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Whether the router has a page at `pathname`, matched as React Router matches: a `:name`
 * is any one non-empty segment, letters match in either case, trailing slashes do not count. */
export function isAppRoute(pathname: string): boolean {
  const segments = segmentsOf(pathname).map((s) => decodeSegment(s).toLowerCase());
  return APP_ROUTES.some((route) => {
    const pattern = segmentsOf(route);
    return pattern.length === segments.length && pattern.every((part, i) => (part.startsWith(':') ? segments[i] !== '' : part === segments[i]));
  });
}
