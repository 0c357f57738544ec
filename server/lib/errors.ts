import type { TApiError } from '../../contracts/errors.ts';

/** Error codes the services throw; each maps to one HTTP status and one `error` text. */
export const ERROR_CODES = {
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
    if (this.details) body.details = this.details;
    return body;
  }
}
