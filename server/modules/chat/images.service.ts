import {
  CHAT_IMAGE_LIMITS,
  CHAT_IMAGE_TYPE_NAMES,
  chatImageUrl,
  type TChatImage,
  type TChatImageType,
} from '../../../contracts/chat.ts';
import type { Db } from '../../db/client.ts';
import { AppError, type ErrorDetail } from '../../lib/errors.ts';
import type { DecodeOutcome } from './image-decode.ts';
import type { ImageDecoder } from './image-decoder.ts';
import { sniffImage, type SniffedImage } from './image-sniff.ts';
import {
  attachImages,
  deleteUnsentImage,
  findImage,
  imagesWithData,
  insertImage,
  lockUserImages,
  purgeUnsentImages,
  storedBytes,
  type ImageMeta,
  type ImageRow,
} from './images.repo.ts';

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

export type ImagesServiceDeps = { db: Db; storageBytes: number; decoder: Pick<ImageDecoder, 'decode'>; now?: () => Date };

/** An image a chat call shows the model: its type and size as read from its bytes. */
export type RequestImage = { id: string; mediaType: TChatImageType; width: number; height: number; data: Uint8Array; conversationId: string | null };

const NOT_FOUND = 'Image not found';
const NOT_AN_IMAGE = 'must be a PNG, JPEG, WebP or GIF image (SVG and other files are refused)';
const DAMAGED = 'The image data is incomplete or damaged';
const LARGEST = `the largest accepted is ${CHAT_IMAGE_LIMITS.maxSide} pixels on a side and ${CHAT_IMAGE_LIMITS.maxPixels / 1_000_000} megapixels in all`;
/** What room an image generation asks for before the provider is called (its images are ~1-2 MB). */
export const GENERATED_IMAGE_ROOM_BYTES = 2 * 1024 * 1024;

