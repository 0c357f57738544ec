import type { TArticleImage } from '../../../../contracts/article-images.ts';
import { ApiError, apiRequest, errorMessage } from '../../../lib/api-client.ts';

/** Uploads an image for an article (its raw bytes, its type in the query): docs/decisions/0099. */
export function uploadArticleImage(file: File): Promise<TArticleImage> {
  return apiRequest<TArticleImage>('POST', `/api/articles/images?type=${encodeURIComponent(file.type)}`, file, { timeoutMs: 120_000 });
}

/** Why an upload was refused, in the server's words (its rule for the file) when it gave one. */
export function uploadRefusal(err: unknown): string {
  const body = err instanceof ApiError ? (err.body as { details?: Array<{ message?: unknown }>; message?: unknown } | null) : null;
  const rule = body?.details?.[0]?.message;
  if (typeof rule === 'string' && rule) return `The image was refused: ${rule}.`.replace(/\.\.$/, '.');
  if (err instanceof ApiError && err.status === 413) return 'The image was refused: an image may be at most 10 MB.';
  return errorMessage(err, 'The image could not be uploaded. Please try again.');
}

/** The first image among dropped or pasted files, or null. */
export function imageFileOf(files: FileList | null | undefined): File | null {
  return [...(files ?? [])].find((file) => file.type.startsWith('image/')) ?? null;
}
