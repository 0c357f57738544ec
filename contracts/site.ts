import type { TArticleSummary } from './articles.ts';

/** Where a public page's HTML goes in client/site.html: script/prerender.ts puts `/` there at
 * build time, the server `/insights` per request. */
export const SITE_PAGE_MARKER = '<!--site-page-->';

/** Repeated here as a plain number (contracts/articles.ts has ARTICLES_PAGE_SIZE next to zod,
 * which the public pages must not load; a test keeps them equal). */
export const INSIGHTS_PAGE_SIZE = 12;

/**
 * A public page the site's own small page renders (client/app/site-root.tsx): `/`, prerendered
 * at build time, or `/insights`, rendered by the server with its articles. The server sends it
 * along as JSON so the browser hydrates exactly what it rendered.
 */
export type TSitePage =
  | { kind: 'landing' }
  | { kind: 'insights'; page: number; list: { items: TArticleSummary[]; total: number } };
