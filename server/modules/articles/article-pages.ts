import { INSIGHTS_PAGE_SIZE, insightsPageFrom, type TSitePage } from '../../../contracts/site.ts';
import { tagFeedPath, tagPath } from '../../../contracts/tag-paths.ts';
import type { PageMeta, PageResolver } from '../../lib/http/page-meta.ts';
import { articleJsonLd } from './article-structured-data.ts';
import { toPublicArticle, toSummary, type ArticlesService, type PublishedArticle } from './articles.service.ts';
import { socialImageOf } from './social-card.ts';

const ARTICLE_PATH = /^\/insights\/([^/]+)\/?$/;
const TAG_PATH = /^\/insights\/tag\/([^/]+)\/?$/;

/**
 * The public article pages the server renders: an /insights page with its articles, and an
 * article's page with the article (its public fields only), each with its meta tags, so readers
 * without JavaScript and link previews see the page. An unknown or unpublished slug answers 404;
 * the app then says the article is not found.
 */
export function articlePageResolver(articles: ArticlesService, publicUrl: string, siteName: string): PageResolver {
  const insights: PageMeta = {
    title: `Insights · ${siteName}`,
    description: `Articles on automation, analytics and applied AI from ${siteName}.`,
    url: `${publicUrl}/insights`,
    type: 'website',
  };
  // One page per cached article version.
  const pageOf = new WeakMap<PublishedArticle, { meta: PageMeta; site: TSitePage }>();
  const articlePage = (article: PublishedArticle) => {
    let page = pageOf.get(article);
    if (!page) {
      // The article's own search and social fields, each falling back (decision 0096).
      const url = article.canonicalUrl ?? `${publicUrl}/insights/${encodeURIComponent(article.slug)}`;
      const description = article.metaDescription ?? article.excerpt;
      const image = socialImageOf(article, publicUrl, siteName);
      const meta: PageMeta = {
        title: article.metaTitle ?? `${article.title} · ${siteName}`,
        description,
        url,
        type: 'article',
        publishedTime: article.publishedAt,
        modifiedTime: article.updatedAt,
        section: article.category,
        tags: article.tags.length > 0 ? article.tags.map((tag) => tag.name) : [article.category],
        image,
        jsonLd: articleJsonLd(article, { canonicalUrl: url, description, image, publicUrl, siteName }),
      };
      page = { meta, site: { kind: 'article', article: toPublicArticle(article) } };
      pageOf.set(article, page);
    }
    return page;
  };

  return async (pathname, query) => {
    if (pathname === '/insights' || pathname === '/insights/') {
      const page = insightsPageFrom(query.get('page'));
      const list = await articles.listPublished(INSIGHTS_PAGE_SIZE, (page - 1) * INSIGHTS_PAGE_SIZE);
      return { status: 200, meta: insights, site: { kind: 'insights', page, list } };
    }
    const tagMatch = TAG_PATH.exec(pathname);
    if (tagMatch) return tagPage(articles, tagMatch[1]!, query, publicUrl, siteName, pathname);
    const match = ARTICLE_PATH.exec(pathname);
    if (!match) return null;
    let slug: string;
    try {
      slug = decodeURIComponent(match[1]!);
    } catch {
      return notFound(publicUrl, pathname, siteName);
    }
    const article = await articles.publishedBySlug(slug);
    if (!article) return notFound(publicUrl, pathname, siteName);
    return { status: 200, ...articlePage(article) };
  };
}

/**
 * /insights/tag/:slug (decision 0100): a page of the tag's published articles, newest first,
 * with its canonical URL, a description and its RSS feed linked; 404 for an unknown tag or one
 * no published article has.
 */
async function tagPage(articles: ArticlesService, rawSlug: string, query: URLSearchParams, publicUrl: string, siteName: string, pathname: string) {
  let slug: string;
  try {
    slug = decodeURIComponent(rawSlug);
  } catch {
    return notFound(publicUrl, pathname, siteName, 'Tag not found');
  }
  const tagged = await articles.publishedByTag(slug);
  if (!tagged) return notFound(publicUrl, pathname, siteName, 'Tag not found');
  const { tag } = tagged;
  const page = insightsPageFrom(query.get('page'));
  const offset = (page - 1) * INSIGHTS_PAGE_SIZE;
  const items = tagged.articles.slice(offset, offset + INSIGHTS_PAGE_SIZE).map(toSummary);
  const meta: PageMeta = {
    title: `Articles tagged ${tag.name} · ${siteName}`,
    description: `Articles on ${tag.name} from ${siteName}.`,
    url: `${publicUrl}${tagPath(tag.slug)}`,
    type: 'website',
    feed: { title: `${siteName} Insights: ${tag.name}`, url: `${publicUrl}${tagFeedPath(tag.slug)}` },
  };
  const site: TSitePage = { kind: 'tag', tag, page, list: { items, total: tagged.articles.length } };
  return { status: 200, meta, site };
}

function notFound(publicUrl: string, pathname: string, siteName: string, what = 'Article not found') {
  return {
    status: 404,
    meta: { title: `${what} · ${siteName}`, description: 'There is no published article at this address.', url: `${publicUrl}${pathname}`, type: 'website' as const },
  };
}
