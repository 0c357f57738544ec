import type { TSitePage } from '../../../contracts/site.ts';
import { escapeHtml, jsonForScript } from './html.ts';

/** A page's link-preview image, with what Open Graph says about it. */
export type PageImage = { url: string; width: number; height: number; type: string; alt: string };

/** What the server writes into a page's <head> so link previews work without JavaScript. */
export type PageMeta = {
  title: string;
  description: string;
  /** Absolute URL of the page: its canonical URL (an article may name another). */
  url: string;
  type: 'website' | 'article';
  publishedTime?: string;
  modifiedTime?: string;
  section?: string;
  /** article:tag, one tag each. */
  tags?: string[];
  image?: PageImage;
  /** Structured data (schema.org), written as JSON-LD. */
  jsonLd?: object;
  /** The page's own RSS feed (a tag's page, decision 0100): a <link rel="alternate">. */
  feed?: { title: string; url: string };
};

/** A resolved page: its status and meta, and for a page the server renders itself, what to
 * render it from. */
export type ResolvedPage = { status: number; meta: PageMeta; site?: TSitePage };

/** Resolves a path (and its query) to a page, or null when the resolver does not know it. */
export type PageResolver = (pathname: string, query: URLSearchParams) => Promise<ResolvedPage | null>;

/** The <title>, description, canonical link, Open Graph and Twitter tags and JSON-LD for a
 * page, escaped: attribute values as HTML, the JSON-LD with `<` (so `</script>`), `>` and `&`
 * as JSON escapes, which JSON parsers read back as the same characters. */
export function metaTags(meta: PageMeta, siteName: string): { title: string; head: string } {
  const tags: Array<[string, string, string]> = [
    ['name', 'description', meta.description],
    ['property', 'og:site_name', siteName],
    ['property', 'og:type', meta.type],
    ['property', 'og:title', meta.title],
    ['property', 'og:description', meta.description],
    ['property', 'og:url', meta.url],
  ];
  if (meta.image) {
    tags.push(
      ['property', 'og:image', meta.image.url],
      ['property', 'og:image:width', String(meta.image.width)],
      ['property', 'og:image:height', String(meta.image.height)],
      ['property', 'og:image:type', meta.image.type],
      ['property', 'og:image:alt', meta.image.alt],
      ['name', 'twitter:card', 'summary_large_image'],
      ['name', 'twitter:image:alt', meta.image.alt],
    );
  } else {
    tags.push(['name', 'twitter:card', 'summary']);
  }
  if (meta.publishedTime) tags.push(['property', 'article:published_time', meta.publishedTime]);
  if (meta.modifiedTime) tags.push(['property', 'article:modified_time', meta.modifiedTime]);
  if (meta.section) tags.push(['property', 'article:section', meta.section]);
  for (const tag of meta.tags ?? []) tags.push(['property', 'article:tag', tag]);
  const head = [
    `<link rel="canonical" href="${escapeHtml(meta.url)}" />`,
    ...(meta.feed ? [`<link rel="alternate" type="application/rss+xml" title="${escapeHtml(meta.feed.title)}" href="${escapeHtml(meta.feed.url)}" />`] : []),
    ...tags.map(([attr, key, value]) => `<meta ${attr}="${key}" content="${escapeHtml(value)}" />`),
    ...(meta.jsonLd ? [`<script type="application/ld+json">${jsonForScript(meta.jsonLd)}</script>`] : []),
  ].join('\n    ');
  return { title: escapeHtml(meta.title), head };
}
