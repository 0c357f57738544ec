import { parentPort, threadId } from 'node:worker_threads';
import type { ImageJob, ImageJobAnswer } from './article-image-worker.ts';

/**
 * A stand-in for article-image-worker.ts in article-image-thread.test.ts: the declared type says
 * how it behaves, so the thread's failure paths can be driven without a real image. 'hang' never
 * answers, 'fail' answers a failure, 'crash' throws out of the handler (the thread's 'error'),
 * 'exit' ends the thread; anything else answers (a refusal) with the thread's id.
 */
const port = parentPort!;
port.on('message', ({ id, declaredType }: ImageJob) => {
  if (declaredType === 'hang') return;
  if (declaredType === 'fail') return port.postMessage({ id, ok: false, failure: 'Error: the codec gave up' } satisfies ImageJobAnswer);
  if (declaredType === 'crash') throw new Error('the codec crashed');
  if (declaredType === 'exit') process.exit(3);
  port.postMessage({ id, ok: true, outcome: { ok: false, refusal: { path: 'data', message: `thread ${threadId}` } } } satisfies ImageJobAnswer);
});
