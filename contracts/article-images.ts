import { z } from 'zod';
export * from './article-image-urls.ts';

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

/** An article's cover as the pages show it: its <img> attributes, made on the server (the
 * landing's first-load JavaScript has no room for making them), with the largest variant's size. */
export const ZArticleCover = z.object({
  alt: z.string(),
  src: z.string(),
  srcSet: z.string(),
  /** How wide it shows: a card's in a list, the column's on the article's page. */
  sizes: z.string(),
  width: z.number().int(),
  height: z.number().int(),
  /** A card's cover waits until it is near the screen; an article page's is its largest paint, fetched first. */
  loading: z.literal('lazy').optional(),
  fetchPriority: z.literal('high').optional(),
});
export type TArticleCover = z.infer<typeof ZArticleCover>;

export const ZArticleImageFileParams = z.object({
  id: z.uuid('Image id must be a UUID'),
  file: z.string().regex(/^\d{1,5}\.(webp|jpg)$/, 'Image file must be <width>.webp or <width>.jpg'),
});
