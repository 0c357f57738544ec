/**
 * Where an article image's variants are and how an <img> names them (docs/decisions/0099).
 * Without zod: the landing's cards import it, and its first-load JavaScript has a budget.
 */

/** The widths kept of each image (each capped at the image's own width). 720: the text column
 * at one device pixel per CSS pixel, and a phone's screen (412 CSS px at 1.75) at its own. */
export const ARTICLE_IMAGE_WIDTHS = [480, 720, 960, 1600] as const;

/** The types an upload may be, read from its bytes and matching the declared content type. */
export const ARTICLE_IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/webp'] as const;
export type TArticleImageType = (typeof ARTICLE_IMAGE_TYPES)[number];

const LARGEST_WIDTH = 1600;

/** The widths served of an image `width` pixels wide: those below it, and its own when smaller than the largest. */
export function articleImageWidths(width: number): number[] {
  const widths: number[] = ARTICLE_IMAGE_WIDTHS.filter((w) => w < width);
  if (width <= LARGEST_WIDTH) widths.push(width);
  return widths;
}

export const articleImageUrl = (id: string, width: number): string => `/media/articles/${id}/${width}.webp`;

/** What an <img> needs of an image: its largest URL for src, the srcset, and its size (no layout shift). */
export type TImageSources = { src: string; srcSet: string; width: number; height: number };

export function articleImageSources(image: { id: string; width: number; height: number }): TImageSources {
  const widths = articleImageWidths(image.width);
  const largest = widths[widths.length - 1]!;
  return {
    src: articleImageUrl(image.id, largest),
    srcSet: widths.map((w) => `${articleImageUrl(image.id, w)} ${w}w`).join(', '),
    width: largest,
    height: Math.max(1, Math.round((image.height * largest) / image.width)),
  };
}

/**
 * The URL the editor inserts into Markdown: the middle width, with the original's size in the
 * fragment (never sent to the server) so the renderer can give width, height and srcset.
 */
export function articleImageMarkdownUrl(image: { id: string; width: number; height: number }): string {
  const widths = articleImageWidths(image.width);
  return `${articleImageUrl(image.id, widths[Math.min(1, widths.length - 1)]!)}#${image.width}x${image.height}`;
}

/** An article's text column: at most 720 px wide (max-w-3xl less its padding); below that, the
 * screen less the page's 1rem padding each side, so a phone 412 px wide at 1.75 device pixels
 * per CSS pixel fetches the 720 variant, not the 960 that 100vw would ask for. */
export const CONTENT_IMAGE_SIZES = '(min-width: 768px) 720px, calc(100vw - 2rem)';
/** A card is a third of the 80rem page (lg), half of it (sm), or the screen's width. */
export const CARD_IMAGE_SIZES = '(min-width: 1024px) 400px, (min-width: 640px) 50vw, 100vw';

const MEDIA_URL = /^\/media\/articles\/([0-9a-f-]{36})\/(\d{1,5})\.webp(?:#(\d{1,5})x(\d{1,5}))?$/;

/** Our media URL's image id and, when the fragment gives it, the original's size; null for any other URL. */
export function parseArticleImageUrl(url: string): { id: string; width: number | null; height: number | null } | null {
  const match = MEDIA_URL.exec(url);
  if (!match) return null;
  return { id: match[1]!, width: match[3] ? Number(match[3]) : null, height: match[4] ? Number(match[4]) : null };
}

/** The image ids a Markdown text names by our media URLs (what the cleanup keeps). */
export function articleImageIdsIn(markdown: string): string[] {
  return [...new Set([...markdown.matchAll(/\/media\/articles\/([0-9a-f-]{36})\//g)].map((m) => m[1]!))];
}

