import { REQUEST_TIMEOUT_MS } from '../../contracts/constants.ts';

/** A failed API call: the message is SPEC's '{status}: {error, else message, else status text}'
 * with details in parentheses; status and parsed body ride along for callers that need them. */
export class ApiError extends Error {
  readonly status: number;
  readonly body: unknown;
  constructor(message: string, status: number, body: unknown) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
  }
}

export type RequestOptions = {
  timeoutMs?: number;
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /** Sent even if the page is closing (a delete made final as the tab closes: docs/decisions/0070). */
  keepalive?: boolean;
};

function formatDetails(details: unknown): string {
  if (Array.isArray(details)) {
    return details
      .map((d) => (d && typeof d === 'object' && 'message' in d ? `${'path' in d ? `${String(d.path)}: ` : ''}${String(d.message)}` : String(d)))
      .join('; ');
  }
  return typeof details === 'string' ? details : JSON.stringify(details);
}

async function toApiError(res: Response): Promise<ApiError> {
  const text = await res.text().catch(() => '');
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    return new ApiError(`${res.status}: ${text || res.statusText}`, res.status, text);
  }
  if (!body || typeof body !== 'object') return new ApiError(`${res.status}: ${text || res.statusText}`, res.status, body);
  const b = body as { error?: unknown; message?: unknown; details?: unknown };
  const main = typeof b.error === 'string' && b.error ? b.error : typeof b.message === 'string' && b.message ? b.message : res.statusText;
  const details = b.details !== undefined && b.details !== null ? ` (${formatDetails(b.details)})` : '';
  return new ApiError(`${res.status}: ${main}${details}`, res.status, body);
}

/**
 * The one way the client calls the API: JSON bodies, credentials always included, a timeout
 * (30 s unless told) that aborts with 'Request timeout after {ms}ms', a non-OK answer turned
 * into an ApiError, failures logged and rethrown; a request its caller aborts (`signal`) is
 * rethrown unlogged. Returns the OK response for the caller to read.
 */
export async function apiFetch(method: string, url: string, body?: unknown, options: RequestOptions = {}): Promise<Response> {
  const timeoutMs = options.timeoutMs ?? REQUEST_TIMEOUT_MS;
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  // The caller's reason travels on (TanStack Query's cancellation, a screen left).
  const onOuterAbort = () => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) onOuterAbort();
  else options.signal?.addEventListener('abort', onOuterAbort, { once: true });
  // A file's bytes go as they are (a document upload, issue 32); anything else as JSON.
  const raw = body instanceof Blob;
  try {
    const res = await fetch(url, {
      method,
      credentials: 'include',
      headers: { ...(body !== undefined ? { 'content-type': raw ? 'application/octet-stream' : 'application/json' } : {}), accept: 'application/json', ...options.headers },
      body: raw ? body : body !== undefined ? JSON.stringify(body) : undefined,
      signal: controller.signal,
      ...(options.keepalive ? { keepalive: true } : {}),
    });
    if (!res.ok) throw await toApiError(res);
    return res;
  } catch (err) {
    // The caller gave the request up (a query cancelled, a screen left): nothing failed.
    if (!timedOut && options.signal?.aborted) throw err;
    const error = timedOut ? new Error(`Request timeout after ${timeoutMs}ms`) : err;
    console.error(`${method} ${url} failed:`, error instanceof Error ? error.message : error);
    throw error;
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onOuterAbort);
  }
}

/** apiFetch, with the JSON body read (undefined for 204 or an empty body). */
export async function apiRequest<T>(method: string, url: string, body?: unknown, options: RequestOptions = {}): Promise<T> {
  const res = await apiFetch(method, url, body, options);
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

/** What to tell the user about a failed call: the server's own sentence when it sent one
 * ('Cannot remove the last admin'), else the error's message, else the fallback. SPEC's screens
 * (articles, sign-in, agents) show the error's message as thrown ('403: Forbidden'): they pass
 * `serverWords: false`. */
export function errorMessage(err: unknown, fallback = 'Please try again.', { serverWords = true }: { serverWords?: boolean } = {}): string {
  if (serverWords && err instanceof ApiError && err.body && typeof err.body === 'object' && 'message' in err.body && typeof err.body.message === 'string' && err.body.message) {
    return err.body.message;
  }
  return err instanceof Error && err.message ? err.message : fallback;
}
