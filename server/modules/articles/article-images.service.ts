import { createHash } from 'node:crypto';
import type { FastifyBaseLogger as Logger } from 'fastify';
import { ARTICLE_IMAGE_LIMITS, articleImageMarkdownUrl, articleImageUrl, articleImageWidths, type TArticleImage } from '../../../contracts/article-images.ts';
import type { Db } from '../../db/client.ts';
import { AppError } from '../../lib/errors.ts';
import { processArticleImage, type ProcessedImage } from './article-image-processing.ts';
import { deleteUnusedImages, findImage, findImageBySha256, findVariant, insertImage, type ArticleImageRow } from './article-images.repo.ts';

export type ArticleImagesDeps = {
  db: Db;
  logger: Pick<Logger, 'info' | 'warn'>;
  /** An image no article uses is kept this long, so one uploaded into an unsaved draft survives: a day. */
  graceMs?: number;
  /** Uploads waiting beyond the one being processed; more are turned away (503): 4. */
  maxQueued?: number;
  /** How images are checked and resized (tests may give a slow one). */
  process?: typeof processArticleImage;
  now?: () => Date;
};

const megabytes = (bytes: number) => `${bytes / (1024 * 1024)} MB`;
const invalid = (path: string, message: string) => new AppError('BAD_REQUEST', 'Invalid request', [{ path, message }]);

export function toApiImage(row: Pick<ArticleImageRow, 'id' | 'width' | 'height'>): TArticleImage {
  return {
    id: row.id,
    width: row.width,
    height: row.height,
    urls: articleImageWidths(row.width).map((width) => ({ width, url: articleImageUrl(row.id, width) })),
    markdownUrl: articleImageMarkdownUrl(row),
  };
}

/**
 * Article images (issue 34 item 3, docs/decisions/0099): uploads checked by their bytes and
 * re-encoded at a few widths, one at a time per process (decoding and resizing a photo is
 * hundreds of milliseconds and width x height x 4 bytes: a burst must not take every core and
 * the memory), served from the database, and deleted when no article has used them for a day.
 */
export function createArticleImagesService({ db, logger, graceMs = 24 * 3_600_000, maxQueued = 4, process = processArticleImage, now = () => new Date() }: ArticleImagesDeps) {
  let line: Promise<unknown> = Promise.resolve();
  let waiting = 0;

  /** Runs `work` after the ones before it; refuses at once when too many wait. */
  function inTurn<T>(work: () => Promise<T>): Promise<T> {
    if (waiting > maxQueued) {
      return Promise.reject(new AppError('UNAVAILABLE', 'Many images are being processed right now. Please try again in a few seconds.', undefined, { retryAfterSeconds: 5 }));
    }
    waiting++;
    const turn = line.then(work, work);
    line = turn.catch(() => {}).finally(() => waiting--);
    return turn;
  }

  async function upload(userId: string, declaredType: string, bytes: Buffer): Promise<TArticleImage> {
    if (bytes.length === 0) throw invalid('data', 'Send the image file as the request body');
    if (bytes.length > ARTICLE_IMAGE_LIMITS.maxBytes) throw new AppError('PAYLOAD_TOO_LARGE', `An image may be at most ${megabytes(ARTICLE_IMAGE_LIMITS.maxBytes)}`);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const known = await findImageBySha256(db, sha256);
    if (known) return toApiImage(known);
    const outcome = await inTurn(() => process(declaredType, bytes));
    if (!outcome.ok) throw invalid(outcome.refusal.path, outcome.refusal.message);
    const image: ProcessedImage = outcome.image;
    const row = await insertImage(
      db,
      { sha256, width: image.width, height: image.height, sourceType: image.type, uploadedBy: userId },
      image.variants.map((variant) => ({ width: variant.width, height: variant.height, contentType: variant.contentType, bytes: Buffer.from(variant.bytes) })),
    );
    return toApiImage(row);
  }

  /** A variant's bytes and type; 404 for an unknown image, width or type. */
  async function variant(id: string, width: number, contentType: 'image/webp' | 'image/jpeg'): Promise<{ contentType: string; bytes: Buffer }> {
    const found = await findVariant(db, id, width, contentType);
    if (!found) throw new AppError('NOT_FOUND', 'Image not found');
    return found;
  }

  /** The image's size, or null when there is none with this id (a cover must exist). */
  async function find(id: string): Promise<{ id: string; width: number; height: number } | null> {
    const row = await findImage(db, id);
    return row ? { id: row.id, width: row.width, height: row.height } : null;
  }

  /** Deletes the images no article has used for the grace period, and logs how many. */
  async function purgeUnused(): Promise<number> {
    const count = await deleteUnusedImages(db, new Date(now().getTime() - graceMs));
    if (count > 0) logger.info({ count }, 'deleted article images no article uses');
    return count;
  }

  return { upload, variant, find, purgeUnused };
}

export type ArticleImagesService = ReturnType<typeof createArticleImagesService>;
