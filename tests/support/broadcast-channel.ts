import { BroadcastChannel } from 'node:worker_threads';

// A setup file of the client's tests (vitest.config.ts): the browser's BroadcastChannel, on which
// a Google sign-in's result arrives. happy-dom has none, and in vitest's VM pool a test sees
// happy-dom's globals only. Node's is the same API, and the one the tests used before, through
// Node's own globals.
globalThis.BroadcastChannel ??= BroadcastChannel;
