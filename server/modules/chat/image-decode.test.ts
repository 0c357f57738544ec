import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { TChatImageType } from '../../../contracts/chat.ts';
import { PHOTOS, SAMPLE_IMAGES, animatedGif, makePng, photo, pngChunk, sampleImage, truncatedPng } from '../../../tests/fakes/sample-images.ts';
import { decodeImage, decodersNeedFreshStart } from './image-decode.ts';

// Every pixel decoded to prove the data is all there (docs/decisions/0064). Run here on the test's
// thread; the server runs the same function in its image worker (image-decoder.test.ts).

const typeOf = (kind: string): TChatImageType => (kind.startsWith('webp') ? 'image/webp' : kind.startsWith('jpeg') ? 'image/jpeg' : (`image/${kind}` as TChatImageType));
const DAMAGED = { ok: false, problem: 'damaged' };

/** The byte lengths `bytes` is cut to: every length up to 64, then about 40 spread over the rest. */
function cutPoints(bytes: Buffer): number[] {
  const points = new Set<number>();
  for (let n = 0; n < Math.min(64, bytes.length); n++) points.add(n);
  for (let n = 64; n < bytes.length; n += Math.max(1, Math.floor(bytes.length / 40))) points.add(n);
  return [...points];
}

describe('decodeImage: whole still images pass', () => {
  it.each(Object.keys(SAMPLE_IMAGES) as Array<keyof typeof SAMPLE_IMAGES>)('the 1 x 1 sample %s', async (kind) => {
    expect(await decodeImage(typeOf(kind), sampleImage(kind))).toEqual({ ok: true });
  });

  it.each(Object.keys(PHOTOS) as Array<keyof typeof PHOTOS>)('the 48 x 32 photo %s', async (kind) => {
    expect(await decodeImage(typeOf(kind), photo(kind))).toEqual({ ok: true });
  });

  it('PNGs made here, and a baseline JPEG whose end-of-image marker is missing (common, and whole)', async () => {
    expect(await decodeImage('image/png', makePng(64, 64))).toEqual({ ok: true });
    expect(await decodeImage('image/png', makePng(300, 200, { colors: 'bw' }))).toEqual({ ok: true });
    const jpeg = photo('jpegBaseline');
    expect(jpeg.subarray(-2)).toEqual(Buffer.from([0xff, 0xd9]));
    expect(await decodeImage('image/jpeg', jpeg.subarray(0, -2))).toEqual({ ok: true });
  });
});

