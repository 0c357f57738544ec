import { readFile } from 'node:fs/promises';
import resize, { initResize } from '@jsquash/resize';
import encodeJpeg, { init as initJpegEncode } from '@jsquash/jpeg/encode.js';
import encodeWebp, { init as initWebpEncode } from '@jsquash/webp/encode.js';
import { ARTICLE_IMAGE_LIMITS, ARTICLE_IMAGE_TYPES, articleImageWidths, type TArticleImageType } from '../../../contracts/article-images.ts';
import { decodeImage, decodePixels, type Pixels } from '../chat/image-decode.ts';
import { sniffImage } from '../chat/image-sniff.ts';

/** One served width of an image: WebP for the pages, one JPEG (the largest width) for social cards. */
export type ImageVariant = { width: number; height: number; contentType: 'image/webp' | 'image/jpeg'; bytes: Uint8Array };
export type ProcessedImage = { type: TArticleImageType; width: number; height: number; variants: ImageVariant[] };
/** Why an upload is refused: the field (the declared type or the data) and the rule. */
export type ImageRefusal = { path: 'contentType' | 'data'; message: string };

const TYPE_NAMES: Record<string, string> = { 'image/jpeg': 'JPEG', 'image/png': 'PNG', 'image/webp': 'WebP', 'image/gif': 'GIF' };
const NOT_AN_IMAGE = 'must be a JPEG, PNG or WebP image (SVG, GIF and other files are refused)';
const { maxPixels, maxSide } = ARTICLE_IMAGE_LIMITS;
/** WebP at this quality is about a third of a JPEG's bytes at the same look (libwebp's default is 75). */
const WEBP_QUALITY = 80;
const JPEG_QUALITY = 82;

/**
 * The pixels laid on white: JPEG has no transparency, and its encoder drops the alpha channel,
 * so a transparent PNG's clear pixels (most often black with alpha 0) would show black in link
 * previews. Opaque images are returned as they are.
 */
export function onWhite(pixels: Pixels): Pixels {
  const { data } = pixels;
  let transparent = false;
  for (let i = 3; i < data.length && !transparent; i += 4) transparent = data[i]! < 255;
  if (!transparent) return pixels;
  const out = new Uint8ClampedArray(data.length);
  for (let i = 0; i < data.length; i += 4) {
    const alpha = data[i + 3]! / 255;
    for (let c = 0; c < 3; c++) out[i + c] = Math.round(data[i + c]! * alpha + 255 * (1 - alpha));
    out[i + 3] = 255;
  }
  return { ...pixels, data: out };
}

/** The codecs type their pixels as the DOM's ImageData, which the server's TypeScript lacks: the same fields as Pixels. */
type ImageDataOf<F extends (data: never, ...rest: never[]) => unknown> = Parameters<F>[0];

const isArticleImageType = (type: string): type is TArticleImageType => (ARTICLE_IMAGE_TYPES as readonly string[]).includes(type);

/** The WebAssembly calls used here, typed (the server's TypeScript has no DOM lib). */
type WasmModule = object;
const { WebAssembly: wasmApi } = globalThis as unknown as { WebAssembly: { compile(code: Uint8Array): Promise<WasmModule> } };
const wasm = (specifier: string) => readFile(new URL(import.meta.resolve(specifier))).then((code) => wasmApi.compile(code));

function once(start: () => Promise<unknown>): () => Promise<unknown> {
  let started: Promise<unknown> | null = null;
  return () => (started ??= start());
}
// Compiled from node_modules on first use: nothing is fetched. Node has WebAssembly SIMD, which
// the encoder's own check picks, so the SIMD build is the one given to it.
const resizeReady = once(async () => initResize((await wasm('@jsquash/resize/lib/resize/pkg/squoosh_resize_bg.wasm')) as Parameters<typeof initResize>[0]));
const jpegEncoderReady = once(async () =>
  (initJpegEncode as unknown as (module: WasmModule, options: object) => Promise<unknown>)(await wasm('@jsquash/jpeg/codec/enc/mozjpeg_enc.wasm'), { print: () => {}, printErr: () => {} }),
);
const encoderReady = once(async () =>
  // init(module, options): the typings name only the options form.
  (initWebpEncode as unknown as (module: WasmModule, options: object) => Promise<unknown>)(await wasm('@jsquash/webp/codec/enc/webp_enc_simd.wasm'), { print: () => {}, printErr: () => {} }),
);

/**
 * Checks an upload by its bytes and makes its served variants (docs/decisions/0099): the type
 * read from the bytes must be JPEG, PNG or WebP and the one declared; the size the header claims
 * is bounded before anything is decoded; the whole image is decoded (damaged or animated data is
 * refused), then every width is resized and encoded afresh as WebP, so nothing of the uploaded
 * file but its pixels is ever served (no metadata, no payload hidden after or inside it).
 */
export async function processArticleImage(declaredType: string, bytes: Uint8Array): Promise<{ ok: true; image: ProcessedImage } | { ok: false; refusal: ImageRefusal }> {
  const refuse = (path: ImageRefusal['path'], message: string) => ({ ok: false as const, refusal: { path, message } });
  const sniffed = sniffImage(bytes);
  if (!sniffed || !isArticleImageType(sniffed.type)) return refuse('data', NOT_AN_IMAGE);
  if (sniffed.type !== declaredType) {
    return refuse('contentType', `the file is a ${TYPE_NAMES[sniffed.type]} image, not ${TYPE_NAMES[declaredType] ?? declaredType}: send it with its own content type`);
  }
  const { width, height } = sniffed;
  if (width > maxSide || height > maxSide || width * height > maxPixels) {
    return refuse('data', `The image is ${width} x ${height} pixels; the largest accepted is ${maxSide} pixels on a side and ${maxPixels / 1_000_000} megapixels in all`);
  }
  const outcome = await decodeImage(sniffed.type, bytes);
  if (!outcome.ok) return refuse('data', outcome.problem === 'animated' ? 'The image is animated; only still images are accepted' : 'The image data is incomplete or damaged');
  let pixels: Pixels;
  try {
    pixels = await decodePixels(sniffed.type, bytes);
  } catch {
    return refuse('data', 'The image data is incomplete or damaged');
  }
  await Promise.all([resizeReady(), encoderReady(), jpegEncoderReady()]);
  const variants: ImageVariant[] = [];
  const widths = articleImageWidths(pixels.width);
  for (const target of widths) {
    const targetHeight = Math.max(1, Math.round((pixels.height * target) / pixels.width));
    const scaled = target === pixels.width ? pixels : await resize(pixels as ImageDataOf<typeof resize>, { width: target, height: targetHeight });
    variants.push({ width: target, height: scaled.height, contentType: 'image/webp', bytes: new Uint8Array(await encodeWebp(scaled as ImageDataOf<typeof encodeWebp>, { quality: WEBP_QUALITY })) });
    // Link previews read JPEG everywhere, WebP not everywhere (LinkedIn): the social card's copy.
    if (target === widths[widths.length - 1]) {
      const opaque = onWhite(scaled);
      variants.push({ width: target, height: scaled.height, contentType: 'image/jpeg', bytes: new Uint8Array(await encodeJpeg(opaque as ImageDataOf<typeof encodeJpeg>, { quality: JPEG_QUALITY })) });
    }
  }
  return { ok: true, image: { type: sniffed.type, width: pixels.width, height: pixels.height, variants } };
}
