import { sendOutbound, type OutboundOptions } from '../outbound/send-outbound.ts';
import { OutboundError } from '../outbound/outbound-error.ts';

/** Hops a page may redirect through before it is given up (browsers allow 20; pages rarely need 3). */
export const MAX_REDIRECTS = 5;

export type FetchedPage = { url: string; contentType: string; body: string };

/** Why a page was left out, for the log (with scheme and host only). */
export class PageFetchError extends Error {
  readonly reason: 'refused' | 'status' | 'too-big' | 'not-html' | 'too-many-redirects' | 'timeout';
  readonly detail: { target?: string; status?: number; kind?: string };

  constructor(reason: PageFetchError['reason'], detail: PageFetchError['detail'] = {}) {
    super(`page left out: ${reason}`);
    this.name = 'PageFetchError';
    this.reason = reason;
    this.detail = detail;
  }
}

/**
 * A web page through the outbound door (docs/decisions/0040, 0081): every hop's URL is checked
 * as a new user-supplied URL (public addresses only, https), a redirect is followed by hand so
 * its target is checked before anything connects to it, the whole fetch has one deadline, and
 * the body is read to `maxBytes` only: a page over it is left out, not cut (half a page read as
 * if whole could mislead the answer).
 */
export async function fetchPage(
  url: string,
  options: OutboundOptions & { maxBytes: number; timeoutMs: number; signal: AbortSignal },
): Promise<FetchedPage> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = AbortSignal.any([options.signal, deadline]);
  const started = Date.now();
  let current = url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const left = options.timeoutMs - (Date.now() - started);
    if (left <= 0) throw new PageFetchError('timeout', { target: targetOf(current) });
    let response;
    try {
      response = await sendOutbound(
        {
          url: current,
          method: 'GET',
          headers: { accept: 'text/html,application/xhtml+xml,text/plain;q=0.8', 'accept-language': 'en' },
          timeoutMs: left,
          signal,
          redirects: 'return',
        },
        // One byte over the bound tells a page at the bound from one over it.
        { ...options, maxResponseBytes: options.maxBytes + 1 },
      );
    } catch (err) {
      if (options.signal.aborted) throw err;
      if (err instanceof OutboundError) {
        throw new PageFetchError(err.kind === 'timeout' || deadline.aborted ? 'timeout' : 'refused', { ...err.detail, kind: err.kind });
      }
      if (deadline.aborted) throw new PageFetchError('timeout', { target: targetOf(current) });
      throw err;
    }
    const { status, headers } = response;
    if (status >= 300 && status < 400) {
      const location = headers.location;
      if (!location) throw new PageFetchError('status', { target: targetOf(current), status });
      current = new URL(location, current).href;
      continue;
    }
    if (status !== 200) throw new PageFetchError('status', { target: targetOf(current), status });
    if (response.truncated || Number(headers['content-length'] ?? 0) > options.maxBytes) throw new PageFetchError('too-big', { target: targetOf(current) });
    const contentType = (headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (!['text/html', 'application/xhtml+xml', 'text/plain', ''].includes(contentType)) {
      throw new PageFetchError('not-html', { target: targetOf(current) });
    }
    return { url: current, contentType: contentType || 'text/html', body: response.body };
  }
  throw new PageFetchError('too-many-redirects', { target: targetOf(current) });
}

function targetOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}`;
  } catch {
    return undefined;
  }
}
