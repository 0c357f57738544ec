import { parentPort } from 'node:worker_threads';

// An image worker that dies on its first image (as one out of memory would).
parentPort?.on('message', () => {
  throw new Error('the decoder crashed');
});
