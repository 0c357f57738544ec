import pino, { type LoggerOptions } from 'pino';
import { requestForLog } from './http/request-log.ts';

/** Paths that may hold secrets; pino replaces them before a line is written. */
const REDACTED_PATHS = [
  'req.headers.cookie',
  'req.headers.authorization',
  'res.headers["set-cookie"]',
  'headers.cookie',
  'headers.authorization',
  '*.password',
  '*.token',
  '*.accessToken',
  '*.idToken',
  '*.clientSecret',
  '*.apiKey',
  '*.sessionSecret',
  '*.smtpUrl',
  '*.api_key',
  '*.secretKey',
  '*.material',
  '*.signingSecret',
];

const MAX_CAUSE_DEPTH = 5;

/**
 * pino's error serializer, minus the bound values of a failed query. Drizzle's error carries
 * them three times (`params`, and in its message and stack, also when it is another error's
 * cause): users' data, and for the session lookup the token hash that keys the sessions table.
 * The SQL text stays, which is what a reader needs.
 */
function serializeError(err: Error): ReturnType<typeof pino.stdSerializers.err> {
  const serialized = pino.stdSerializers.err(err);
  const values: string[] = [];
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < MAX_CAUSE_DEPTH; e = e.cause, depth++) {
    const params = (e as { params?: unknown }).params;
    if (Array.isArray(params) && params.length > 0) values.push(`params: ${String(params)}`);
  }
  if (values.length === 0) return serialized;
  const hide = (text: string) => values.reduce((clean, v) => clean.split(v).join('params: [redacted]'), text);
  return {
    ...serialized,
    message: hide(serialized.message),
    stack: hide(serialized.stack),
    ...('params' in serialized ? { params: '[redacted]' } : {}),
  };
}

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    // `req`: Fastify's own serializer, minus the Host header and the port, with secret-looking
    // query values hidden (request-log.ts).
    serializers: { err: serializeError, req: requestForLog },
  };
}
