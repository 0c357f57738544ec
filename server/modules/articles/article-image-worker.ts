import { parentPort } from 'node:worker_threads';
import { processArticleImage } from './article-image-processing.ts';

/** The article images' worker thread (article-image-thread.ts): one upload a message, checked
 * and made into its variants, one answer each. */
export type ImageJob = { id: number; declaredType: string; bytes: Uint8Array };
export type ImageJobAnswer = { id: number } & ({ ok: true; outcome: Awaited<ReturnType<typeof processArticleImage>> } | { ok: false; failure: string });

const port = parentPort;
if (!port) throw new Error('article-image-worker.ts runs as a worker thread');
port.on('message', ({ id, declaredType, bytes }: ImageJob) => {
  processArticleImage(declaredType, bytes).then(
    (outcome) => port.postMessage({ id, ok: true, outcome } satisfies ImageJobAnswer),
    (err: unknown) => port.postMessage({ id, ok: false, failure: err instanceof Error ? `${err.name}: ${err.message}` : String(err) } satisfies ImageJobAnswer),
  );
});
