import { Worker } from 'node:worker_threads';
import { AppError } from '../../lib/errors.ts';
import type { ExtractInput, ReadDocument } from './extract.ts';
import type { ExtractAnswer } from './extract-worker.ts';
import { ExtractionLimitError } from './extraction-error.ts';

export type Extractor = {
  /** The document's passages, read in a worker thread; ExtractionLimitError past a bound, Error when its library cannot read it, 503 when busy or too slow. */
  read(input: ExtractInput): Promise<ReadDocument>;
  close(): Promise<void>;
};

export type ExtractorOptions = {
  /** Documents read at once per process (each in its own thread): 2, the machine's cores. */
  concurrency?: number;
  /** Documents waiting beyond those; more are refused at once (503): 8. */
  maxQueued?: number;
  /** One document longer than this ends its thread (503): 60 s. */
  timeoutMs?: number;
  /** A thread's heap: a file that makes a library allocate past it fails alone, not the server. */
  heapMb?: number;
};

const WORKER_URL = new URL('./extract-worker.ts', import.meta.url);
const retryLater = (message: string) => new AppError('UNAVAILABLE', message, undefined, { retryAfterSeconds: 5 });

/**
 * Reading a document (its text, then its passages) is CPU and memory the web process should not spend on its event loop
 * (mammoth reads a whole DOCX in one go; pdf.js parses on the thread it runs on): each upload's
 * extraction runs in a worker thread of its own, with a bounded heap and a time limit, at most
 * `concurrency` at once and a short queue behind them. A thread is started per document and
 * ended after it, so nothing one file left behind (memory, a library's state) meets the next.
 */
export function createExtractor({ concurrency = 2, maxQueued = 8, timeoutMs = 60_000, heapMb = 512 }: ExtractorOptions = {}): Extractor {
  let running = 0;
  const waiting: Array<() => void> = [];
  const threads = new Set<Worker>();
  let closed = false;

  async function slot(): Promise<void> {
    if (running < concurrency) {
      running++;
      return;
    }
    if (waiting.length >= maxQueued) throw retryLater('Many documents are being read right now. Please try again in a few seconds.');
    await new Promise<void>((resolve) => waiting.push(resolve));
  }
  function release(): void {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }

  function run(input: ExtractInput): Promise<ReadDocument> {
    return new Promise<ReadDocument>((resolve, reject) => {
      // A copy of its own, handed over (the caller keeps its bytes).
      const bytes = new Uint8Array(input.bytes);
      const thread = new Worker(WORKER_URL, { workerData: { ...input, bytes }, transferList: [bytes.buffer], resourceLimits: { maxOldGenerationSizeMb: heapMb } });
      threads.add(thread);
      let settled = false;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        threads.delete(thread);
        void thread.terminate();
        outcome();
      };
      const timer = setTimeout(() => settle(() => reject(retryLater('The document could not be read in time.'))), timeoutMs);
      thread.on('message', (answer: ExtractAnswer) =>
        settle(() => {
          if (answer.ok) resolve(answer.read);
          else if ('limit' in answer) reject(new ExtractionLimitError(answer.limit));
          else reject(new Error(answer.failure));
        }),
      );
      // Out of memory (ERR_WORKER_OUT_OF_MEMORY) or a crash: the file could not be read.
      thread.on('error', (err) => settle(() => reject(err)));
      thread.on('exit', (code) => settle(() => reject(new Error(`the extraction thread ended (code ${code})`))));
    });
  }

  return {
    async read(input) {
      if (closed) throw retryLater('The server is shutting down. Please try again.');
      await slot();
      try {
        return await run(input);
      } finally {
        release();
      }
    },
    async close() {
      closed = true;
      await Promise.all([...threads].map((t) => t.terminate()));
    },
  };
}
