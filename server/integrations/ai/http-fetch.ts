import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';

/**
 * The `fetch` the AI SDK providers are given: the same contract for what they use (a POST of a
 * JSON string, a streamed response), on node:http with kept-alive sockets. Node's built-in
 * fetch costs ~2 ms more per call before the first byte of a stream, which was most of what our
 * server added to a chat's time to first token (docs/decisions/0006).
 *
 * Differences from fetch that the providers never need: no redirects (a 3xx is returned as is),
 * no automatic decompression (no Accept-Encoding is sent, so none is applied), string or
 * Uint8Array bodies only. A connection failure rejects with `TypeError('fetch failed')` with
 * the socket error as its cause, and an abort with the signal's reason, as fetch does.
 */
const agents = {
  'http:': new HttpAgent({ keepAlive: true }),
  'https:': new HttpsAgent({ keepAlive: true }),
};

/** The kept-alive agent for a protocol, shared by every call to the providers from this process. */
export function keepAliveAgent(protocol: 'http:' | 'https:'): HttpAgent {
  return agents[protocol];
}

export const httpFetch: typeof fetch = (input, init) =>
  new Promise<Response>((resolve, reject) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      reject(new TypeError(`fetch failed: unsupported protocol ${url.protocol}`));
      return;
    }
    const body = init?.body ?? null;
    if (body !== null && typeof body !== 'string' && !(body instanceof Uint8Array)) {
      reject(new TypeError('httpFetch sends string or Uint8Array bodies only'));
      return;
    }
    const signal = init?.signal ?? null;
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }

    const headers = headersOf(init?.headers);
    if (body !== null) headers['content-length'] = String(Buffer.byteLength(body));

    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, { method: init?.method ?? 'GET', headers, agent: agents[url.protocol] });
    let response: IncomingMessage | null = null;

    const onAbort = () => {
      const reason = abortReason(signal!);
      // Before the headers the promise rejects; after, the body stream errors with the reason.
      if (response) response.destroy(reason);
      else reject(reason);
      req.destroy(reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const cleanUp = () => signal?.removeEventListener('abort', onAbort);

    req.once('error', (err) => {
      cleanUp();
      if (!signal?.aborted) reject(new TypeError('fetch failed', { cause: err }));
    });
    req.once('response', (res) => {
      response = res;
      res.once('close', cleanUp);
      const responseHeaders = new Headers();
      for (const [name, value] of Object.entries(res.headers)) {
        if (value !== undefined) responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
      }
      const status = res.statusCode ?? 502;
      const nullBody = status === 204 || status === 304 || init?.method === 'HEAD';
      if (nullBody) res.resume();
      resolve(
        new Response(nullBody ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), {
          status,
          statusText: res.statusMessage ?? '',
          headers: responseHeaders,
        }),
      );
    });
    req.end(body ?? undefined);
  });

/**
 * The request's headers as node:http takes them, names lower-cased as fetch's Headers would. The
 * providers pass a plain object, read directly: converting it to a Headers first cost ~0.15 ms
 * per call before the request could leave (profiled under bench/chat.ts).
 */
function headersOf(init: RequestInit['headers']): Record<string, string> {
  const headers: Record<string, string> = {};
  if (init === undefined) return headers;
  if (Object.getPrototypeOf(init) === Object.prototype) {
    for (const [name, value] of Object.entries(init as Record<string, string | undefined>)) {
      if (value !== undefined) headers[name.toLowerCase()] = String(value);
    }
    return headers;
  }
  new Headers(init).forEach((value, name) => (headers[name] = value));
  return headers;
}

/** What fetch rejects with on abort: the signal's reason, or an AbortError without one. */
export function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  return Object.assign(new Error('This operation was aborted'), { name: 'AbortError' });
}
