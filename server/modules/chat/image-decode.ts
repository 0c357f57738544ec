import { readFile } from 'node:fs/promises';
import decodePng, { init as initPng } from '@jsquash/png/decode.js';
import decodeJpeg, { init as initJpeg } from '@jsquash/jpeg/decode.js';
import decodeWebp, { init as initWebp } from '@jsquash/webp/decode.js';
import { GifReader } from 'omggif';
import type { TChatImageType } from '../../../contracts/chat.ts';
import { jpegStartOfFrame } from './image-sniff.ts';

/**
 * What decoding an image's bytes found (docs/decisions/0064): a still image whose data is all
 * there, data that is cut short or damaged, or an animation (which not every provider reads).
 */
export type DecodeOutcome = { ok: true } | { ok: false; problem: 'damaged' } | { ok: false; problem: 'animated'; frames: number };

const OK: DecodeOutcome = { ok: true };
const DAMAGED: DecodeOutcome = { ok: false, problem: 'damaged' };

// The codecs build their result as a DOM ImageData, which Node lacks; they only construct it, so a
// plain holder of the same fields is enough (this module runs in the image worker).
const browserGlobals = globalThis as { ImageData?: unknown };
browserGlobals.ImageData ??= class ImageData {
  readonly data: Uint8ClampedArray;
  readonly width: number;
  readonly height: number;
  constructor(data: Uint8ClampedArray, width: number, height: number) {
    this.data = data;
    this.width = width;
    this.height = height;
  }
};

/** The WebAssembly calls used here, typed (the server's TypeScript has no DOM lib, which types the global). */
type WasmModule = object;
type WasmApi = {
  compile(code: Uint8Array): Promise<WasmModule>;
  Instance: new (module: WasmModule, imports: object) => { exports: object };
};
const { WebAssembly: wasmApi } = globalThis as unknown as { WebAssembly: WasmApi };

/**
 * Decodes the whole image, every pixel, to prove its data is complete: the caller has already
 * checked the size its header gives against the bound (this allocates width x height x 4 bytes).
 * PNG, JPEG and WebP by their reference decoders compiled to WebAssembly (the Rust png crate,
 * mozjpeg, libwebp), GIF by omggif (plain JavaScript). Never throws: anything a decoder cannot
 * read is damaged.
 */
export async function decodeImage(type: TChatImageType, bytes: Uint8Array): Promise<DecodeOutcome> {
  try {
    switch (type) {
      case 'image/png':
        return await png(bytes);
      case 'image/jpeg':
        return await jpeg(bytes);
      case 'image/webp':
        return await webp(bytes);
      case 'image/gif':
        return gif(bytes);
    }
  } catch {
    // A decoder that gave up half way may have left its memory behind (libjpeg's exit skips its
    // clean-up) or be unusable (a WebAssembly trap): the worker starts afresh after this image.
    dirty = true;
    return DAMAGED;
  }
}

/** An image's pixels, RGBA, row by row (the codecs' ImageData). */
export type Pixels = { data: Uint8ClampedArray; width: number; height: number };

/**
 * The pixels of a still PNG, JPEG or WebP whose header size the caller has bounded and which
 * `decodeImage` found whole (the article images re-encode them, docs/decisions/0099). Throws
 * when a decoder does.
 */
export async function decodePixels(type: 'image/png' | 'image/jpeg' | 'image/webp', bytes: Uint8Array): Promise<Pixels> {
  switch (type) {
    case 'image/png':
      await pngReady();
      return decodePng(arrayBuffer(bytes));
    case 'image/jpeg':
      await jpegReady();
      return decodeJpeg(arrayBuffer(bytes));
    case 'image/webp':
      await webpReady();
      return decodeWebp(arrayBuffer(bytes));
  }
}

let dirty = false;
/** True once a decoder has thrown in this thread: its worker should end and a new one take over. */
export const decodersNeedFreshStart = (): boolean => dirty;

/** A fresh ArrayBuffer holding exactly these bytes (the codecs take ArrayBuffers; a Buffer's
 * `.buffer` may be a pool shared with other Buffers, and Buffer#slice does not copy). */
const arrayBuffer = (bytes: Uint8Array): ArrayBuffer => new Uint8Array(bytes).buffer;

const wasm = (specifier: string) => readFile(new URL(import.meta.resolve(specifier))).then((code) => wasmApi.compile(code));

/** Each codec is compiled once per worker, on first use. */
function once(start: () => Promise<void>): () => Promise<void> {
  let started: Promise<void> | null = null;
  return () => (started ??= start());
}

/**
 * Emscripten's module options: the compiled code to instantiate (it would fetch the file, which
 * Node cannot do for a file URL) and where the C library's messages go (libjpeg's warnings).
 */
type EmscriptenOptions = {
  noInitialRun: boolean;
  instantiateWasm(imports: object, done: (instance: object) => void): object;
  print(text: string): void;
  printErr(text: string): void;
};
const emscripten = (module: WasmModule, printErr: (text: string) => void) => {
  const options: EmscriptenOptions = {
    noInitialRun: true,
    instantiateWasm: (imports, done) => {
      const instance = new wasmApi.Instance(module, imports);
      done(instance);
      return instance.exports;
    },
    print: () => {},
    printErr,
  };
  // The codecs' typings name only some of Emscripten's options.
  return options as Parameters<typeof initJpeg>[0];
};

// --- PNG ------------------------------------------------------------------------------------------

const pngReady = once(async () => void (await initPng((await wasm('@jsquash/png/codec/pkg/squoosh_png_bg.wasm')) as Parameters<typeof initPng>[0])));

/**
 * The png crate refuses a missing IEND, a bad CRC, and image data that inflates to fewer rows
 * than the header says. An APNG's animation control chunk (acTL, before the first IDAT) makes it
 * an animation.
 */
