import { parentPort, workerData } from 'node:worker_threads';
import { readDocument, type ExtractInput, type ReadDocument } from './extract.ts';
import { ExtractionLimitError } from './extraction-error.ts';

/** One document's extraction and split into passages in a thread of its own (extractor.ts): the input comes as workerData, one answer goes back. */
export type ExtractAnswer = { ok: true; read: ReadDocument } | { ok: false; limit: string } | { ok: false; failure: string };

const port = parentPort;
if (!port) throw new Error('extract-worker.ts runs as a worker thread');
readDocument(workerData as ExtractInput).then(
  (read) => port.postMessage({ ok: true, read } satisfies ExtractAnswer),
  (err: unknown) =>
    port.postMessage(
      (err instanceof ExtractionLimitError ? { ok: false, limit: err.message } : { ok: false, failure: err instanceof Error ? `${err.name}: ${err.message}` : String(err) }) satisfies ExtractAnswer,
    ),
);
