import type { TArticle } from '../../../contracts/articles.ts';
import { INSIGHTS_PAGE_SIZE, insightsPageFrom } from '../../../contracts/site.ts';
import type { PageMeta, PageResolver } from '../../lib/http/page-meta.ts';
import type { ArticlesService } from './articles.service.ts';

const ARTICLE_PATH = /^\/insights\/([^/]+)\/?$/;

/**
 * Server-side meta for the article pages, so link previews (which run no JavaScript) show the
 * article, and the articles of an /insights page, which the server renders. An unknown or
 * unpublished slug answers 404; the app then says the article is not found.
 */
export function articlePageResolver(articles: ArticlesService, publicUrl: string, siteName: string): PageResolver {
  const insights: PageMeta = {
    title: `Insights · ${siteName}`,
    description: `Articles on automation, analytics and applied AI from ${siteName}.`,
    url: `${publicUrl}/insights`,
    type: 'website',
  };
  // One meta object per cached article version, so the rendered page can be reused.
  const metaOf = new WeakMap<TArticle, PageMeta>();
  const articleMeta = (article: TArticle): PageMeta => {
    let meta = metaOf.get(article);
    if (!meta) {
      meta = {
        title: `${article.title} · ${siteName}`,
        description: article.excerpt,
        url: `${publicUrl}/insights/${encodeURIComponent(article.slug)}`,
        type: 'article',
        publishedTime: article.createdAt,
        modifiedTime: article.updatedAt,
        section: article.category,
      };
      metaOf.set(article, meta);
    }
    return meta;
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
    return { status: 200, meta: articleMeta(article) };
  };
}

function notFound(publicUrl: string, pathname: string, siteName: string) {
  return {
    status: 404,
    meta: { title: `Article not found · ${siteName}`, description: 'There is no published article at this address.', url: `${publicUrl}${pathname}`, type: 'website' as const },
  };
}
