import { Worker } from 'node:worker_threads';
import { AppError } from '../../lib/errors.ts';
import type { processArticleImage } from './article-image-processing.ts';
import type { ImageJob, ImageJobAnswer } from './article-image-worker.ts';

const WORKER_URL = new URL('./article-image-worker.ts', import.meta.url);
const retryLater = (message: string) => new AppError('UNAVAILABLE', message, undefined, { retryAfterSeconds: 5 });

/** An upload sent to `worker`, waiting for its answer. */
type Pending = { worker: Worker; resolve(outcome: Awaited<ReturnType<typeof processArticleImage>>): void; reject(err: Error): void; timer: NodeJS.Timeout };

/**
 * processArticleImage in a worker thread (docs/decisions/0099): decoding, resizing and encoding a
 * photo is seconds of CPU that would otherwise stall every request of the web process. The
 * thread starts on the first upload and ends after `idleMs` without one (giving back the codecs'
 * memory), or at once after a failure or an image over `timeoutMs` (503). The caller (the images
 * service) sends one upload at a time.
 */
export function createImageThread({ timeoutMs = 60_000, idleMs = 30_000, workerUrl = WORKER_URL }: { timeoutMs?: number; idleMs?: number; workerUrl?: URL } = {}) {
  let thread: Worker | null = null;
  let idle: NodeJS.Timeout | null = null;
  let nextId = 0;
  const pending = new Map<number, Pending>();

  /** Ends `worker` and turns away the uploads it had; only its own: a thread ended after a
   * timeout reports its exit later, when the next upload may already be in a new thread. */
  function end(worker: Worker, err: Error): void {
    if (thread === worker) thread = null;
    void worker.terminate();
    for (const [id, job] of pending) {
      if (job.worker !== worker) continue;
      clearTimeout(job.timer);
      pending.delete(id);
      job.reject(err);
    }
  }

  function start(): Worker {
    const worker = new Worker(workerUrl);
    worker.unref(); // never what keeps the process alive
    worker.on('message', (answer: ImageJobAnswer) => {
      const job = pending.get(answer.id);
      if (!job) return;
      pending.delete(answer.id);
      clearTimeout(job.timer);
      if (answer.ok) job.resolve(answer.outcome);
      else {
        job.reject(new Error(`the image thread failed: ${answer.failure}`));
        end(worker, new Error('the image thread was ended after a failure'));
      }
      if (pending.size === 0) idle = setTimeout(() => thread === worker && pending.size === 0 && end(worker, new Error('idle')), idleMs).unref();
    });
    worker.on('error', (err) => end(worker, err));
    worker.on('exit', (code) => end(worker, new Error(`the image thread ended (code ${code})`)));
    return worker;
  }

  const process: typeof processArticleImage = (declaredType, bytes) =>
    new Promise((resolve, reject) => {
      if (idle) clearTimeout(idle);
      idle = null;
      const worker = (thread ??= start());
      const id = ++nextId;
      const timer = setTimeout(() => end(worker, retryLater('The image could not be processed in time. Please try again.')), timeoutMs);
      pending.set(id, { worker, resolve, reject, timer });
      // A copy of its own, handed over (the caller keeps its bytes).
      const copy = new Uint8Array(bytes);
      worker.postMessage({ id, declaredType, bytes: copy } satisfies ImageJob, [copy.buffer as ArrayBuffer]);
    });

  return {
    process,
    async close(): Promise<void> {
      if (idle) clearTimeout(idle);
      if (thread) end(thread, retryLater('The server is shutting down. Please try again.'));
    },
  };
}
