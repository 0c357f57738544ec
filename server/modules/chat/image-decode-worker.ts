import { parentPort } from 'node:worker_threads';
import type { TChatImageType } from '../../../contracts/chat.ts';
import { decodeImage } from './image-decode.ts';

/** The image worker (image-decoder.ts): decodes one image a message, answering with what it found. */
export type DecodeRequest = { id: number; type: TChatImageType; bytes: Uint8Array };

const port = parentPort;
if (!port) throw new Error('image-decode-worker.ts runs as a worker thread');
port.on('message', (request: DecodeRequest) => {
  void decodeImage(request.type, request.bytes).then((outcome) => port.postMessage({ id: request.id, outcome }));
});
