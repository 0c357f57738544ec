import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import { DEADLOCK_DETECTED, isDatabaseUnavailable, sqlState } from '../db-errors.ts';
import { QueueFullError } from '../fair-queue.ts';

/** One place where every error becomes the JSON of DESIGN section 5. No stack reaches a client. */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | AppError | Error, request, reply) => {
    const appError = toAppError(err, request.routeOptions.bodyLimit);
    if (appError) {
      if (appError.status >= 500) reply.header('cache-control', 'no-store');
      if (appError.retryAfterSeconds !== undefined) reply.header('retry-after', String(appError.retryAfterSeconds));
      return reply.status(appError.status).send(appError.toBody());
    }
    // Any other 4xx Fastify or a plugin raised: keep its status and say what it said.
    const status = (err as FastifyError).statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      request.log.info({ err }, 'client error');
      return reply.status(status).send({ error: STATUS_CODES[status] ?? 'Bad Request', message: err.message });
    }
    // Rows are locked in one order (docs/decisions/0063) and the known statements that change
    // many of them try again; should another cycle still make PostgreSQL abort a request's
    // transaction, nothing was changed and trying again works: a 503 that says so, not a 500.
    if (sqlState(err) === DEADLOCK_DETECTED) {
      request.log.warn({ err }, 'transaction aborted to break a deadlock');
      const busy = new AppError('UNAVAILABLE', 'The server was busy with the same records; please try again.');
      return reply.status(503).header('retry-after', '1').header('cache-control', 'no-store').send(busy.toBody());
    }
    if (isDatabaseUnavailable(err)) {
      request.log.error({ err }, 'database unavailable');
      const unavailable = new AppError('UNAVAILABLE', 'The database is unavailable. Please try again shortly.');
      return reply.status(503).header('retry-after', '5').header('cache-control', 'no-store').send(unavailable.toBody());
    }
    request.log.error({ err }, 'unhandled error');
    return reply.status(500).header('cache-control', 'no-store').send(new AppError('INTERNAL').toBody());
  });
}

/**
 * Fastify answers a URL it cannot route (a percent-escape that does not decode, a path
 * parameter over its length limit) itself, before any hook, in its own shape. Answer in ours:
 * a 400 that names the URL and what is wrong with it.
 */
export function answerFrameworkError(err: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const message =
    err.code === 'FST_ERR_BAD_URL'
      ? 'The URL has a percent-escape that is not valid UTF-8'
      : err.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? 'A path segment is too long'
        : 'The URL cannot be routed';
  const error = new AppError('BAD_REQUEST', 'Invalid request', [{ path: '(url)', message }]);
  void reply.status(error.status).send(error.toBody());
}

const megabytes = (bytes: number) => `${Number((bytes / (1024 * 1024)).toFixed(1))} MB`;

function toAppError(err: Error, bodyLimit: number | undefined): AppError | null {
  if (err instanceof AppError) return err;
  // Drizzle wraps what the driver threw in a query error of its own.
  const busy = err instanceof QueueFullError ? err : err.cause instanceof QueueFullError ? err.cause : null;
  if (busy) {
    return new AppError('UNAVAILABLE', `The server is busy. Please try again in ${busy.retryAfterSeconds} s.`, undefined, { retryAfterSeconds: busy.retryAfterSeconds });
  }
  switch ((err as FastifyError).code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      // The route's own limit (a document upload's is DOCUMENT_MAX_MB), else the app's 1 MB.
      return new AppError('PAYLOAD_TOO_LARGE', `Request body is larger than ${megabytes(bodyLimit ?? 1024 * 1024)}`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the request body as application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('BAD_REQUEST', 'Invalid request', [{ path: '(body)', message: 'Request body is not valid JSON' }]);
    default:
      return (err as FastifyError).statusCode === 429 ? new AppError('RATE_LIMITED', err.message) : null;
  }
}
