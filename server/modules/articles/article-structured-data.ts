import type { PageImage } from '../../lib/http/page-meta.ts';
import type { PublishedArticle } from './articles.service.ts';

/** Google's article rich results cut headlines longer than this. */
const HEADLINE_MAX = 110;

/**
 * An article's schema.org `Article` (JSON-LD) as Google's article structured data asks for it:
 * headline, description, image, ISO 8601 dates, the author (the person who wrote it, or the
 * site when their account is gone), the publisher and the page it is the main entity of, every
 * URL absolute.
 */
export function articleJsonLd(
  article: PublishedArticle,
  { canonicalUrl, description, image, publicUrl, siteName }: { canonicalUrl: string; description: string; image: PageImage; publicUrl: string; siteName: string },
): object {
  const site = { '@type': 'Organization', name: siteName, url: `${publicUrl}/` };
  const headline = article.title.length > HEADLINE_MAX ? `${article.title.slice(0, HEADLINE_MAX - 1).trimEnd()}…` : article.title;
  return {
    '@context': 'https://schema.org',
    '@type': 'Article',
    headline,
    description,
    image: [image.url],
    datePublished: article.createdAt,
    dateModified: article.updatedAt,
    articleSection: article.category,
    // Every tag (decision 0100), schema.org's comma-separated text form.
    ...(article.tags.length > 0 && { keywords: article.tags.map((tag) => tag.name).join(', ') }),
    author: article.authorName ? { '@type': 'Person', name: article.authorName } : site,
    publisher: site,
    mainEntityOfPage: { '@type': 'WebPage', '@id': canonicalUrl },
    url: canonicalUrl,
  };
}
