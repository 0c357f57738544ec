import { afterEach, describe, expect, it } from 'vitest';
import { photo, sampleImage, truncatedPng } from '../../../tests/fakes/sample-images.ts';
import { AppError } from '../../lib/errors.ts';
import { memoryLogger } from '../../test/memory-logger.ts';
import { createImageDecoder, type ImageDecoder } from './image-decoder.ts';

// The image worker (docs/decisions/0064): images are decoded off the event loop, one at a time,
// and a worker that hangs or dies costs one answer, never the server.

const { logger, lines } = memoryLogger();
/** What was logged: each line's level (pino's 40 warn, 50 error) and message. */
const logged = () => lines.map((line) => ({ level: line.level === 50 ? 'error' : 'warn', msg: line.msg }));
const workers = (name: string) => new URL(`../../test/image-workers/${name}.ts`, import.meta.url);

let decoder: ImageDecoder | undefined;
afterEach(async () => {
  await decoder?.close();
  decoder = undefined;
  lines.length = 0;
});

/** The AppError a promise rejected with. */
async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const err = await promise.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

describe('createImageDecoder', () => {
  it('decodes in a worker thread, one image after another, and leaves the caller its bytes', async () => {
    decoder = createImageDecoder({ logger });
    const png = sampleImage('png');
    const outcomes = await Promise.all([decoder.decode('image/png', png), decoder.decode('image/png', truncatedPng()), decoder.decode('image/jpeg', photo('jpegBaseline'))]);
    expect(outcomes).toEqual([{ ok: true }, { ok: false, problem: 'damaged' }, { ok: true }]);
    expect(png.equals(sampleImage('png'))).toBe(true);
  });

  it('goes on decoding after an image a decoder gave up on (in a fresh worker)', async () => {
    decoder = createImageDecoder({ logger });
    const garbled = Buffer.from(photo('jpegBaseline'));
    for (let at = 700; at < garbled.length - 2; at += 23) garbled[at] = garbled[at]! ^ 0x5a;
    expect(await decoder.decode('image/jpeg', garbled)).toEqual({ ok: false, problem: 'damaged' });
    expect(await decoder.decode('image/jpeg', photo('jpegBaseline'))).toEqual({ ok: true });
    expect(logged()).toEqual([]);
  });

  it('turns away images beyond its queue at once with a 503 to try again', async () => {
    decoder = createImageDecoder({ logger, maxQueued: 1, workerUrl: workers('hang') });
    const first = decoder.decode('image/png', sampleImage('png')); // taken by the worker
    const second = decoder.decode('image/png', sampleImage('png')); // waits
    const third = await refusal(decoder.decode('image/png', sampleImage('png')));
    expect([third.status, third.message, third.retryAfterSeconds]).toEqual([503, 'Many images are being checked right now. Please try again in a few seconds.', 5]);
    expect(logged()).toEqual([{ level: 'warn', msg: 'images are waiting to be decoded: an upload was turned away' }]);
    // Closing fails what is still waiting, as 503s too.
    const ended = [first, second].map(refusal);
    await decoder.close();
    for (const err of await Promise.all(ended)) expect(err.status).toBe(503);
  });

  it('ends a worker that takes too long, answers 503 for that image, and decodes the next in a new worker', async () => {
    const hanging = createImageDecoder({ logger, timeoutMs: 300, workerUrl: workers('hang') });
    decoder = hanging;
    const err = await refusal(hanging.decode('image/png', sampleImage('png')));
    expect([err.status, err.message]).toEqual([503, 'The image could not be checked in time. Please try again.']);
    expect(logged()).toContainEqual({ level: 'warn', msg: 'an image took too long to decode: the image worker was ended' });
    await hanging.close();

    decoder = createImageDecoder({ logger, timeoutMs: 60_000 });
    expect(await decoder.decode('image/png', sampleImage('png'))).toEqual({ ok: true });
  });

  it('answers 503 for the image a crashing worker was decoding, logs why, and starts a new worker for the next', async () => {
    decoder = createImageDecoder({ logger, workerUrl: workers('crash') });
    const err = await refusal(decoder.decode('image/png', sampleImage('png')));
    expect([err.status, err.message]).toEqual([503, 'The image could not be checked. Please try again.']);
    expect(logged()).toContainEqual({ level: 'error', msg: 'the image worker failed' });
    // The next image gets a worker of its own (this one crashes too: the point is it is asked).
    expect((await refusal(decoder.decode('image/png', sampleImage('png')))).status).toBe(503);
    expect(logged().filter((l) => l.msg === 'the image worker failed')).toHaveLength(2);
  });

  it('after close, refuses new images', async () => {
    decoder = createImageDecoder({ logger });
    await decoder.close();
    expect((await refusal(decoder.decode('image/png', sampleImage('png')))).status).toBe(503);
  });
});
