import { describe, expect, it } from 'vitest';
import { LYING_FILES, pngHeader, sampleImage } from '../../../tests/fakes/sample-images.ts';
import { sniffImage } from './image-sniff.ts';

describe('sniffImage: the type and size from the bytes', () => {
  it.each([
    ['png', 'image/png'],
    ['jpeg', 'image/jpeg'],
    ['gif', 'image/gif'],
    ['webp', 'image/webp'],
    ['webpLossless', 'image/webp'],
    ['webpAlpha', 'image/webp'],
  ] as const)('reads a real %s file', (kind, type) => {
    expect(sniffImage(sampleImage(kind))).toEqual({ type, width: 1, height: 1 });
  });

  it('reads the size from the header', () => {
    expect(sniffImage(pngHeader(2048, 1536))).toEqual({ type: 'image/png', width: 2048, height: 1536 });
    const jpeg = Buffer.from(sampleImage('jpeg'));
    // The sample's start-of-frame (progressive, FF C2): length, precision, then height and width.
    const sof = jpeg.indexOf(Buffer.from([0xff, 0xc2]));
    jpeg.writeUInt16BE(480, sof + 5);
    jpeg.writeUInt16BE(640, sof + 7);
    expect(sniffImage(jpeg)).toEqual({ type: 'image/jpeg', width: 640, height: 480 });
  });

  it.each(Object.entries(LYING_FILES))('refuses %s', (_name, bytes) => {
    expect(sniffImage(bytes)).toBeNull();
  });

  it('goes by the bytes, whatever the rest says: a GIF carrying script text is a GIF (served as one, never run)', () => {
    const polyglot = Buffer.concat([sampleImage('gif'), Buffer.from('<script>alert(1)</script>')]);
    expect(sniffImage(polyglot)).toMatchObject({ type: 'image/gif' });
  });

  it('never reads past the end of a truncated header', () => {
    for (const kind of ['png', 'jpeg', 'gif', 'webp', 'webpLossless', 'webpAlpha'] as const) {
      const whole = sampleImage(kind);
      for (let n = 0; n < Math.min(whole.length, 40); n++) expect(() => sniffImage(whole.subarray(0, n))).not.toThrow();
    }
  });
});
