import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { CHAT_IMAGE_LIMITS, CHAT_IMAGE_TYPE_NAMES, CHAT_IMAGE_TYPES, type TChatImageType, type TChatModel } from '../../../../contracts/chat.ts';
import { ApiError, errorMessage } from '../../../lib/api-client.ts';
import { deleteImage, readAsDataUrl, uploadImage } from '../api/chat-api.ts';

/** An image attached to the question being written (docs/decisions/0055). */
export type Attachment = {
  key: string;
  name: string;
  type: TChatImageType;
  /** The file as a data: URL, shown until it is sent. */
  preview: string | null;
  status: 'uploading' | 'ready' | 'failed';
  /** Our URL for it once uploaded (`/api/chat/images/<id>`). */
  url?: string;
  id?: string;
  /** Why it was not uploaded: the server's reason when it gave one. */
  error?: string;
};

export type Attachments = {
  items: Attachment[];
  /** Picked, pasted or dropped files: each checked here (the server checks again), then uploaded. */
  add(files: readonly File[]): void;
  /** Takes one off (and deletes it on the server: it was never sent). */
  remove(key: string): void;
  /** After sending: the images now belong to the question. */
  clear(): void;
  /** Why the last files were refused, in a sentence. */
  problem: string | null;
  /** Why the question cannot be sent with these images, or null. */
  blocked: string | null;
  uploading: boolean;
  /** The uploaded images' URLs, in order. */
  urls(): string[];
};

const typeList = (types: readonly TChatImageType[]) => {
  const names = types.map((t) => CHAT_IMAGE_TYPE_NAMES[t]);
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names.join('');
};
const MAX_MB = CHAT_IMAGE_LIMITS.maxBytes / (1024 * 1024);

/**
 * Why an upload failed, in the server's words: the reason on the refused field (an image too
 * large in pixels, data cut short: docs/decisions/0064), else its message (storage full, busy),
 * else what went wrong on the way.
 */
export function uploadRefusal(err: unknown, fallback = 'The image could not be uploaded.'): string {
  const body = err instanceof ApiError && err.body && typeof err.body === 'object' ? (err.body as { details?: unknown }) : null;
  const detail = Array.isArray(body?.details) ? (body.details as Array<{ message?: unknown }>).find((d) => typeof d?.message === 'string')?.message : undefined;
  const reason = typeof detail === 'string' && detail ? detail : errorMessage(err, fallback);
  return reason.charAt(0).toUpperCase() + reason.slice(1);
}

/** Why a model cannot take images at all, or null when it can. */
export const noVisionReason = (model: TChatModel | undefined): string | null =>
  model?.vision ? null : `${model?.label ?? 'This model'} reads text only. Choose a model that takes images to attach them.`;

/**
 * The images of the question being written: checked against the model (whether it sees images,
 * which types), the size and the count, uploaded at once, shown as thumbnails with a remove
 * button. An image never sent is deleted on the server when removed (else after a day).
 */
export function useAttachments(model: TChatModel | undefined): Attachments {
  const [items, setItems] = useState<Attachment[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const count = useRef(0);
  const current = useRef(items);
  const modelRef = useRef(model);
  useLayoutEffect(() => {
    current.current = items;
    modelRef.current = model;
  });
  // Leaving the screen with images attached: they were never sent.
  useEffect(() => () => current.current.forEach((item) => item.id && void deleteImage(item.id).catch(() => {})), []);

  const patch = (key: string, fields: Partial<Attachment>) => setItems((list) => list.map((item) => (item.key === key ? { ...item, ...fields } : item)));

  const add = useCallback((files: readonly File[]) => {
    const model = modelRef.current;
    if (files.length === 0) return;
    const reason = noVisionReason(model);
    if (reason || !model?.vision) return setProblem(reason);
    const refused: string[] = [];
    let room = CHAT_IMAGE_LIMITS.maxPerMessage - current.current.length;
    const accepted: Attachment[] = [];
    for (const file of files) {
      const type = CHAT_IMAGE_TYPES.find((t) => t === file.type);
      if (!type) refused.push(`${file.name || 'This file'} is not a PNG, JPEG, WebP or GIF image.`);
      else if (!model.vision.includes(type)) refused.push(`${model.label} takes ${typeList(model.vision)} images; ${file.name || 'this one'} is ${CHAT_IMAGE_TYPE_NAMES[type]}.`);
      else if (file.size > CHAT_IMAGE_LIMITS.maxBytes) refused.push(`${file.name || 'This image'} is larger than ${MAX_MB} MB.`);
      else if (room <= 0) refused.push(`A question carries at most ${CHAT_IMAGE_LIMITS.maxPerMessage} images.`);
      else {
        room--;
        accepted.push({ key: `image-${++count.current}`, name: file.name || `Pasted image ${count.current}`, type, preview: null, status: 'uploading' });
        const item = accepted.at(-1)!;
        void readAsDataUrl(file)
          .then(async (dataUrl) => {
            patch(item.key, { preview: dataUrl });
            const image = await uploadImage(type, dataUrl);
            // Removed while it was on its way: it was never sent.
            if (!current.current.some((i) => i.key === item.key)) return void deleteImage(image.id).catch(() => {});
            patch(item.key, { status: 'ready', url: image.url, id: image.id });
          })
          .catch((err: unknown) => patch(item.key, { status: 'failed', error: uploadRefusal(err) }));
      }
    }
    setProblem(refused.length > 0 ? [...new Set(refused)].join(' ') : null);
    if (accepted.length > 0) setItems((list) => [...list, ...accepted]);
  }, []);

  const remove = useCallback((key: string) => {
    const item = current.current.find((i) => i.key === key);
    if (item?.id) void deleteImage(item.id).catch(() => {});
    setItems((list) => list.filter((i) => i.key !== key));
    setProblem(null);
  }, []);

  const clear = useCallback(() => {
    setItems([]);
    setProblem(null);
  }, []);

  const urls = useCallback(() => current.current.flatMap((i) => (i.url ? [i.url] : [])), []);

  let blocked: string | null = null;
  if (items.length > 0) {
    if (!model?.vision) blocked = `${model?.label ?? 'This model'} reads text only: remove the images or choose a model that takes them.`;
    else if (items.some((i) => !model.vision!.includes(i.type))) blocked = `${model.label} takes ${typeList(model.vision)} images: remove the others or choose another model.`;
    else if (items.some((i) => i.status === 'failed')) blocked = 'Remove the images that could not be uploaded, or attach them again.';
  }
  return { items, add, remove, clear, problem, blocked, uploading: items.some((i) => i.status === 'uploading'), urls };
}
