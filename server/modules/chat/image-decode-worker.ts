import { parentPort } from 'node:worker_threads';
import type { TChatImageType } from '../../../contracts/chat.ts';
import type { DecodeOutcome } from './image-decode.ts';
import { decodeImage, decodersNeedFreshStart } from './image-decode.ts';

/** The image worker (image-decoder.ts): decodes one image a message, answering with what it found
 * and whether it should be ended after this image (a decoder threw). */
export type DecodeRequest = { id: number; type: TChatImageType; bytes: Uint8Array };
export type DecodeAnswer = { id: number; outcome: DecodeOutcome; retire: boolean };

const port = parentPort;
if (!port) throw new Error('image-decode-worker.ts runs as a worker thread');
port.on('message', (request: DecodeRequest) => {
  void decodeImage(request.type, request.bytes).then((outcome) => {
    const answer: DecodeAnswer = { id: request.id, outcome, retire: decodersNeedFreshStart() };
    port.postMessage(answer);
  });
});
