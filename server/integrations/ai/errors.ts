import { APICallError, RetryError } from 'ai';

/** Why a provider call ended without a full answer; each kind has one user-facing sentence. */
export type AiFailureKind = 'auth' | 'rate_limited' | 'unavailable' | 'timeout' | 'aborted' | 'failed';

/** A provider call that failed, with a message fit for the user and a cause fit for the log. */
export class AiCallError extends Error {
  readonly kind: AiFailureKind;
  /** What the log may say about the cause: status, error name, the provider's text, never keys. */
  readonly logCause: Record<string, unknown>;

  constructor(kind: AiFailureKind, message: string, logCause: Record<string, unknown>) {
    super(message);
    this.name = 'AiCallError';
    this.kind = kind;
    this.logCause = logCause;
  }
}

export function timeoutText(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} seconds` : `${ms} ms`;
}

export function userMessage(kind: AiFailureKind, label: string, timeoutMs: number): string {
  switch (kind) {
    case 'auth':
      return `The ${label} API key was rejected`;
    case 'rate_limited':
      return `${label} is rate limiting requests; try again shortly`;
    case 'unavailable':
      return `${label} is unavailable right now`;
    case 'timeout':
      return `${label} did not answer within ${timeoutText(timeoutMs)}`;
    case 'aborted':
      return 'The request was cancelled';
    case 'failed':
      return `${label} could not answer this request`;
  }
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EHOSTUNREACH', 'ETIMEDOUT', 'EPIPE', 'UND_ERR_SOCKET']);

/**
 * Sorts any error the SDK raises into a kind. Provider messages are not shown to users: an
 * OpenAI 401 text echoes part of the key, and others name internals. They go to the log only.
 */
export function classifyProviderError(err: unknown): { kind: AiFailureKind; logCause: Record<string, unknown> } {
  const error = RetryError.isInstance(err) ? err.lastError : err;
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    const logCause = { name: error.name, status, url: stripQuery(error.url), providerMessage: clip(error.message) };
    if (status === 401 || status === 403) return { kind: 'auth', logCause };
    if (status === 429) return { kind: 'rate_limited', logCause };
    // No status, 5xx, or a 2xx whose body broke off (the connection dropped mid-answer).
    if (status === undefined || status >= 500 || status < 300) return { kind: 'unavailable', logCause };
    return { kind: 'failed', logCause };
  }
  const logCause = { name: (error as Error | null)?.name, message: clip(String((error as Error | null)?.message ?? error)) };
  // Errors reported inside a stream (Anthropic's `overloaded_error`, a dropped connection).
  const text = `${(error as Error | null)?.message ?? ''}`.toLowerCase();
  if (/overloaded|unavailable|terminated|socket|fetch failed/.test(text) || hasNetworkCode(error)) {
    return { kind: 'unavailable', logCause };
  }
  if (/rate.?limit/.test(text)) return { kind: 'rate_limited', logCause };
  return { kind: 'failed', logCause };
}

function hasNetworkCode(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Shortens a provider's text for the log and masks anything that looks like a key: OpenAI's 401
 * says "Incorrect API key provided: sk-ab***xyz".
 */
function clip(text: string): string {
  const masked = text.replace(/[A-Za-z0-9_\-*.]{20,}/g, '[redacted]');
  return masked.length > 300 ? `${masked.slice(0, 300)}…` : masked;
}

/** Query strings can carry keys on some providers' URLs (Google's `?key=`); the log drops them. */
function stripQuery(url: string): string {
  return url.split('?')[0] ?? url;
}
