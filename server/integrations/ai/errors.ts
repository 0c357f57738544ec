import { APICallError, RetryError } from 'ai';

/** Why a provider call ended without a full answer; each kind has one user-facing sentence. */
export type AiFailureKind =
  | 'auth'
  | 'quota'
  | 'rate_limited'
  | 'model_unavailable'
  | 'unreachable'
  | 'unavailable'
  | 'timeout'
  | 'aborted'
  | 'connection_lost'
  | 'failed';

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
    case 'quota':
      return `The ${label} account has no credit left; please tell the administrator`;
    case 'rate_limited':
      return `${label} is rate limiting requests; try again shortly`;
    case 'model_unavailable':
      return `${label} does not offer this model right now`;
    case 'unreachable':
      return `${label} cannot be reached right now`;
    case 'unavailable':
      return `${label} is unavailable right now`;
    case 'timeout':
      return `${label} did not answer within ${timeoutText(timeoutMs)}`;
    case 'aborted':
      return 'The request was cancelled';
    case 'connection_lost':
      return `${label} closed the connection before the answer was complete`;
    case 'failed':
      return `${label} could not answer this request`;
  }
}

/** Connection failures before any answer: the host is down, unknown or not listening. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT']);
/** Connections that broke off once established. */
const BROKEN_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

/**
 * Body texts that tell kinds apart where the status does not: Gemini and xAI refuse a bad key
 * with 400 (Gemini's reason API_KEY_INVALID, xAI's "Incorrect API key provided"); OpenAI's
 * exhausted credit is a 429 `insufficient_quota`, xAI's a 429 "used all available credits",
 * DeepSeek's a 402 "Insufficient Balance", Anthropic's a 400 "credit balance is too low".
 */
const KEY_REFUSED = /api_key_invalid|incorrect api key|invalid api key|invalid x-api-key|api key not valid/;
const NO_CREDIT = /insufficient_quota|insufficient balance|credit balance is too low|used all available credits/;
/** An unknown model is a 404 everywhere but at DeepSeek, which answers 400 "Model Not Exist". */
const NO_MODEL = /model not exist|model_not_found/;

/**
 * Sorts any error the SDK raises into a kind. Provider messages are not shown to users: an
 * OpenAI 401 text echoes part of the key, and others name internals. They go to the log only.
 */
export function classifyProviderError(err: unknown): { kind: AiFailureKind; logCause: Record<string, unknown> } {
  const error = RetryError.isInstance(err) ? err.lastError : err;
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    const logCause = { name: error.name, status, url: displayUrl(error.url), providerMessage: clip(error.message), code: networkCode(error) };
    const body = `${error.responseBody ?? ''} ${error.message}`.toLowerCase();
    if (status === undefined && UNREACHABLE_CODES.has(networkCode(error) ?? '')) return { kind: 'unreachable', logCause };
    if (status === 401 || status === 403 || (status === 400 && KEY_REFUSED.test(body))) return { kind: 'auth', logCause };
    if (status === 402 || ((status === 429 || status === 400) && NO_CREDIT.test(body))) return { kind: 'quota', logCause };
    if (status === 429) return { kind: 'rate_limited', logCause };
    if (status === 404 || (status === 400 && NO_MODEL.test(body))) return { kind: 'model_unavailable', logCause };
    // No status, 5xx, or a 2xx whose body broke off (the connection dropped mid-answer).
    if (status === undefined || status >= 500 || status < 300) return { kind: 'unavailable', logCause };
    return { kind: 'failed', logCause };
  }
  const logCause = { name: (error as Error | null)?.name, message: clip(describe(error)), code: networkCode(error) };
  const code = networkCode(error);
  if (code && UNREACHABLE_CODES.has(code)) return { kind: 'unreachable', logCause };
  // Errors reported inside a stream: the provider's server failed mid-answer (Anthropic's
  // `overloaded_error`, OpenAI's `server_error` event) or the connection dropped.
  const text = describe(error).toLowerCase();
  if (/overloaded|unavailable|server_error|api_error|internal|terminated|socket|fetch failed/.test(text) || (code && BROKEN_CODES.has(code))) {
    return { kind: 'unavailable', logCause };
  }
  if (/rate.?limit/.test(text)) return { kind: 'rate_limited', logCause };
  return { kind: 'failed', logCause };
}

/**
 * An error inside a stream is often the provider's event, not an Error: `{type:
 * 'overloaded_error', message: '...'}` (Anthropic) or `{type: 'error', error: {...}}`.
 */
function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (error && typeof error === 'object') {
    try {
      return JSON.stringify(error);
    } catch {
      return String(error);
    }
  }
  return String(error);
}

/** The socket error's code (ECONNREFUSED, ...) anywhere in the cause chain. */
function networkCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (UNREACHABLE_CODES.has(code) || BROKEN_CODES.has(code))) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * A URL fit to show an admin or log: no user, password, query or fragment (query strings carry
 * keys on some providers' URLs, Google's `?key=`; a base URL may carry a proxy's password).
 */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    parsed.search = '';
    parsed.hash = '';
    return parsed.toString().replace(/\/+$/, '');
  } catch {
    return '(not a valid URL)';
  }
}

/**
 * Shortens a provider's text for the log and masks anything that looks like a key: OpenAI's 401
 * says "Incorrect API key provided: sk-ab***xyz".
 */
function clip(text: string): string {
  const masked = text.replace(/[A-Za-z0-9_\-*.]{20,}/g, '[redacted]');
  return masked.length > 300 ? `${masked.slice(0, 300)}…` : masked;
}
