import { parentPort } from 'node:worker_threads';

// An image worker whose decoder never finishes: it takes the message and never answers.
parentPort?.on('message', () => {});
