import type { FastifyInstance } from 'fastify';
import { AppError } from '../../lib/errors.ts';
import type { ApiRoute } from '../../lib/http/types.ts';
import type { AuthService } from './auth.service.ts';
import { clearSessionCookie, readSessionToken } from './session-cookie.ts';

/**
 * Deny by default: every /api route must declare its access (`public`, `signedIn` or `admin`)
 * in its config, or the app refuses to start. The session's user is loaded fresh from the
 * database on every request, so a role change takes effect at once.
 */
export function registerAuth(app: FastifyInstance, auth: AuthService, secureCookies: boolean): void {
  app.decorateRequest('user', null);
  app.decorateRequest('sessionTokenHash', null);

  const apiRoutes: ApiRoute[] = [];
  app.decorate('apiRoutes', apiRoutes);
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/api/')) return;
    const access = route.config?.access;
    if (!access) throw new Error(`Route ${String(route.method)} ${route.url} declares no access (public, signedIn or admin)`);
    for (const method of [route.method].flat()) apiRoutes.push({ method, url: route.url, access });
  });

  app.addHook('onRequest', async (request, reply) => {
    const access = request.routeOptions.config.access;
    if (!access) return;
    const token = readSessionToken(request, secureCookies);
    if (token) {
      const session = await auth.resolveSession(token);
      if (session) {
        request.user = session.user;
        request.sessionTokenHash = session.tokenHash;
      } else {
        clearSessionCookie(reply, secureCookies);
      }
    }
    if (access === 'public') return;
    if (!request.user) throw new AppError('UNAUTHORIZED', 'Sign in to continue');
    if (access === 'admin' && request.user.role !== 'admin') {
      throw new AppError('FORBIDDEN', 'This action needs the admin role');
    }
  });
}
