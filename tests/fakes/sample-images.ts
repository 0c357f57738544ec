import { crc32, deflateSync } from 'node:zlib';
import { GifWriter } from 'omggif';

/**
 * Small real images for tests (each a valid 1x1 file that browsers decode), and files that lie
 * about what they are. Shared by the server's tests, the fake providers and the journeys.
 */
export const SAMPLE_IMAGES = {
  png: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYGD4DwABBAEAghC0DgAAAABJRU5ErkJggg==',
  gif: 'R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7',
  jpeg: '/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxD/2Q==',
  /** Lossy (VP8), lossless (VP8L) and extended with alpha (VP8X). */
  webp: 'UklGRiIAAABXRUJQVlA4IBYAAAAwAQCdASoBAAEADsD+JaQAA3AAAAAA',
  webpLossless: 'UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==',
  webpAlpha: 'UklGRkoAAABXRUJQVlA4WAoAAAAQAAAAAAAAAAAAQUxQSAwAAAARBxAR/Q9ERP8DAABWUDggGAAAABQBAJ0BKgEAAQAAAP4AAA3AAP7mtQAAAA==',
} as const;

export const sampleImage = (kind: keyof typeof SAMPLE_IMAGES): Buffer => Buffer.from(SAMPLE_IMAGES[kind], 'base64');

/** Real pictures of 48 x 32 pixels with some detail, to cut short: a baseline JPEG (jpeg-js), a
 * progressive one (mozjpeg) and a lossy WebP (libwebp). */