async function png(bytes: Uint8Array): Promise<DecodeOutcome> {
  const frames = apngFrames(bytes);
  if (frames > 1) return { ok: false, problem: 'animated', frames };
  await pngReady();
  await decodePng(arrayBuffer(bytes));
  return OK;
}

/** The frame count an APNG declares (acTL), or 1. Walks the chunks up to the first IDAT. */
function apngFrames(b: Uint8Array): number {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  for (let at = 8; at + 12 <= b.length; ) {
    const length = view.getUint32(at);
    const type = String.fromCharCode(b[at + 4]!, b[at + 5]!, b[at + 6]!, b[at + 7]!);
    if (type === 'IDAT') return 1;
    if (type === 'acTL' && at + 12 <= b.length) return view.getUint32(at + 8);
    at += 12 + length;
  }
  return 1;
}

// --- JPEG -----------------------------------------------------------------------------------------

/** What mozjpeg said while decoding the current image (libjpeg prints the first warning of each image). */
const jpegWarnings: string[] = [];
const jpegReady = once(async () => initJpeg(emscripten(await wasm('@jsquash/jpeg/codec/dec/mozjpeg_dec.wasm'), (text) => jpegWarnings.push(text))));
/** Warnings libjpeg gives about files that are whole: padding before a marker, metadata it does not
 * know, a progressive file that sends fewer refinement scans than it could. */
const HARMLESS_JPEG_WARNING = /extraneous bytes before marker|unknown JFIF revision|Unknown Adobe color transform|Inconsistent progression sequence/i;
const EOI = Uint8Array.of(0xff, 0xd9);

/** Progressive and lossless frames (SOF2, 3, 6, 7, 10, 11, 14, 15): drawn over several scans. */
const MULTI_SCAN_FRAMES = new Set([0xc2, 0xc3, 0xc6, 0xc7, 0xca, 0xcb, 0xce, 0xcf]);

/**
 * libjpeg draws what it has: data cut short becomes grey rows, with a warning. Many whole
 * baseline files lack the end-of-image marker, which gives the same warning as a cut one
 * ('Premature end of JPEG file'), so the marker is added when missing: then only data that really
 * ends early (libjpeg: 'premature end of data segment') or is damaged ('bad Huffman code') warns,
 * and is refused. A progressive file cut between two scans draws without a warning (coarser), so
 * it must end with the marker.
 */
async function jpeg(bytes: Uint8Array): Promise<DecodeOutcome> {
  const frame = jpegStartOfFrame(bytes);
  if (!frame) return DAMAGED;
  const ended = bytes.length >= 2 && bytes[bytes.length - 2] === 0xff && bytes[bytes.length - 1] === 0xd9;
  if (!ended && MULTI_SCAN_FRAMES.has(frame.marker)) return DAMAGED;
  await jpegReady();
  const whole = ended ? bytes : concat(bytes, EOI);
  jpegWarnings.length = 0;
  await decodeJpeg(arrayBuffer(whole));
  return jpegWarnings.some((warning) => !HARMLESS_JPEG_WARNING.test(warning)) ? DAMAGED : OK;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

// --- WebP -----------------------------------------------------------------------------------------

const webpReady = once(async () => initWebp(emscripten(await wasm('@jsquash/webp/codec/dec/webp_dec.wasm'), () => {})));

/** libwebp refuses data cut short. An extended file (VP8X) says in its flags whether it is animated. */
async function webp(bytes: Uint8Array): Promise<DecodeOutcome> {
  const frames = webpFrames(bytes);
  if (frames > 1) return { ok: false, problem: 'animated', frames };
  await webpReady();
  await decodeWebp(arrayBuffer(bytes));
  return OK;
}

/** The frames (ANMF chunks) of a WebP whose VP8X header has the animation flag; 1 otherwise. */
function webpFrames(b: Uint8Array): number {
  const fourCc = (at: number) => String.fromCharCode(b[at]!, b[at + 1]!, b[at + 2]!, b[at + 3]!);
  if (b.length < 21 || fourCc(12) !== 'VP8X' || (b[20]! & 0x02) === 0) return 1;
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let frames = 0;
  for (let at = 12; at + 8 <= b.length; ) {
    if (fourCc(at) === 'ANMF') frames++;
    const size = view.getUint32(at + 4, true);
    at += 8 + size + (size & 1); // chunks are padded to an even size
  }
  // Flagged as an animation: at least two frames as far as the decoder is concerned.
  return Math.max(frames, 2);
}

// --- GIF ------------------------------------------------------------------------------------------

/**
 * omggif reads the blocks (refusing a file cut short in them) and decodes the frame. A frame's
 * compressed data that ends before its last pixel is only reported with a console.log, so that
 * one call is listened to (decoding is synchronous: nothing else logs meanwhile). More than one
 * frame is an animation, refused before any is decoded; a frame outside the logical screen (whose
 * size the bound was checked on) is damaged.
 */
function gif(bytes: Uint8Array): DecodeOutcome {
  const reader = new GifReader(bytes);
  const frames = reader.numFrames();
  if (frames > 1) return { ok: false, problem: 'animated', frames };
  if (frames === 0) return DAMAGED;
  const frame = reader.frameInfo(0);
  if (frame.x + frame.width > reader.width || frame.y + frame.height > reader.height) return DAMAGED;
  const pixels = new Uint8Array(reader.width * reader.height * 4);
  let short = false;
  const log = console.log;
  console.log = (...args: unknown[]) => {
    if (String(args[0]).includes('shorter than expected')) short = true;
    else log(...args);
  };
  try {
    reader.decodeAndBlitFrameRGBA(0, pixels);
  } finally {
    console.log = log;
  }
  return short ? DAMAGED : OK;
}
