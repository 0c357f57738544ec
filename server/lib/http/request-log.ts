import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/** Query parameters whose values may be credentials (one-time codes, tokens, keys): never logged. */
const SECRET_QUERY_NAME = /^(code|state|sig|signature|password)$|token|secret|key|auth/i;

type LoggedRequest = { method?: string; url?: string; remoteAddress?: string };

/** What a request's log line shows of it: method, path and query (secret-looking values
 * replaced), and the client's address as Fastify computed it (TRUST_PROXY) or as connected.
 * Takes a Fastify request, a Node one, or its own result again (unchanged). */
export function requestForLog(req: LoggedRequest & { ip?: string; socket?: { remoteAddress?: string } }): LoggedRequest {
  return { method: req.method, url: req.url === undefined ? undefined : urlForLog(req.url), remoteAddress: req.ip ?? req.socket?.remoteAddress ?? req.remoteAddress };
}

function urlForLog(url: string): string {
  const at = url.indexOf('?');
  if (at === -1) return url;
  const query = new URLSearchParams(url.slice(at + 1));
  let hidden = false;
  for (const name of new Set(query.keys())) {
    if (SECRET_QUERY_NAME.test(name)) {
      query.set(name, '[redacted]');
      hidden = true;
    }
  }
  return hidden ? `${url.slice(0, at)}?${query.toString().replaceAll('%5Bredacted%5D', '[redacted]')}` : url;
}

/**
 * One log line per request, when it ends (Fastify's default is two: 'incoming request' and
 * 'request completed', 600 KB in 40 minutes of one person's use). The line has the request
 * (requestForLog, or its route's own `logSerializers.req`), the status, the time taken and the
 * signed-in user's id. A request whose connection closed before its answer finished (a stream
 * the browser left, a client gone) is logged too, saying so; one whose answer failed to send is
 * logged at error with the cause. Fastify's other lines (stream errors, 503s while closing) stay.
 */
export class OneLineRequestLog extends LogController {
  readonly #sendErrors = new WeakMap<FastifyReply, Error>();

  override incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    // 'close' comes after 'finish', and alone when the connection went first.
    reply.raw.once('close', () => this.#logEnd(request, reply));
  }

  override requestCompleted(error: Error | null | undefined, _request: FastifyRequest, reply: FastifyReply): void {
    if (error) this.#sendErrors.set(reply, error);
  }

  #logEnd(request: FastifyRequest, reply: FastifyReply): void {
    const userId = (request as { user?: { id?: string } | null }).user?.id;
    // Before its headers went, the status set so far was never sent.
    const line = { req: request, res: reply.raw.headersSent ? reply : { statusCode: null }, responseTime: Math.round(reply.elapsedTime * 10) / 10, ...(userId ? { userId } : {}) };
    const err = this.#sendErrors.get(reply);
    if (err) reply.log.error({ ...line, err }, 'request errored');
    else if (reply.raw.writableEnded) reply.log.info(line, 'request completed');
    else reply.log.info(line, 'request closed before its answer finished');
  }
}
