import type { OutgoingHttpHeaders } from 'node:http';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ifNoneMatchHits } from './etag.ts';
import type { FrontAnswer } from './front-door.ts';

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
export const COMPRESS_MIN_BYTES = 1024;
/** A request with a session cookie takes the normal path (an unknown one is cleared there). */
const SESSION_COOKIE = /(?:^|;\s*)(?:__Host-)?sid=/;

type Encoded = { body: Buffer; headers: OutgoingHttpHeaders };

type Entry = Encoded & {
  /** `headers`: those the normal path sent with this body uncompressed (security headers, type,
   * cache-control, ETag, ...), without the connection's own (date, keep-alive). */
  etag: string;
  /** The same without content-length, for a 304. */
  notModifiedHeaders: OutgoingHttpHeaders;
  /** The body as the route sent it, when text: Node writes it in one piece with the headers,
   * where a Buffer goes out as a second piece of a writev (a profile showed that call dearer). */
  text?: string;
  /** Made on first demand, once. */
  br?: Encoded;
  gzip?: Encoded;
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
 * made once, from `answer`, which the server's front door calls before Fastify sees the request
 * (docs/decisions/0057). Every entry is dropped when the source changes, and an answer computed
 * before a change is never kept.
 */
export function registerPublicCache(app: FastifyInstance, source: PublicSource): { answer: FrontAnswer; registerAfterCompression(app: FastifyInstance): void } {
  const entries = new Map<string, Entry>();
  source.onChange(() => entries.clear());
  app.decorateRequest('publicVersion', null);
  app.decorateRequest('publicBody', null);
  app.decorateRequest('publicHeaders', null);

  /** The door in front of Fastify (front-door.ts) calls this with every request. */
  const answer: FrontAnswer = (request, res) => {
    if (request.method !== 'GET' || entries.size === 0) return false;
    const entry = entries.get(request.url ?? '');
    if (!entry || SESSION_COOKIE.test(request.headers.cookie ?? '') || !source.cacheable()) return false;
    if (ifNoneMatchHits(request.headers['if-none-match'], entry.etag)) {
      res.writeHead(304, entry.notModifiedHeaders);
      res.end();
      return true;
    }
    const encoding = entry.body.length < COMPRESS_MIN_BYTES ? null : pickEncoding(request.headers['accept-encoding']);
    if (encoding === null) {
      res.writeHead(200, entry.headers);
      res.end(entry.text ?? entry.body);
      return true;
    }
    const compressed = encoding === 'br' ? (entry.br ??= compressedEntry(entry, 'br')) : (entry.gzip ??= compressedEntry(entry, 'gzip'));
    res.writeHead(200, compressed.headers);
    res.end(compressed.body);
    return true;
  };

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
    const { 'content-length': _length, ...notModifiedHeaders } = headers;
    entries.set(request.url, { body: bytes, ...(typeof body === 'string' ? { text: body } : {}), headers, notModifiedHeaders, etag: sent.etag });
    done();
  });

  return {
    answer,
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

function compressedEntry(entry: Entry, encoding: 'br' | 'gzip'): Encoded {
  const body = encoding === 'br' ? brotliCompressSync(entry.body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 4 } }) : gzipSync(entry.body);
  return { body, headers: { ...entry.headers, 'content-encoding': encoding, vary: 'accept-encoding', 'content-length': body.length } };
}

/** As @fastify/compress chooses among ours (br first): br, gzip, or none. */
export function pickEncoding(header: string | undefined): 'br' | 'gzip' | null {
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
