/**
 * Small real images for tests (each a valid 1x1 file that browsers decode), and files that lie
 * about what they are. Shared by the server's tests, the fake providers and the journeys.
 */
export const SAMPLE_IMAGES = {
  png: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYGD4DwABBAEAghC0DgAAAABJRU5ErkJggg==',
  gif: 'R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7',
  jpeg: '/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=',
  /** Lossy (VP8), lossless (VP8L) and extended with alpha (VP8X). */
  webp: 'UklGRiIAAABXRUJQVlA4IBYAAAAwAQCdASoBAAEADsD+JaQAA3AAAAAA',
  webpLossless: 'UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==',
  webpAlpha: 'UklGRkoAAABXRUJQVlA4WAoAAAAQAAAAAAAAAAAAQUxQSAwAAAARBxAR/Q9ERP8DAABWUDggGAAAABQBAJ0BKgEAAQAAAP4AAA3AAP7mtQAAAA==',
} as const;

export const sampleImage = (kind: keyof typeof SAMPLE_IMAGES): Buffer => Buffer.from(SAMPLE_IMAGES[kind], 'base64');

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
  'a PNG header of 100000 x 1 pixels': pngHeader(100_000, 1),
  'an empty file': Buffer.alloc(0),
};
