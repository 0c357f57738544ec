import { constants, createGzip } from 'node:zlib';
import type { Writable } from 'node:stream';
import type { FastifyReply } from 'fastify';

/**
 * Takes over the response for an answer written piece by piece (server-sent events, NDJSON).
 * Fastify's serialisation, compression and onSend hooks are bypassed (they would buffer the
 * stream), so the headers already set on the reply (security headers) are copied over here.
 *
 * `gzip`: compress when the client accepts it, flushing after every piece so each arrives at
 * once (a large final piece, like a backtest's result, shrinks several times over).
 */
export function openStream(reply: FastifyReply, contentType: string, { gzip = false }: { gzip?: boolean } = {}) {
  reply.hijack();
  const raw = reply.raw;
  const compress = gzip && /\bgzip\b/.test(String(reply.request.headers['accept-encoding'] ?? ''));
  raw.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>),
    'content-type': contentType,
    'cache-control': 'no-cache, no-store, no-transform',
    // Tells nginx-style proxies not to buffer the stream.
    'x-accel-buffering': 'no',
    connection: 'keep-alive',
    ...(compress ? { 'content-encoding': 'gzip', vary: 'accept-encoding' } : {}),
  });
  raw.flushHeaders();
  const gzipper = compress ? createGzip({ flush: constants.Z_SYNC_FLUSH }) : null;
  if (gzipper) {
    gzipper.pipe(raw);
    // The client went away: stop compressing for it.
    raw.once('close', () => gzipper.destroy());
  }
  const sink: Writable = gzipper ?? raw;
  const gone = () => raw.destroyed || raw.writableEnded || sink.destroyed || sink.writableEnded;

  /** Writes one piece; resolves when the socket can take more, or at once if it is gone. */
  function write(text: string): Promise<void> {
    if (gone()) return Promise.resolve();
    const ok = sink.write(text);
    if (ok) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        sink.off('drain', done);
        raw.off('close', done);
        resolve();
      };
      sink.on('drain', done);
      raw.on('close', done);
    });
  }

  function end(): void {
    if (!gone()) sink.end();
  }

  return { write, end };
}

/** An AbortSignal that fires when the client goes away before the answer is complete; aborted
 * at once when it went away already (while the handler was waiting for the database, say). */
export function clientGone(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  const gone = () => {
    if (!reply.raw.writableFinished) controller.abort(new Error('client disconnected'));
  };
  if (reply.raw.destroyed) gone();
  else reply.raw.once('close', gone);
  return controller.signal;
}
