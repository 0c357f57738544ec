/** A tag's page and its RSS feed (decision 0100). Here, not in contracts/site.ts, whose module
 * the site's first load carries: only the lazy tag and article parts and the server need these. */
export const tagPath = (slug: string) => `/insights/tag/${encodeURIComponent(slug)}`;
export const tagFeedPath = (slug: string) => `${tagPath(slug)}/rss.xml`;
