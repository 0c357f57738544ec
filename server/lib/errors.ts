import type { TApiError } from '../../contracts/errors.ts';

/** Error codes the services throw; each maps to one HTTP status and one `error` text. */
const ERROR_CODES = {
  BAD_REQUEST: { status: 400, error: 'Invalid request' },
  UNAUTHORIZED: { status: 401, error: 'Unauthorized' },
  FORBIDDEN: { status: 403, error: 'Forbidden' },
  NOT_FOUND: { status: 404, error: 'Not Found' },
  CONFLICT: { status: 409, error: 'Conflict' },
  PAYLOAD_TOO_LARGE: { status: 413, error: 'Payload Too Large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, error: 'Unsupported Media Type' },
  RATE_LIMITED: { status: 429, error: 'Too Many Requests' },
  INTERNAL: { status: 500, error: 'Internal Server Error' },
  BAD_GATEWAY: { status: 502, error: 'Bad Gateway' },
  UNAVAILABLE: { status: 503, error: 'Service Unavailable' },
  GATEWAY_TIMEOUT: { status: 504, error: 'Gateway Timeout' },
} as const;
export type ErrorCode = keyof typeof ERROR_CODES;

export type ErrorDetail = { path: string; message: string };

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;
  /** Sent as `Retry-After` (429, 503): when the client may try again. */
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, message?: string, details?: ErrorDetail[], options: { retryAfterSeconds?: number } = {}) {
    super(message ?? ERROR_CODES[code].error);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  get status(): number {
    return ERROR_CODES[this.code].status;
  }

  toBody(): TApiError {
    const body: TApiError = { error: ERROR_CODES[this.code].error };
    if (this.message && this.message !== body.error) body.message = this.message;
    if (this.details) body.details = boundedDetails(this.details);
    return body;
  }
}

/** An answer names at most this many problems, then one more detail counting the rest. */
const MAX_ERROR_DETAILS = 20;
/** Longest path or message a detail carries: a key or a value from the request can be huge. */
const MAX_DETAIL_TEXT = 200;

/**
 * Keeps an error answer small whatever the request held: 50,000 unknown keys are one zod
 * issue whose message lists every key, and a huge array can fail item by item. The answer
 * names the first problems, each clipped, and counts the rest.
 */
export function boundedDetails(details: ErrorDetail[]): ErrorDetail[] {
  const shown = details.slice(0, MAX_ERROR_DETAILS).map(({ path, message }) => ({ path: clip(path), message: clip(message) }));
  const rest = details.length - shown.length;
  if (rest > 0) shown.push({ path: '(more)', message: `${rest} more problem${rest === 1 ? '' : 's'} not listed` });
  return shown;
}

function clip(text: string): string {
  if (text.length <= MAX_DETAIL_TEXT) return text;
  let end = MAX_DETAIL_TEXT - 1;
  // Never cut a surrogate pair in two (half of one is text PostgreSQL and JSON readers refuse).
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}
