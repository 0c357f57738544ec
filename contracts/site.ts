import type { TArticleSummary } from './articles.ts';

/** Where a public page's HTML goes in client/site.html: script/prerender.ts puts `/` there at
 * build time, the server `/insights` per request. */
export const SITE_PAGE_MARKER = '<!--site-page-->';

/** Articles a page of /insights shows, rendered by the server and by the app alike. Here, not
 * in contracts/articles.ts, because that module loads zod, which the public pages must not. */
export const INSIGHTS_PAGE_SIZE = 12;

/**
 * A public page the site's own small page renders (client/app/site-root.tsx): `/`, prerendered
 * at build time, or `/insights`, rendered by the server with its articles. The server sends it
 * along as JSON so the browser hydrates exactly what it rendered.
 */
export type TSitePage =
  | { kind: 'landing' }
  | { kind: 'insights'; page: number; list: { items: TArticleSummary[]; total: number } };

/** `/insights?page=N`: N, or 1 when absent or not a positive whole number (the server renders
 * and the browser hydrates the same page). */
export function insightsPageFrom(value: string | null): number {
  const page = Number(value);
  return value !== null && Number.isSafeInteger(page) && page >= 1 ? page : 1;
}
