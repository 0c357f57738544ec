import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../lib/errors.ts';
import { createImageThread } from './article-image-thread.ts';

const FAKE_WORKER = new URL('./article-image-thread.test-worker.ts', import.meta.url);
const bytes = new Uint8Array([1, 2, 3]);

/** Which thread answered (the fake worker's refusal names it). */
async function answeringThread(thread: ReturnType<typeof createImageThread>): Promise<string> {
  const outcome = await thread.process('image/png', bytes);
  if (outcome.ok) throw new Error('the fake worker always refuses');
  return outcome.refusal.message;
}

/**
 * The article images' worker thread (docs/decisions/0099): a hung, failing or dead thread turns
 * the upload away with a clear error and is replaced, never left to stall the next uploads.
 */
describe('the article image thread', () => {
  let thread: ReturnType<typeof createImageThread>;
  afterEach(() => thread.close());

  it('keeps one thread for uploads in a row', async () => {
    thread = createImageThread({ workerUrl: FAKE_WORKER });
    const first = await answeringThread(thread);
    expect(first).toMatch(/^thread \d+$/);
    expect(await answeringThread(thread)).toBe(first);
  });

  it('turns away an image over its time with 503 and a retry, and the next upload gets a new thread', async () => {
    // The time counts from the upload's sending, a new thread's start included, which the calls
    // before and after the hang also pay: at 300 ms a busy machine's thread start took longer.
    thread = createImageThread({ workerUrl: FAKE_WORKER, timeoutMs: 1_500 });
    const before = await answeringThread(thread);
    const late = await thread.process('hang', bytes).catch((err: unknown) => err);
    expect(late).toBeInstanceOf(AppError);
    expect(late).toMatchObject({ code: 'UNAVAILABLE', message: 'The image could not be processed in time. Please try again.' });
    const after = await answeringThread(thread);
    expect(after).not.toBe(before);
  });

  it.each([
    ['a failure it reports', 'fail', /the image thread failed: Error: the codec gave up/],
    ['an error thrown out of it', 'crash', /the codec crashed/],
    ['its exit', 'exit', /the image thread ended \(code 3\)/],
  ])('rejects on %s, and the next upload gets a new thread', async (_, behaviour, error) => {
    thread = createImageThread({ workerUrl: FAKE_WORKER });
    const before = await answeringThread(thread);
    await expect(thread.process(behaviour, bytes)).rejects.toThrow(error);
    const after = await answeringThread(thread);
    expect(after).not.toBe(before);
  });

  it('ends its thread when idle, and starts one again for the next upload', async () => {
    thread = createImageThread({ workerUrl: FAKE_WORKER, idleMs: 50 });
    const before = await answeringThread(thread);
    // Once idle, the same call is answered by another thread: wait for that condition.
    await expect.poll(() => answeringThread(thread), { timeout: 5_000, interval: 100 }).not.toBe(before);
  });

  it('on close, turns away what is in progress with 503', async () => {
    thread = createImageThread({ workerUrl: FAKE_WORKER });
    const pending = thread.process('hang', bytes).catch((err: unknown) => err);
    await thread.close();
    expect(await pending).toMatchObject({ code: 'UNAVAILABLE', message: 'The server is shutting down. Please try again.' });
  });
});