const megabytes = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MB`;
const invalid = (details: ErrorDetail[]) => new AppError('BAD_REQUEST', 'Invalid request', details);

/**
 * Why an image whose header was read cannot be kept, or null (docs/decisions/0064). The size its
 * header claims is checked first, so a file claiming a huge picture is refused before anything
 * is decoded; then every pixel is decoded off the event loop, which proves the data is all there.
 */
async function problemOf(decoder: Pick<ImageDecoder, 'decode'>, sniffed: SniffedImage, bytes: Uint8Array): Promise<string | null> {
  const { width, height } = sniffed;
  if (width > CHAT_IMAGE_LIMITS.maxSide || height > CHAT_IMAGE_LIMITS.maxSide || width * height > CHAT_IMAGE_LIMITS.maxPixels) {
    return `The image is ${width} x ${height} pixels; ${LARGEST}`;
  }
  return refusal(await decoder.decode(sniffed.type, bytes));
}

function refusal(outcome: DecodeOutcome): string | null {
  if (outcome.ok) return null;
  if (outcome.problem === 'animated') return `The image is animated (${outcome.frames} frames); only still images are accepted`;
  return DAMAGED;
}

function imageOf(row: ImageMeta): TChatImage {
  return { id: row.id, type: row.mediaType, bytes: row.bytes, width: row.width, height: row.height, url: chatImageUrl(row.id) };
}

/**
 * Each user's chat images (docs/decisions/0055): uploads to ask about and generated images, kept
 * in the database and served to their owner only (another user's id is not found). The type is
 * read from the bytes; a file whose bytes are not the image it says it is is refused. Each user
 * keeps at most `storageBytes`; an upload never sent in a saved chat goes after a day.
 */
export function createImagesService({ db, storageBytes, decoder, now = () => new Date() }: ImagesServiceDeps) {
  const unsentBefore = () => new Date(now().getTime() - CHAT_IMAGE_LIMITS.unsentHours * 3_600_000);

  /** Under the user's lock: their stale unsent uploads go, then the new bytes must fit. */
  async function makeRoom(tx: Tx, userId: string, bytes: number): Promise<void> {
    await lockUserImages(tx, userId);
    await purgeUnsentImages(tx, unsentBefore(), userId);
    const used = await storedBytes(tx, userId);
    if (used + bytes > storageBytes) {
      throw new AppError(
        'CONFLICT',
        `Your chat images take ${megabytes(used)} of the ${megabytes(storageBytes)} you may keep. Delete chats with images to make room.`,
      );
    }
  }

  async function upload(userId: string, input: { type: TChatImageType; data: string }): Promise<TChatImage> {
    const bytes = Buffer.from(input.data, 'base64');
    // The contract bounds the text; padding and stray characters may still decode to a little more.
    if (bytes.length > CHAT_IMAGE_LIMITS.maxBytes) throw invalid([{ path: 'data', message: `an image may be at most ${megabytes(CHAT_IMAGE_LIMITS.maxBytes)}` }]);
    const sniffed = sniffImage(bytes);
    if (!sniffed) throw invalid([{ path: 'data', message: NOT_AN_IMAGE }]);
    if (sniffed.type !== input.type) {
      throw invalid([{ path: 'type', message: `the file is a ${CHAT_IMAGE_TYPE_NAMES[sniffed.type]} image, not ${CHAT_IMAGE_TYPE_NAMES[input.type]}` }]);
    }
    const problem = await problemOf(decoder, sniffed, bytes);
    if (problem) throw invalid([{ path: 'data', message: problem }]);
    return db.transaction(async (tx) => {
      await makeRoom(tx, userId, bytes.length);
      const row = await insertImage(tx, { userId, origin: 'upload', mediaType: sniffed.type, bytes: bytes.length, width: sniffed.width, height: sniffed.height, data: bytes, createdAt: now() });
      return imageOf(row);
    });
  }

  async function read(userId: string, id: string): Promise<ImageRow> {
    const row = await findImage(db, userId, id);
    if (!row) throw new AppError('NOT_FOUND', NOT_FOUND);
    return row;
  }

  /** Deletes an upload not yet sent in a saved chat (one in a chat goes with the chat). */
  async function remove(userId: string, id: string): Promise<void> {
    const result = await deleteUnsentImage(db, userId, id);
    if (result === 'missing') throw new AppError('NOT_FOUND', NOT_FOUND);
    if (result === 'attached') throw new AppError('CONFLICT', 'This image is part of a saved chat: it is deleted with the chat.');
  }

  /**
   * The images a chat request's messages name, each the user's (400 on the field otherwise, the
   * same answer for another user's image as for none, so ids do not leak).
   */
  async function forRequest(userId: string, messages: ReadonlyArray<{ images?: readonly string[] }>): Promise<Map<string, RequestImage>> {
    const ids = [...new Set(messages.flatMap((m) => m.images ?? []))];
    const rows = new Map((await imagesWithData(db, userId, ids)).map((r) => [r.id, r]));
    const details: ErrorDetail[] = [];
    messages.forEach((m, i) =>
      (m.images ?? []).forEach((id, j) => {
        if (!rows.has(id)) details.push({ path: `messages.${i}.images.${j}`, message: 'must be an image you uploaded' });
      }),
    );
    if (details.length > 0) throw invalid(details);
    return new Map(
      [...rows.values()].map((r) => [r.id, { id: r.id, mediaType: r.mediaType, width: r.width, height: r.height, data: r.data, conversationId: r.conversationId }]),
    );
  }

  /** Refuses (409) before an image is generated when the user's storage has no room for it. */
  async function assertRoomForGenerated(userId: string): Promise<void> {
    await db.transaction((tx) => makeRoom(tx, userId, GENERATED_IMAGE_ROOM_BYTES));
  }

  /**
   * Stores images a model generated for the user, in their chat when there is one. The bytes are
   * checked like an upload's (type, pixels, every pixel decoded): what fails is dropped, and each
   * reason given to the caller to log.
   */
  async function storeGenerated(
    userId: string,
    conversationId: string | null,
    images: ReadonlyArray<{ data: Uint8Array }>,
  ): Promise<{ stored: TChatImage[]; dropped: number; reasons: string[] }> {
    const reasons: string[] = [];
    const readable: Array<{ sniffed: SniffedImage; data: Buffer }> = [];
    for (const image of images) {
      const sniffed = sniffImage(image.data);
      const problem = sniffed ? await problemOf(decoder, sniffed, image.data) : 'not a PNG, JPEG, WebP or GIF image';
      if (sniffed && !problem) readable.push({ sniffed, data: Buffer.from(image.data) });
      else reasons.push(problem ?? DAMAGED);
    }
    const stored = await db.transaction(async (tx) => {
      await lockUserImages(tx, userId);
      const rows: TChatImage[] = [];
      for (const { sniffed, data } of readable) {
        rows.push(
          imageOf(
            await insertImage(tx, { userId, conversationId, origin: 'generated', mediaType: sniffed.type, bytes: data.length, width: sniffed.width, height: sniffed.height, data, createdAt: now() }),
          ),
        );
      }
      return rows;
    });
    return { stored, dropped: images.length - readable.length, reasons };
  }

  /**
   * Makes images part of a saved chat (in the caller's transaction): each must be the user's and
   * not in another chat. `paths` names each id's field for the refusal.
   */
  async function attach(tx: Tx, userId: string, conversationId: string, refs: ReadonlyArray<{ id: string; path: string }>): Promise<void> {
    if (refs.length === 0) return;
    const attached = await attachImages(tx, userId, conversationId, [...new Set(refs.map((r) => r.id))]);
    const details = refs.filter((r) => !attached.has(r.id)).map((r) => ({ path: r.path, message: 'must be an image you uploaded, not one of another chat' }));
    if (details.length > 0) throw invalid(details);
  }

  /** Deletes every user's uploads never sent in a saved chat for a day (the app does this hourly). */
  async function purgeUnsent(): Promise<number> {
    return purgeUnsentImages(db, unsentBefore());
  }

  return { upload, read, remove, forRequest, assertRoomForGenerated, storeGenerated, attach, purgeUnsent };
}

export type ImagesService = ReturnType<typeof createImagesService>;
