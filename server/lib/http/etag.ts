import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Answers GET with an ETag and If-None-Match with 304 (reads whose answer can be cached). */
    etag?: boolean;
  }
}

/** Bodies recently tagged: the public reads send the same cached string again and again, and a
 * Map finds it by the string's cached hash without hashing its bytes. */
const MAX_REMEMBERED = 64;
const remembered = new Map<string, string>();

function etagOf(body: string | Buffer): string {
  const key = typeof body === 'string' ? body : null;
  const known = key === null ? undefined : remembered.get(key);
  if (known) return known;
  // Weak: the same answer goes out brotli-, gzip- or un-compressed, byte-different each way.
  const tag = `W/"${createHash('sha1').update(body).digest('base64url')}"`;
  if (key !== null) {
    if (remembered.size >= MAX_REMEMBERED) remembered.delete(remembered.keys().next().value!);
    remembered.set(key, tag);
  }
  return tag;
}

/** RFC 9110 If-None-Match: `*` or a list of tags, compared weakly. */
export function ifNoneMatchHits(header: string | undefined, tag: string): boolean {
  if (!header) return false;
  const opaque = tag.replace(/^W\//, '');
  return header.split(',').some((candidate) => {
    const value = candidate.trim();
    return value === '*' || value.replace(/^W\//, '') === opaque;
  });
}

/**
 * ETags on the reads whose routes ask for them (`config: { etag: true }`) and on the public pages
 * the public cache keeps (/insights, an article's page): a 200 answer gets a
 * weak tag of its body, and a request that already holds that tag gets 304 with no body, so a
 * browser revalidating the article list downloads nothing when nothing changed. Registered
 * before compression, so it sees the body as the route sent it.
 */
export function registerEtags(app: FastifyInstance): void {
  // Callback style: every answer passes through here, and most only need the first check.
  app.addHook('onSend', (request, reply, payload, done) => {
    // A public page the public cache keeps (public-cache.ts) needs a tag too: it keeps only tagged answers.
    const tagged = reply.routeOptions.config.etag || (request.publicVersion ?? null) !== null;
    if (!tagged || reply.statusCode !== 200 || (request.method !== 'GET' && request.method !== 'HEAD')) {
      return done(null, payload);
    }
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return done(null, payload);
    // A list's total travels in a header: a changed total is a changed answer.
    const total = reply.getHeader('x-total-count');
    const tag = total === undefined ? etagOf(payload) : etagOf(payload).replace(/"$/, `.${String(total)}"`);
    reply.header('etag', tag);
    if (!ifNoneMatchHits(request.headers['if-none-match'], tag)) return done(null, payload);
    reply.code(304);
    done(null, '');
  });
}
