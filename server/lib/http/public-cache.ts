import type { OutgoingHttpHeaders } from 'node:http';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ifNoneMatchHits } from './etag.ts';

/** What the public answers are made from: the published articles (docs/decisions/0051). */
export type PublicSource = {
  /** Changes whenever what the answers show may have changed (any process's write). */
  version(): number;
  /** False while a change could go unnoticed: nothing is then served from or kept in memory. */
  cacheable(): boolean;
  onChange(listener: () => void): void;
};

/** At most this many URLs are kept (the list's pages, /insights pages, articles). */
const MAX_ENTRIES = 512;
/** @fastify/compress's threshold in app.ts: smaller bodies go out uncompressed there too. */
const COMPRESS_MIN_BYTES = 1024;
/** A request with a session cookie takes the normal path (an unknown one is cleared there). */
const SESSION_COOKIE = /(?:^|;\s*)(?:__Host-)?sid=/;

type Entry = {
  body: Buffer;
  /** The headers the normal path sent with this body uncompressed (security headers, type,
   * cache-control, ETag, ...), without the connection's own (date, keep-alive). */
  headers: OutgoingHttpHeaders;
  etag: string;
  br?: Buffer;
  gzip?: Buffer;
};

declare module 'fastify' {
  interface FastifyRequest {
    /** The source's version when this request began; set on requests whose answer may be kept. */
    publicVersion: number | null;
    /** The body of an answer to keep, before compression. */
    publicBody: string | Buffer | null;
    /** Its headers as they go out, after compression. */
    publicHeaders: OutgoingHttpHeaders | null;
  }
}

const CONNECTION_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

/**
 * Public reads answered from memory (docs/decisions/0051): the first request for a URL goes the
 * whole way (routing, hooks, the handler, ETag, compression) and, when its route asked for it
 * (keepPublicAnswer), its body and final headers are kept; later requests for that URL without a
 * session cookie get the same bytes and headers, 304 on a matching If-None-Match, brotli or gzip
 * made once, before any other hook runs. Every entry is dropped when the source changes, and an
 * answer computed before a change is never kept.
 */
export function registerPublicCache(app: FastifyInstance, source: PublicSource): { registerAfterCompression(app: FastifyInstance): void } {
  const entries = new Map<string, Entry>();
  source.onChange(() => entries.clear());
  app.decorateRequest('publicVersion', null);
  app.decorateRequest('publicBody', null);
  app.decorateRequest('publicHeaders', null);

  app.addHook('onRequest', (request, reply, done) => {
    if (request.method !== 'GET' || entries.size === 0) return done();
    const entry = entries.get(request.url);
    if (!entry || SESSION_COOKIE.test(request.headers.cookie ?? '') || !source.cacheable()) return done();
    reply.hijack();
    const res = reply.raw;
    if (ifNoneMatchHits(request.headers['if-none-match'], entry.etag)) {
      const { 'content-length': _length, ...headers } = entry.headers;
      res.writeHead(304, headers);
      res.end();
      return done();
    }
    const encoding = entry.body.length < COMPRESS_MIN_BYTES ? null : pickEncoding(request.headers['accept-encoding']);
    if (encoding === null) {
      res.writeHead(200, entry.headers);
      res.end(entry.body);
      return done();
    }
    const body = encoding === 'br' ? (entry.br ??= brotliCompressSync(entry.body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 4 } })) : (entry.gzip ??= gzipSync(entry.body));
    res.writeHead(200, { ...entry.headers, 'content-encoding': encoding, vary: 'accept-encoding', 'content-length': body.length });
    res.end(body);
    done();
  });

  // Before the ETag hook and compression (app.ts): the body as the route sent it.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.publicVersion !== null && reply.statusCode === 200 && (typeof payload === 'string' || Buffer.isBuffer(payload))) {
      request.publicBody = payload;
    }
    done(null, payload);
  });

  app.addHook('onResponse', (request, reply, done) => {
    const body = request.publicBody;
    const sent = request.publicHeaders;
    if (body === null || sent === null || request.publicVersion !== source.version() || !source.cacheable() || entries.size >= MAX_ENTRIES) return done();
    // Only an answer that went out whole, setting no cookie.
    if (reply.statusCode !== 200 || sent['set-cookie'] !== undefined || typeof sent.etag !== 'string') return done();
    const headers: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(sent)) if (!CONNECTION_HEADERS.has(name) && value !== undefined) headers[name] = value;
    // Compressed on its way out: kept as it was before (compression added these two).
    if (headers['content-encoding'] !== undefined) {
      delete headers['content-encoding'];
      const vary = String(headers.vary ?? '')
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v !== '' && v.toLowerCase() !== 'accept-encoding');
      if (vary.length > 0) headers.vary = vary.join(', ');
      else delete headers.vary;
    }
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    headers['content-length'] = bytes.length;
    entries.set(request.url, { body: bytes, headers, etag: sent.etag });
    done();
  });

  return {
    /** The last onSend hook: registered after compression, it sees the headers as they go out. */
    registerAfterCompression(later) {
      later.addHook('onSend', (request, reply, payload, done) => {
        if (request.publicBody !== null) request.publicHeaders = { ...reply.getHeaders() } as OutgoingHttpHeaders;
        done(null, payload);
      });
    },
  };
}

/** Asks for the answer to this GET to be kept and sent again (the route's answer is the same for
 * every visitor). */
export function keepPublicAnswer(request: FastifyRequest, source: PublicSource): void {
  if (request.method === 'GET' && source.cacheable()) request.publicVersion ??= source.version();
}

/** As @fastify/compress chooses among ours (br first): br, gzip, or none. */
function pickEncoding(header: string | undefined): 'br' | 'gzip' | null {
  if (!header) return null;
  const accepted = new Map<string, number>();
  for (const part of header.toLowerCase().split(',')) {
    const [name = '', ...params] = part.trim().split(';');
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    accepted.set(name.trim(), q === undefined ? 1 : Number(q));
  }
  const allowed = (name: string) => (accepted.get(name) ?? accepted.get('*') ?? 0) > 0;
  if (allowed('br')) return 'br';
  if (allowed('gzip')) return 'gzip';
  return null;
}
