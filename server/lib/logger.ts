import type { LoggerOptions } from 'pino';

/** Paths that may hold secrets; pino replaces them before a line is written. */
export const REDACTED_PATHS = [
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
];

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  };
}