describe('decodeImage: data cut short or damaged is refused', () => {
  it.each([
    ['a PNG', 'image/png', makePng(64, 64)],
    ['a baseline JPEG', 'image/jpeg', photo('jpegBaseline')],
    ['a progressive JPEG', 'image/jpeg', photo('jpegProgressive')],
    ['a lossy WebP', 'image/webp', photo('webp')],
    ['a GIF', 'image/gif', sampleImage('gif')],
  ] as const)('%s cut anywhere (beyond its last few padding bits) is damaged, never a throw', async (_name, type, whole) => {
    const accepted: number[] = [];
    // The last 4 bytes of the baseline JPEG are its end marker and the final byte of padding bits.
    for (const n of cutPoints(whole).filter((n) => n < whole.length - 4)) {
      if ((await decodeImage(type, whole.subarray(0, n))).ok) accepted.push(n);
    }
    expect(accepted).toEqual([]);
  });

  it("the issue's truncated PNG", async () => {
    expect(await decodeImage('image/png', truncatedPng())).toEqual(DAMAGED);
  });

  it('a PNG whose image data is a whole zlib stream of too few rows, and one whose data is missing, each with an IEND', async () => {
    const whole = makePng(64, 64);
    const signatureAndHeader = whole.subarray(0, 8 + 25);
    const halfTheRows = deflateSync(Buffer.alloc(32 * (64 * 3 + 1)));
    expect(await decodeImage('image/png', Buffer.concat([signatureAndHeader, pngChunk('IDAT', halfTheRows), pngChunk('IEND')]))).toEqual(DAMAGED);
    expect(await decodeImage('image/png', Buffer.concat([signatureAndHeader, pngChunk('IEND')]))).toEqual(DAMAGED);
  });

  it('a JPEG cut short with an end marker put back after the cut', async () => {
    const jpeg = photo('jpegBaseline');
    const cut = Buffer.concat([jpeg.subarray(0, Math.floor(jpeg.length * 0.7)), Buffer.from([0xff, 0xd9])]);
    expect(await decodeImage('image/jpeg', cut)).toEqual(DAMAGED);
  });

  it('a JPEG whose scan data is garbled (libjpeg gives up: its worker is then due to start afresh)', async () => {
    const jpeg = Buffer.from(photo('jpegBaseline'));
    for (let at = 700; at < jpeg.length - 2; at += 23) jpeg[at] = jpeg[at]! ^ 0x5a;
    expect(await decodeImage('image/jpeg', jpeg)).toEqual(DAMAGED);
    expect(decodersNeedFreshStart()).toBe(true);
    // The decoder still answers for this image's thread meanwhile.
    expect(await decodeImage('image/jpeg', photo('jpegBaseline'))).toEqual({ ok: true });
  });

  it("a GIF whose frame's compressed data stops before its last pixel, but whose blocks are whole", async () => {
    // A 64 x 64 frame of noise, then its data sub-blocks halved: the file still ends properly.
    const gif = Buffer.from(animatedGif(1));
    const start = gif.indexOf(0x2c, 13 + 6) + 10 + 1; // image descriptor, then the LZW code size
    const blocks: Buffer[] = [];
    for (let at = start; gif[at] !== 0; at += 1 + gif[at]!) blocks.push(gif.subarray(at, at + 1 + gif[at]!));
    expect(blocks.length).toBeGreaterThan(0);
    const firstBlockOnly = Buffer.from(blocks[0]!);
    firstBlockOnly[0] = 1; // one byte of codes: far fewer than 64 pixels
    const short = Buffer.concat([gif.subarray(0, start), firstBlockOnly.subarray(0, 2), Buffer.from([0x00, 0x3b])]);
    expect(await decodeImage('image/gif', short)).toEqual(DAMAGED);
  });

  it("a GIF whose frame lies outside its logical screen (the size the bound was checked on)", async () => {
    const gif = Buffer.from(sampleImage('gif'));
    const descriptor = gif.indexOf(0x2c, 13 + 6);
    gif.writeUInt16LE(60_000, descriptor + 5); // the frame's width
    expect(await decodeImage('image/gif', gif)).toEqual(DAMAGED);
  });

  it('files that are not the type they are decoded as', async () => {
    expect(await decodeImage('image/png', sampleImage('jpeg'))).toEqual(DAMAGED);
    expect(await decodeImage('image/jpeg', sampleImage('png'))).toEqual(DAMAGED);
    expect(await decodeImage('image/webp', sampleImage('gif'))).toEqual(DAMAGED);
    expect(await decodeImage('image/gif', sampleImage('webp'))).toEqual(DAMAGED);
  });
});

describe('decodeImage: animations are refused before any frame is decoded', () => {
  it('a GIF of several frames', async () => {
    expect(await decodeImage('image/gif', animatedGif(3))).toEqual({ ok: false, problem: 'animated', frames: 3 });
    expect(await decodeImage('image/gif', animatedGif(1))).toEqual({ ok: true });
  });

  it('an APNG (its animation control chunk before the image data)', async () => {
    const frames = Buffer.from([0, 0, 0, 4, 0, 0, 0, 0]); // 4 frames, played forever
    expect(await decodeImage('image/png', makePng(8, 8, { before: [pngChunk('acTL', frames)] }))).toEqual({ ok: false, problem: 'animated', frames: 4 });
  });

  it('a WebP whose extended header says it is animated', async () => {
    const chunk = (fourCc: string, data: Buffer) => {
      const size = Buffer.alloc(4);
      size.writeUInt32LE(data.length);
      return Buffer.concat([Buffer.from(fourCc, 'latin1'), size, data, Buffer.alloc(data.length & 1)]);
    };
    const vp8x = Buffer.alloc(10);
    vp8x[0] = 0x02; // the animation flag
    vp8x.writeUIntLE(7, 4, 3); // canvas 8 x 8 (stored minus one)
    vp8x.writeUIntLE(7, 7, 3);
    const body = Buffer.concat([Buffer.from('WEBP', 'latin1'), chunk('VP8X', vp8x), chunk('ANIM', Buffer.alloc(6)), chunk('ANMF', Buffer.alloc(20)), chunk('ANMF', Buffer.alloc(20))]);
    const size = Buffer.alloc(4);
    size.writeUInt32LE(body.length);
    expect(await decodeImage('image/webp', Buffer.concat([Buffer.from('RIFF', 'latin1'), size, body]))).toEqual({ ok: false, problem: 'animated', frames: 2 });
  });
});
