import { z } from 'zod';

/**
 * Article images (issue 34 item 3, docs/decisions/0099): a cover and images in the content,
 * uploaded once, stored re-encoded as WebP at a few widths and served from
 * /media/articles/<id>/<width>.webp with a long cache.
 */
export const ARTICLE_IMAGE_LIMITS = {
  /** The largest upload (413 beyond). */
  maxBytes: 10 * 1024 * 1024,
  /** The most pixels a header may claim: refused before anything is decoded. */
  maxPixels: 40_000_000,
  /** The longest side a header may claim. */
  maxSide: 16_383,
  /** The cover's alt text. */
  coverAlt: { max: 200 },
} as const;

/** The widths kept of each image (each capped at the image's own width). */
export const ARTICLE_IMAGE_WIDTHS = [480, 960, 1600] as const;

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

/** POST /api/articles/images answers the stored image. */
export const ZArticleImage = z.object({
  id: z.string(),
  width: z.number().int(),
  height: z.number().int(),
  /** The served widths' URLs, smallest first. */
  urls: z.array(z.object({ width: z.number().int(), url: z.string() })),
  /** What to put in Markdown. */
  markdownUrl: z.string(),
});
export type TArticleImage = z.infer<typeof ZArticleImage>;

/** An article's cover as the pages show it. */
export const ZArticleCover = z.object({ id: z.string(), alt: z.string(), width: z.number().int(), height: z.number().int() });
export type TArticleCover = z.infer<typeof ZArticleCover>;

export const ZArticleImageFileParams = z.object({
  id: z.uuid('Image id must be a UUID'),
  file: z.string().regex(/^\d{1,5}\.webp$/, 'Image file must be <width>.webp'),
});
