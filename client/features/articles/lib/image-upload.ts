import { ApiError, errorMessage } from '../../../lib/api-client.ts';

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
