/** XML for the sitemap and the RSS feed: pure functions of the published articles. */
import { tagFeedPath, tagPath } from '../../../contracts/tag-paths.ts';

/** `publishedAt`: when it went public (docs/decisions/0098), the items' date. */
export type FeedArticle = { slug: string; title: string; excerpt: string; category: string; publishedAt: string; updatedAt: string; canonicalUrl?: string | null };

function escapeXml(text: string): string {
  // Characters XML 1.0 forbids (most C0 controls) would make the whole feed invalid: drop them.
  return text
    // eslint-disable-next-line no-control-regex -- matching control characters is the point
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
    .replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);
}

const articleUrl = (publicUrl: string, slug: string) => `${publicUrl}/insights/${encodeURIComponent(slug)}`;

/** When the newest change was made: the list is ordered by creation, and an older article may
 * have been edited since. ISO 8601 strings in UTC compare as their times do. */
function lastUpdated(articles: FeedArticle[]): string | undefined {
  return articles.reduce<string | undefined>((newest, a) => (newest === undefined || a.updatedAt > newest ? a.updatedAt : newest), undefined);
}

export function sitemapXml(publicUrl: string, articles: FeedArticle[], tags: Array<{ slug: string; updatedAt: string }> = []): string {
  const newest = lastUpdated(articles);
  const urls = [
    { loc: `${publicUrl}/`, lastmod: newest },
    { loc: `${publicUrl}/insights`, lastmod: newest },
    // A sitemap lists canonical pages only: an article whose canonical URL is another page
    // (published first elsewhere) is left to that page's site.
    ...articles
      .filter((a) => !a.canonicalUrl || a.canonicalUrl === articleUrl(publicUrl, a.slug))
      .map((a) => ({ loc: articleUrl(publicUrl, a.slug), lastmod: a.updatedAt })),
    // Each tag's page (decision 0100), changed when its newest article was.
    ...tags.map((tag) => ({ loc: `${publicUrl}${tagPath(tag.slug)}`, lastmod: tag.updatedAt })),
  ];
  const body = urls
    .map(({ loc, lastmod }) => `  <url><loc>${escapeXml(loc)}</loc>${lastmod ? `<lastmod>${lastmod}</lastmod>` : ''}</url>`)
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${body}\n</urlset>\n`;
}

/** A feed's channel: what it is, the page it belongs to and its own address. */
export type FeedChannel = { title: string; link: string; self: string; description: string };

const siteChannel = (publicUrl: string, siteName: string): FeedChannel => ({
  title: `${siteName} Insights`,
  link: `${publicUrl}/insights`,
  self: `${publicUrl}/rss.xml`,
  description: `Articles on automation, analytics and applied AI from ${siteName}.`,
});

/** A tag's feed (decision 0100): its articles, belonging to its page. */
export const tagChannel = (publicUrl: string, siteName: string, tag: { name: string; slug: string }): FeedChannel => ({
  title: `${siteName} Insights: ${tag.name}`,
  link: `${publicUrl}${tagPath(tag.slug)}`,
  self: `${publicUrl}${tagFeedPath(tag.slug)}`,
  description: `Articles tagged ${tag.name} from ${siteName}.`,
});

/**
 * RSS 2.0: each item's pubDate (RFC 822) is when it was published; RSS has no element for an
 * edit, so each item also carries Atom's <atom:updated> (RFC 3339, in the Atom namespace the
 * feed already declares), and the channel's <lastBuildDate> is the newest change.
 */
export function rssXml(publicUrl: string, siteName: string, articles: FeedArticle[], channel: FeedChannel = siteChannel(publicUrl, siteName)): string {
  const newest = lastUpdated(articles);
  const items = articles
    .map(
      (a) => `    <item>
      <title>${escapeXml(a.title)}</title>
      <link>${escapeXml(articleUrl(publicUrl, a.slug))}</link>
      <guid isPermaLink="true">${escapeXml(articleUrl(publicUrl, a.slug))}</guid>
      <pubDate>${new Date(a.publishedAt).toUTCString()}</pubDate>
      <atom:updated>${escapeXml(a.updatedAt)}</atom:updated>
      <category>${escapeXml(a.category)}</category>
      <description>${escapeXml(a.excerpt)}</description>
    </item>`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">
  <channel>
    <title>${escapeXml(channel.title)}</title>
    <link>${escapeXml(channel.link)}</link>
    <atom:link href="${escapeXml(channel.self)}" rel="self" type="application/rss+xml" />
    <description>${escapeXml(channel.description)}</description>
    <language>en</language>${newest ? `\n    <lastBuildDate>${new Date(newest).toUTCString()}</lastBuildDate>` : ''}
${items}
  </channel>
</rss>
`;
}

export function robotsTxt(publicUrl: string): string {
  return [
    'User-agent: *',
    'Allow: /',
    'Disallow: /api/',
    'Disallow: /admin/',
    'Disallow: /dashboard',
    'Disallow: /login',
    '',
    `Sitemap: ${publicUrl}/sitemap.xml`,
    '',
  ].join('\n');
}