export const PHOTOS = {
  jpegBaseline: '/9j/4AAQSkZJRgABAQAAAQABAAD/2wCEAA0JCgsKCA0LCgsODg0PEyAVExISEyccHhcgLikxMC4pLSwzOko+MzZGNywtQFdBRkxOUlNSMj5aYVpQYEpRUk8BDg4OExETJhUVJk81LTVPT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT//AABEIACAAMAMBEQACEQEDEQH/xAGiAAABBQEBAQEBAQAAAAAAAAAAAQIDBAUGBwgJCgsQAAIBAwMCBAMFBQQEAAABfQECAwAEEQUSITFBBhNRYQcicRQygZGhCCNCscEVUtHwJDNicoIJChYXGBkaJSYnKCkqNDU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6g4SFhoeIiYqSk5SVlpeYmZqio6Slpqeoqaqys7S1tre4ubrCw8TFxsfIycrS09TV1tfY2drh4uPk5ebn6Onq8fLz9PX29/j5+gEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoLEQACAQIEBAMEBwUEBAABAncAAQIDEQQFITEGEkFRB2FxEyIygQgUQpGhscEJIzNS8BVictEKFiQ04SXxFxgZGiYnKCkqNTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqCg4SFhoeIiYqSk5SVlpeYmZqio6Slpqeoqaqys7S1tre4ubrCw8TFxsfIycrS09TV1tfY2dri4+Tl5ufo6ery8/T19vf4+fr/2gAMAwEAAhEDEQA/APPo7b2rNO5MKpajtPatVTudUKxZjsvatFhrnVCsWY7H2rRYG/Q6oVyytiAMtgD3pzwEIK82kvPQ66ddvYmW0jB5I/DmuedLCRdnJfLX8rnZCtIzYbb2rlou5+cxql6G09q9ejTubxrFkQrGcbct6VdfF0sM+S3NLt/mzrpzbJUgkf2HtxXD7fFV/tWXlp/wfxO2FSKLCWaJjdgVm8PQoW9q7fn9yOuFZvYnjgH8MZ/GoVeL0pU7+vf0V/zOuFTuzOt7bOOK5sG7n5yqpd8ny0GB8x6V62JxTw1JcnxS2/VnRSndksFnxkjiuDC4dJXex2qsWEhLHCDA9e5pSxlSpJwoaR79X/l+f5HXCaW5OlqicEZb0FYv2OG916y7L9e35+R2QqtlhLdsZOEX2olVquLlKXJHy+/fe/pv2OuFRGfbW3Tis8ud7H5x7Usrbb5jx04q6k/b4qXZafd/wbnVTqWiWPs5Ztg6Dr9aWJqyqVPYQfurfzf/AAPz+R10qllcnW3x8iDnufSoqVuT9zR36vt5Lz/L127KdTqydLUJgKoLfyrJ8uGtCCvP8F6/5fP164Vb6snS2APzAs3pWUnGEr1Pen2/rb0/Cx2Qq9j/AP/Z',
  jpegProgressive: '/9j/4AAQSkZJRgABAQAAAQABAAD/2wEEEAANAA0ADQANAA4ADQAOABAAEAAOABQAFgATABYAFAAeABsAGQAZABsAHgAtACAAIgAgACIAIAAtAEQAKgAyACoAKgAyACoARAA8AEkAOwA3ADsASQA8AGwAVQBLAEsAVQBsAH0AaQBjAGkAfQCXAIcAhwCXAL4AtQC+APkA+QFOEQANAA0ADQANAA4ADQAOABAAEAAOABQAFgATABYAFAAeABsAGQAZABsAHgAtACAAIgAgACIAIAAtAEQAKgAyACoAKgAyACoARAA8AEkAOwA3ADsASQA8AGwAVQBLAEsAVQBsAH0AaQBjAGkAfQCXAIcAhwCXAL4AtQC+APkA+QFO/8IAEQgAIAAwAwEiAAIRAQMRAf/EAC4AAQEBAQAAAAAAAAAAAAAAAAQFAwcBAAIDAQAAAAAAAAAAAAAAAAQFAQIDB//aAAwDAQACEAMQAAAA58qg2cJaampDaftS3wczmsSLy2eihvRvPQ/cZz//xAAhEAABAwQCAwEAAAAAAAAAAAACAAEDBBEhYRJBEyIxcf/aAAgBAQABPwAINIKfSCl0gpNIaRm+oaaNu1HBpR0+k0Qhi13QwmWvxDTCNroIW6BRQaXi4C1my6ipkMTvgWwhgEesoYS79WUMGk0HI31heG78W+Jobeo/e3QwcbMzZQwWfOSX/8QAJREAAgECBAYDAAAAAAAAAAAAAQIDAAQRIUFSEhMiMTJhUXGR/9oACAECAQE/ALdOdhTraRtwEF31VdPs07RLkYYlO0kufxaguGjtFKHrkIVT8U06xqUQlVU4Ejydtq005QFckAyIU4Aeie5Pqv/EAB0RAAEDBQEAAAAAAAAAAAAAAAADBCEBAhEiMUH/2gAIAQMBAT8ASd49EHd0SIOqxtUSc5u6IOuSIOuSf//Z',
  webp: 'UklGRj4BAABXRUJQVlA4IDIBAADwCQCdASowACAAPs1YokunpSMhqq348BmJbACdMoRwNIEsPTECBQw6u30tX2Hv2W9IDAllaSZn3zCljk7ZsPFfzotz7oQfVhdzP8TfLTZ+rUfZH7X2jwAAAP7+ulE0XP0a1P329e+jUDzUQQjLCcRo9W3MQBUReGYF8ZvJmH1tLUb5lCScJetFloXzklYeNly/8YrojKPslIMg6tFOVqsBiNAxOrjt3gH3NITUD+OPeP7uJ1Jf/5HPPwcIfAoWYXJJOA/dAY4DHfaPLsIbmQGJtbbU/hTH5/+f0YUh0utsrLwb0+JB6Ye8d5E5jkURCdBIIPgjPkS5fn/ZlriX+8DBQTUm+mCtlb0zKNt7fqLpNZKJGU0gqryEciDaU2X0OFzAY6Gv9t4kziB5tywyKYAgAAA=',
} as const;
export const photo = (kind: keyof typeof PHOTOS): Buffer => Buffer.from(PHOTOS[kind], 'base64');

/** One PNG chunk: length, type, data and its CRC. */
export function pngChunk(type: string, data: Uint8Array = new Uint8Array()): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * A whole PNG made here. 'bw' is 1 bit a pixel, all black: a picture of any size compresses to
 * almost nothing (the shape of a decompression bomb). 'rgb' has a pattern that compresses poorly,
 * so cutting the file cuts pixels. `before` chunks go between the header and the image data.
 */
