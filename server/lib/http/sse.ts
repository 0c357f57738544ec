import type { FastifyReply } from 'fastify';

/**
 * Takes over the response for a Server-Sent Events stream. Fastify's serialisation, compression
 * and onSend hooks are bypassed (they would buffer the stream), so the headers already set on
 * the reply (security headers) are copied over here.
 */
export function openEventStream(reply: FastifyReply) {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    // Tells nginx-style proxies not to buffer the stream.
    'x-accel-buffering': 'no',
    connection: 'keep-alive',
  });
  raw.flushHeaders();

  /** Writes one event; resolves when the socket can take more, or at once if it is gone. */
  function send(event: string, data: unknown): Promise<void> {
    if (raw.destroyed || raw.writableEnded) return Promise.resolve();
    const ok = raw.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    if (ok) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        raw.off('drain', done);
        raw.off('close', done);
        resolve();
      };
      raw.on('drain', done);
      raw.on('close', done);
    });
  }

  function end(): void {
    if (!raw.destroyed && !raw.writableEnded) raw.end();
  }

  return { send, end };
}

/** An AbortSignal that fires when the client goes away before the answer is complete. */
export function clientGone(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort(new Error('client disconnected'));
  });
  return controller.signal;
}
