import { INSIGHTS_PAGE_SIZE, insightsPageFrom, type TSitePage } from '../../../contracts/site.ts';
import type { PageMeta, PageResolver } from '../../lib/http/page-meta.ts';
import { articleJsonLd } from './article-structured-data.ts';
import { toPublicArticle, type ArticlesService, type PublishedArticle } from './articles.service.ts';
import { socialImageOf } from './social-card.ts';

const ARTICLE_PATH = /^\/insights\/([^/]+)\/?$/;

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
        tags: [article.category],
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

function notFound(publicUrl: string, pathname: string, siteName: string) {
  return {
    status: 404,
    meta: { title: `Article not found · ${siteName}`, description: 'There is no published article at this address.', url: `${publicUrl}${pathname}`, type: 'website' as const },
  };
}
