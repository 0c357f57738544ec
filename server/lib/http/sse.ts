import type { FastifyReply } from 'fastify';
import { openStream } from './stream.ts';

export { clientGone } from './stream.ts';

/** Takes over the response for a Server-Sent Events stream (see openStream). */
export function openEventStream(reply: FastifyReply) {
  const stream = openStream(reply, 'text/event-stream; charset=utf-8');
  return {
    /** Writes one event; resolves when the socket can take more, or at once if it is gone. */
    send: (event: string, data: unknown): Promise<void> => stream.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`),
    end: stream.end,
  };
}
