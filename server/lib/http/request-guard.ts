import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Every state-changing request must come from our own origin and, when it has a body, be JSON.
 * SameSite=Lax cookies already stop most cross-site writes; this closes the rest (same-site
 * subdomains, old browsers) without CSRF tokens. A request with neither `Origin` nor
 * `Sec-Fetch-Site: same-origin` is refused, so a forged form post cannot slip through. A route
 * that takes a bearer token and no cookie (`bearerAuth`: /mcp, for outside clients that send no
 * Origin) checks Origin itself; its body must still be JSON. A route marked `rawBody` (a document
 * upload) takes `application/octet-stream` instead; the same-origin rule still holds.
 */
export function registerRequestGuard(app: FastifyInstance, publicOrigin: string): void {
  app.addHook('onRequest', async (request) => {
    if (SAFE_METHODS.has(request.method)) return;
    if (!request.routeOptions.config.bearerAuth) {
      const origin = request.headers.origin;
      const fetchSite = request.headers['sec-fetch-site'];
      const sameOrigin = origin !== undefined ? origin === publicOrigin : fetchSite === 'same-origin';
      if (!sameOrigin) throw new AppError('FORBIDDEN', 'Cross-origin request refused');
    }

    const hasBody =
      request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;
    const type = request.headers['content-type'] ?? '';
    // A file's bytes (a document upload) come raw: base64 in JSON would add a third.
    const [wanted, rule] = request.routeOptions.config.rawBody
      ? [/^application\/octet-stream\s*(;|$)/i, 'Send the file as application/octet-stream']
      : [/^application\/json\s*(;|$)/i, 'Send the request body as application/json'];
    if (hasBody && !wanted.test(type)) throw new AppError('UNSUPPORTED_MEDIA_TYPE', rule);
  });
}