export function makePng(width: number, height: number, { colors = 'rgb', before = [] }: { colors?: 'bw' | 'rgb' | 'clear'; before?: Buffer[] } = {}): Buffer {
  // 'clear': every pixel black and fully transparent (RGBA 0, 0, 0, 0), as a logo's background is.
  const rowBytes = colors === 'bw' ? Math.ceil(width / 8) : colors === 'clear' ? width * 4 : width * 3;
  const raw = Buffer.alloc((rowBytes + 1) * height);
  if (colors === 'rgb') {
    for (let y = 0; y < height; y++) for (let i = 0; i < rowBytes; i++) raw[y * (rowBytes + 1) + 1 + i] = (i * 31 + y * 17 + ((i * y) >> 3)) & 255;
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = colors === 'bw' ? 1 : 8; // bit depth
  header[9] = colors === 'bw' ? 0 : colors === 'clear' ? 6 : 2; // greyscale, truecolour with alpha, or truecolour
  return Buffer.concat([PNG_SIGNATURE, pngChunk('IHDR', header), ...before, pngChunk('IDAT', deflateSync(raw, { level: 9 })), pngChunk('IEND')]);
}

/** The bomb: a file of 70 bytes whose header claims 16384 x 16384 pixels, with no image data for them. */
export const pngBomb = (): Buffer => pngHeader(16_384, 16_384);
let bomb: Buffer | undefined;
/** A whole 16384 x 16384 PNG (268 million pixels, a gigabyte decoded) in about 33 KB (made once: compressing it takes a second). */
export const compressedPngBomb = (): Buffer => (bomb ??= makePng(16_384, 16_384, { colors: 'bw' }));
/** A real 64 x 64 PNG cut off halfway through its image data, as an interrupted upload leaves it. */
export function truncatedPng(): Buffer {
  const whole = makePng(64, 64);
  return whole.subarray(0, whole.length >> 1);
}

/** A whole PNG of `width` x `height` black pixels padded (with a private chunk decoders skip) to exactly `bytes` bytes. */
export function pngOfSize(bytes: number, width = 10, height = 10): Buffer {
  const image = makePng(width, height, { colors: 'bw' });
  const end = image.length - 12; // IEND: its length, type and CRC
  const padding = bytes - image.length - 12; // the padding chunk's length, type and CRC
  if (padding < 0) throw new Error(`a ${width} x ${height} PNG takes more than ${bytes} bytes`);
  return Buffer.concat([image.subarray(0, end), pngChunk('paDd', Buffer.alloc(padding)), image.subarray(end)]);
}

/** A GIF of `frames` frames of 8 x 8 pixels (omggif writes it). */
export function animatedGif(frames: number): Buffer {
  const buffer = Buffer.alloc(4096);
  const writer = new GifWriter(buffer, 8, 8, { palette: [0x000000, 0xffffff], loop: 0 });
  for (let i = 0; i < frames; i++) writer.addFrame(0, 0, 8, 8, Array.from({ length: 64 }, (_, p) => (p + i) & 1), { delay: 10 });
  return Buffer.from(buffer.subarray(0, writer.end()));
}

/** A PNG whose header says `width` x `height` (the pixels are not there: enough for what reads the header). */
export function pngHeader(width: number, height: number): Buffer {
  const bytes = Buffer.from(sampleImage('png'));
  bytes.writeUInt32BE(width, 16);
  bytes.writeUInt32BE(height, 20);
  return bytes;
}

/** Files that are not what a name or a declared type would say. */
export const LYING_FILES: Record<string, Buffer> = {
  'an SVG with a script': Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect width="1" height="1"/></svg>'),
  'an SVG behind an XML declaration': Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
  'HTML': Buffer.from('<!doctype html><script>alert(document.cookie)</script>'),
  'a PDF': Buffer.from('%PDF-1.7\n1 0 obj <<>> endobj\n'),
  'plain text': Buffer.from('just some text, not an image at all'),
  'a PNG cut off after its signature': sampleImage('png').subarray(0, 12),
  'a JPEG start with no frame': Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00, 0xff, 0xd9]),
  'a RIFF file that is not WebP': Buffer.concat([Buffer.from('RIFF\u0024\u0000\u0000\u0000WAVEfmt '), Buffer.alloc(24)]),
  'a PNG header of 0 x 0 pixels': pngHeader(0, 0),
  'an empty file': Buffer.alloc(0),
};
