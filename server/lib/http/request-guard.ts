import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Every state-changing request must come from our own origin and, when it has a body, be JSON.
 * SameSite=Lax cookies already stop most cross-site writes; this closes the rest (same-site
 * subdomains, old browsers) without CSRF tokens. A request with neither `Origin` nor
 * `Sec-Fetch-Site: same-origin` is refused, so a forged form post cannot slip through. A route
 * that takes a bearer token and no cookie (`bearerAuth`: /mcp, for outside clients that send no
 * Origin) checks Origin itself; its body must still be JSON.
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
    if (hasBody && !/^application\/json\s*(;|$)/i.test(type)) {
      throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the request body as application/json');
    }
  });
}
