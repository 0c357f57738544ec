import type { FastifyBaseLogger } from 'fastify';
import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction, Socket } from 'node:net';
import { checkOutboundUrl, type CheckedTarget, type OutboundPolicy, type ResolvedAddress } from './check-outbound-url.ts';
import { OutboundError } from './outbound-error.ts';

export type OutboundRequest = {
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** The whole request: resolving, connecting, sending and reading the answer. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /**
   * 'refuse' (the default): a 3xx is an OutboundError('redirect'). 'return': the 3xx is answered,
   * its body unread, so the caller can check its Location as a new URL and send again (web
   * pages, followed hop by hop with each hop checked: never a redirect followed blindly).
   */
  redirects?: 'refuse' | 'return';
};

export type OutboundResponse = {
  status: number;
  headers: Record<string, string>;
  /** The first `maxResponseBytes` of the answer, as UTF-8; the rest is not read. */
  body: string;
  truncated: boolean;
};

export type OutboundOptions = OutboundPolicy & {
  /** Refusals and failures are logged here (warn), with scheme and host only. */
  logger?: Pick<FastifyBaseLogger, 'warn'>;
  connectTimeoutMs?: number;
  maxResponseBytes?: number;
  /** Certificates to trust instead of the system's: a test fake's own, self-signed. */
  ca?: string;
};

export const OUTBOUND_DEFAULTS = { timeoutMs: 10_000, connectTimeoutMs: 5_000, maxResponseBytes: 64 * 1024 } as const;

/** Headers the client sets itself: the caller's would describe a different request. */
const OWN_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection']);

const TIMEOUT = Symbol('timeout');

/**
 * The one door for requests to user-supplied URLs (docs/decisions/0040): checks the URL as
 * checkOutboundUrl does, then connects to one of the addresses it checked (never a second
 * lookup, so a name cannot answer differently in between), with SNI, certificate and Host for
 * the name. No redirect is followed (one may be returned to the caller), no answer read beyond maxResponseBytes. Throws
 * OutboundError; any other status is the caller's to judge.
 */
export async function sendOutbound(request: OutboundRequest, options: OutboundOptions): Promise<OutboundResponse> {
  const timeoutMs = request.timeoutMs ?? OUTBOUND_DEFAULTS.timeoutMs;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(TIMEOUT), timeoutMs);
  const signal = request.signal ? AbortSignal.any([request.signal, deadline.signal]) : deadline.signal;
  let target: string | undefined;
  try {
    const checked = await abortable(checkOutboundUrl(request.url, options), signal);
    target = checked.target;
    return await exchange(request, options, checked, signal);
  } catch (err) {
    const failure =
      err instanceof OutboundError ? err : signal.reason === TIMEOUT ? new OutboundError('timeout', { target }) : null;
    if (failure) {
      options.logger?.warn({ outbound: { kind: failure.kind, ...failure.detail } }, 'outbound request refused or failed');
      throw failure;
    }
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

function exchange(
  request: OutboundRequest,
  options: OutboundOptions,
  checked: CheckedTarget,
  signal: AbortSignal,
): Promise<OutboundResponse> {
  const { url, hostname, addresses, target } = checked;
  const maxBytes = options.maxResponseBytes ?? OUTBOUND_DEFAULTS.maxResponseBytes;
  const connectTimeoutMs = options.connectTimeoutMs ?? OUTBOUND_DEFAULTS.connectTimeoutMs;
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    if (!OWN_HEADERS.has(name.toLowerCase())) headers[name] = value;
  }
  if (request.body !== undefined) headers['content-length'] = Buffer.byteLength(request.body);

  return new Promise<OutboundResponse>((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send({
      protocol: url.protocol,
      host: hostname,
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      method: request.method ?? 'POST',
      headers,
      // A fresh connection each time: a kept-alive one might lead elsewhere than was checked.
      agent: false,
      lookup: pinnedLookup(addresses),
      ...(options.ca ? { ca: options.ca } : {}),
    });
    let settled = false;
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      req.destroy();
      reject(err);
    };

    // The caller's own abort (a shutdown) rejects with its reason, as before the request began.
    const onAbort = () => fail(signal.reason === TIMEOUT ? new OutboundError('timeout', { target }) : signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    req.once('close', () => signal.removeEventListener('abort', onAbort));

    req.once('socket', (socket: Socket) => {
      const connectTimer = setTimeout(() => fail(new OutboundError('timeout', { target, code: 'CONNECT_TIMEOUT' })), connectTimeoutMs);
      socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer));
      socket.once('close', () => clearTimeout(connectTimer));
    });
    // on, not once: a socket can report a second error after the first settled the request.
    req.on('error', (err: NodeJS.ErrnoException) => {
      const code = err.code ?? 'unknown';
      fail(new OutboundError(isTlsError(code) ? 'tls' : 'unreachable', { target, code }));
    });
    req.once('response', (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400) {
        if (request.redirects !== 'return') return fail(new OutboundError('redirect', { target, status }));
        settled = true;
        req.destroy();
        return resolve({ status, headers: flatHeaders(res), body: '', truncated: false });
      }
      readBounded(res, maxBytes).then(
        ({ body, truncated }) => {
          if (settled) return;
          settled = true;
          // The rest of an answer over the bound is not read: the connection is dropped.
          if (truncated) req.destroy();
          resolve({ status, headers: flatHeaders(res), body, truncated });
        },
        () => fail(new OutboundError('unreachable', { target, status, code: 'RESPONSE_ABORTED' })),
      );
    });
    req.end(request.body);
  });
}

/**
 * Answers every lookup the connection makes with the checked addresses, so the socket reaches
 * what was checked, whatever the name would resolve to now (DNS rebinding).
 */
function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return (_hostname, lookupOptions, callback) => {
    const wanted = addresses.filter((a) => !lookupOptions.family || a.family === lookupOptions.family);
    const answer = wanted.length > 0 ? wanted : addresses;
    if (lookupOptions.all) callback(null, answer);
    else callback(null, answer[0]!.address, answer[0]!.family);
  };
}

async function readBounded(res: IncomingMessage, maxBytes: number): Promise<{ body: string; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res) {
    const buffer = chunk as Buffer;
    if (size + buffer.length > maxBytes) {
      chunks.push(buffer.subarray(0, maxBytes - size));
      return { body: Buffer.concat(chunks).toString('utf8'), truncated: true };
    }
    chunks.push(buffer);
    size += buffer.length;
  }
  return { body: Buffer.concat(chunks).toString('utf8'), truncated: false };
}

function flatHeaders(res: IncomingMessage): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

function isTlsError(code: string): boolean {
  return code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL') || /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)/.test(code);
}

/** Resolving can hang on a slow resolver: the deadline ends the wait (the lookup runs on). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
