import type { TArticle } from '../../../contracts/articles.ts';
import { INSIGHTS_PAGE_SIZE, insightsPageFrom, type TSitePage } from '../../../contracts/site.ts';
import type { PageMeta, PageResolver } from '../../lib/http/page-meta.ts';
import { toPublicArticle, type ArticlesService } from './articles.service.ts';

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
  const pageOf = new WeakMap<TArticle, { meta: PageMeta; site: TSitePage }>();
  const articlePage = (article: TArticle) => {
    let page = pageOf.get(article);
    if (!page) {
      const meta: PageMeta = {
        title: `${article.title} · ${siteName}`,
        description: article.excerpt,
        url: `${publicUrl}/insights/${encodeURIComponent(article.slug)}`,
        type: 'article',
        publishedTime: article.publishedAt,
        modifiedTime: article.updatedAt,
        section: article.category,
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
