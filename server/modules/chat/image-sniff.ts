import type { TChatImageType } from '../../../contracts/chat.ts';

/** What the bytes of an image say it is: its type and its size in pixels. */
export type SniffedImage = { type: TChatImageType; width: number; height: number };

/**
 * Reads an image's type and size from its bytes, never from a name or a declared type
 * (docs/decisions/0055): PNG, JPEG, WebP and GIF by their signatures and headers. Anything else
 * (SVG, which can carry script, HTML, PDF, a truncated or malformed header, a zero size) is null.
 * Only the header is read: the size it claims is checked against the bound, and the image
 * decoded, by the images service (docs/decisions/0064).
 */
export function sniffImage(bytes: Uint8Array): SniffedImage | null {
  const found = png(bytes) ?? jpeg(bytes) ?? gif(bytes) ?? webp(bytes);
  if (!found) return null;
  const ok = (n: number) => Number.isInteger(n) && n >= 1;
  return ok(found.width) && ok(found.height) ? found : null;
}

const ascii = (bytes: Uint8Array, at: number, text: string) => bytes.length >= at + text.length && [...text].every((c, i) => bytes[at + i] === c.charCodeAt(0));
const u16be = (b: Uint8Array, at: number) => (b[at]! << 8) | b[at + 1]!;
const u16le = (b: Uint8Array, at: number) => b[at]! | (b[at + 1]! << 8);
const u24le = (b: Uint8Array, at: number) => b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16);
const u32be = (b: Uint8Array, at: number) => ((b[at]! << 24) >>> 0) + ((b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!);

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** PNG: the signature, then the IHDR chunk first, 13 bytes long, width and height big-endian. */
function png(b: Uint8Array): SniffedImage | null {
  if (b.length < 33 || !PNG_SIGNATURE.every((v, i) => b[i] === v)) return null;
  if (u32be(b, 8) !== 13 || !ascii(b, 12, 'IHDR')) return null;
  return { type: 'image/png', width: u32be(b, 16), height: u32be(b, 20) };
}

/** JPEG: SOI (FF D8 FF), then markers up to a start-of-frame, which holds height and width. */
function jpeg(b: Uint8Array): SniffedImage | null {
  const frame = jpegStartOfFrame(b);
  if (!frame || frame.at + 9 > b.length) return null;
  return { type: 'image/jpeg', width: u16be(b, frame.at + 7), height: u16be(b, frame.at + 5) };
}

/**
 * Where a JPEG's start-of-frame marker is and which it is (C0 baseline, C2 progressive, ...):
 * walks the markers from SOI, or null when there is none before the scan data or the end.
 */
export function jpegStartOfFrame(b: Uint8Array): { marker: number; at: number } | null {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8 || b[2] !== 0xff) return null;
  let at = 2;
  while (at + 4 <= b.length) {
    if (b[at] !== 0xff) return null;
    const marker = b[at + 1]!;
    if (marker === 0xff) {
      at++; // fill byte
      continue;
    }
    // Markers without a length: TEM, RSTn.
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return null; // end of image, or scan data, before any frame
    const length = u16be(b, at + 2);
    if (length < 2) return null;
    // SOF0-SOF15 except DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) return { marker, at };
    at += 2 + length;
  }
  return null;
}

/** GIF: 'GIF87a' or 'GIF89a', then the logical screen's width and height, little-endian. */
function gif(b: Uint8Array): SniffedImage | null {
  if (b.length < 10 || !(ascii(b, 0, 'GIF87a') || ascii(b, 0, 'GIF89a'))) return null;
  return { type: 'image/gif', width: u16le(b, 6), height: u16le(b, 8) };
}

/** WebP: a RIFF container of type WEBP whose first chunk is VP8 (lossy), VP8L (lossless) or VP8X (extended). */
function webp(b: Uint8Array): SniffedImage | null {
  if (b.length < 30 || !ascii(b, 0, 'RIFF') || !ascii(b, 8, 'WEBP')) return null;
  if (ascii(b, 12, 'VP8 ')) {
    // A key frame's start code, then 14-bit width and height.
    if (b[23] !== 0x9d || b[24] !== 0x01 || b[25] !== 0x2a) return null;
    return { type: 'image/webp', width: u16le(b, 26) & 0x3fff, height: u16le(b, 28) & 0x3fff };
  }
  if (ascii(b, 12, 'VP8L')) {
    if (b[20] !== 0x2f) return null;
    const bits = b[21]! | (b[22]! << 8) | (b[23]! << 16) | (b[24]! << 24);
    return { type: 'image/webp', width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (ascii(b, 12, 'VP8X')) return { type: 'image/webp', width: u24le(b, 24) + 1, height: u24le(b, 27) + 1 };
  return null;
}
