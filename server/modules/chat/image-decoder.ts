import { Worker } from 'node:worker_threads';
import type { FastifyBaseLogger as Logger } from 'fastify';
import type { TChatImageType } from '../../../contracts/chat.ts';
import { AppError } from '../../lib/errors.ts';
import type { DecodeOutcome } from './image-decode.ts';
import type { DecodeAnswer, DecodeRequest } from './image-decode-worker.ts';

export type ImageDecoder = {
  /** Decodes the image off the event loop; 503 when the worker is busy past its queue, too slow or fails. */
  decode(type: TChatImageType, bytes: Uint8Array): Promise<DecodeOutcome>;
  /** Ends the worker; decodes still queued fail. */
  close(): Promise<void>;
};

export type ImageDecoderOptions = {
  logger: Pick<Logger, 'warn' | 'error'>;
  /** One image longer than this ends the worker (a decoder that never finishes): 20 s. */
  timeoutMs?: number;
  /** The worker ends after this long without work, giving back the codecs' memory: 30 s. */
  idleMs?: number;
  /** Images waiting beyond the one being decoded; more are refused at once: 16. */
  maxQueued?: number;
  /** The worker's script (tests give one that misbehaves). */
  workerUrl?: URL;
};

type Job = { id: number; type: TChatImageType; bytes: Uint8Array; resolve(outcome: DecodeOutcome): void; reject(err: Error): void };

const WORKER_URL = new URL('./image-decode-worker.ts', import.meta.url);
const retryLater = (message: string) => new AppError('UNAVAILABLE', message, undefined, { retryAfterSeconds: 5 });

/**
 * Decoding a photo is hundreds of milliseconds of CPU (docs/decisions/0064): done on the web
 * process's event loop, it would stall every stream and request meanwhile. One worker thread per
 * process decodes one image at a time, so a burst of uploads takes at most one core and one
 * image's memory; the rest wait in a short queue. The worker starts on the first image and ends
 * when idle (the WebAssembly codecs keep the memory of the largest image they decoded), or after
 * an image a decoder threw on (it may have left memory behind).
 */
export function createImageDecoder({ logger, timeoutMs = 20_000, idleMs = 30_000, maxQueued = 16, workerUrl = WORKER_URL }: ImageDecoderOptions): ImageDecoder {
  const queue: Job[] = [];
  let worker: Worker | null = null;
  let current: { job: Job; timer: NodeJS.Timeout } | null = null;
  let idleTimer: NodeJS.Timeout | null = null;
  let nextId = 0;
  let closed = false;

  function start(): Worker {
    const thread = new Worker(workerUrl);
    thread.unref(); // never what keeps the process alive
    thread.on('message', ({ id, outcome, retire }: DecodeAnswer) => {
      if (current?.job.id !== id) return;
      if (retire) {
        // A decoder threw in it: the next image gets a fresh worker.
        if (worker === thread) worker = null;
        void thread.terminate();
      }
      finish()?.resolve(outcome);
    });
    thread.on('error', (err) => {
      logger.error({ err }, 'the image worker failed');
      stop(thread, retryLater('The image could not be checked. Please try again.'));
    });
    thread.on('exit', (code) => {
      if (worker !== thread) return;
      if (current) logger.error({ code }, 'the image worker ended while decoding');
      stop(thread, retryLater('The image could not be checked. Please try again.'));
    });
    return thread;
  }

  /** Ends the worker; the image it was decoding fails with `err`, and the next one starts a new worker. */
  function stop(thread: Worker, err: Error): void {
    if (worker === thread) worker = null;
    void thread.terminate();
    finish()?.reject(err);
    pump();
  }

  function finish(): Job | null {
    if (!current) return null;
    clearTimeout(current.timer);
    const { job } = current;
    current = null;
    queueMicrotask(pump);
    return job;
  }

  function pump(): void {
    if (current || closed) return;
    const job = queue.shift();
    if (!job) {
      idleTimer ??= setTimeout(() => {
        idleTimer = null;
        if (worker && !current && queue.length === 0) {
          void worker.terminate();
          worker = null;
        }
      }, idleMs).unref();
      return;
    }
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = null;
    worker ??= start();
    const thread = worker;
    const timer = setTimeout(() => {
      logger.warn({ type: job.type, bytes: job.bytes.length, timeoutMs }, 'an image took too long to decode: the image worker was ended');
      stop(thread, retryLater('The image could not be checked in time. Please try again.'));
    }, timeoutMs);
    current = { job, timer };
    const request: DecodeRequest = { id: job.id, type: job.type, bytes: job.bytes };
    thread.postMessage(request, [job.bytes.buffer as ArrayBuffer]);
  }

  return {
    decode(type, bytes) {
      if (closed) return Promise.reject(retryLater('The server is shutting down. Please try again.'));
      if (queue.length >= maxQueued) {
        logger.warn({ queued: queue.length }, 'images are waiting to be decoded: an upload was turned away');
        return Promise.reject(retryLater('Many images are being checked right now. Please try again in a few seconds.'));
      }
      return new Promise<DecodeOutcome>((resolve, reject) => {
        // A copy of its own, handed to the worker (the caller keeps its bytes to store).
        queue.push({ id: ++nextId, type, bytes: new Uint8Array(bytes), resolve, reject });
        pump();
      });
    },
    async close() {
      closed = true;
      if (idleTimer) clearTimeout(idleTimer);
      const err = retryLater('The server is shutting down. Please try again.');
      for (const job of queue.splice(0)) job.reject(err);
      const thread = worker;
      worker = null;
      finish()?.reject(err);
      if (thread) await thread.terminate();
    },
  };
}
