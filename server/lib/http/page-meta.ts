import type { TSitePage } from '../../../contracts/site.ts';
import { escapeHtml } from './html.ts';

/** What the server writes into a page's <head> so link previews work without JavaScript. */
export type PageMeta = {
  title: string;
  description: string;
  /** Absolute URL of the page. */
  url: string;
  type: 'website' | 'article';
  publishedTime?: string;
  modifiedTime?: string;
  section?: string;
};

/** A resolved page: its status and meta, and for a page the server renders itself, what to
 * render it from. */
export type ResolvedPage = { status: number; meta: PageMeta; site?: TSitePage };

/** Resolves a path (and its query) to a page, or null when the resolver does not know it. */
export type PageResolver = (pathname: string, query: URLSearchParams) => Promise<ResolvedPage | null>;

/** The <title>, description, canonical link and Open Graph tags for a page, escaped. */
export function metaTags(meta: PageMeta, siteName: string): { title: string; head: string } {
  const tags: Array<[string, string, string]> = [
    ['name', 'description', meta.description],
    ['property', 'og:site_name', siteName],
    ['property', 'og:type', meta.type],
    ['property', 'og:title', meta.title],
    ['property', 'og:description', meta.description],
    ['property', 'og:url', meta.url],
    ['name', 'twitter:card', 'summary'],
  ];
  if (meta.publishedTime) tags.push(['property', 'article:published_time', meta.publishedTime]);
  if (meta.modifiedTime) tags.push(['property', 'article:modified_time', meta.modifiedTime]);
  if (meta.section) tags.push(['property', 'article:section', meta.section]);
  const head = [
    `<link rel="canonical" href="${escapeHtml(meta.url)}" />`,
    ...tags.map(([attr, key, value]) => `<meta ${attr}="${key}" content="${escapeHtml(value)}" />`),
  ].join('\n    ');
  return { title: escapeHtml(meta.title), head };
}
