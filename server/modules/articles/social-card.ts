import { createHash } from 'node:crypto';
import type { TArticle } from '../../../contracts/articles.ts';
import type { PageImage } from '../../lib/http/page-meta.ts';

/** Open Graph's recommended size for a large link preview (1.91:1). */
export const CARD_WIDTH = 1200;
export const CARD_HEIGHT = 630;
/** Bumped when the drawing changes, so every card's URL (and so every cache of it) changes too. */
const CARD_DESIGN = 1;

/** What a generated card is drawn from, and nothing else: its hash is in the card's URL. */
export type CardContent = { title: string; category: string; siteName: string };


/** The hash in a generated card's URL: changes when anything the card is drawn from changes. */
export function cardHash({ title, category, siteName }: CardContent): string {
  return createHash('sha256').update(JSON.stringify([CARD_DESIGN, title, category, siteName])).digest('hex').slice(0, 16);
}

export function cardContentOf(article: Pick<TArticle, 'title' | 'category'>, siteName: string): CardContent {
  return { title: article.title, category: article.category, siteName };
}

export const cardPath = (slug: string, hash: string) => `/og/${encodeURIComponent(slug)}/${hash}.png`;

/**
 * The one place that chooses an article's social image: its cover when it has one (the JPEG of
 * its largest width, docs/decisions/0099: not every site reads WebP), else the card generated
 * from its title, category and the site's name.
 */
export function socialImageOf(article: Pick<TArticle, 'slug' | 'title' | 'category' | 'cover'>, publicUrl: string, siteName: string): PageImage {
  if (article.cover) {
    const { src, width, height, alt } = article.cover;
    return { url: `${publicUrl}${src.replace(/\.webp$/, '.jpg')}`, width, height, type: 'image/jpeg', alt };
  }
  const content = cardContentOf(article, siteName);
  return {
    url: `${publicUrl}${cardPath(article.slug, cardHash(content))}`,
    width: CARD_WIDTH,
    height: CARD_HEIGHT,
    type: 'image/png',
    alt: `${article.title} (${article.category}, ${siteName})`,
  };
}
