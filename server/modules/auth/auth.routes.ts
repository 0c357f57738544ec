import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ZLocalLogin, ZSyncUser } from '../../../contracts/auth.ts';
import { AppError } from '../../lib/errors.ts';
import { parseInput } from '../../lib/validate.ts';
import { toApiUser } from '../users/users.presenter.ts';
import type { SessionUser } from '../../lib/http/types.ts';
import type { AuthService } from './auth.service.ts';
import { clearSessionCookie, setSessionCookie } from './session-cookie.ts';

export type AuthRouteDeps = {
  auth: AuthService;
  secureCookies: boolean;
  localSignIn: boolean;
  signInRateLimit: number;
};

/** Starts a fresh session for a user who just proved who they are; any old one ends (rotation). */
export async function startSession(
  deps: Pick<AuthRouteDeps, 'auth' | 'secureCookies'>,
  request: FastifyRequest,
  reply: FastifyReply,
  user: SessionUser,
  { passkeyId }: { passkeyId?: string } = {},
): Promise<void> {
  if (request.sessionTokenHash) await deps.auth.endSession(request.sessionTokenHash);
  const { token } = await deps.auth.createSession(user.id, { passkeyId: passkeyId ?? null });
  setSessionCookie(reply, deps.secureCookies, token);
}

export function signInRateLimit(max: number) {
  return { max, timeWindow: '1 minute' };
}

export async function authRoutes(app: FastifyInstance, deps: AuthRouteDeps): Promise<void> {
  app.post(
    '/api/auth/local/login',
    { config: { access: 'public', rateLimit: signInRateLimit(deps.signInRateLimit) } },
    async (request, reply) => {
      if (!deps.localSignIn) throw new AppError('NOT_FOUND', 'Local sign-in is not enabled');
      const input = parseInput(ZLocalLogin, request.body);
      const user = await deps.auth.signIn(
        { provider: 'local', subject: input.email },
        { email: input.email, name: input.name, profilePicture: '' },
      );
      await startSession(deps, request, reply, user);
      return { user: toApiUser(user) };
    },
  );

  // SPEC's sync call. The body is checked for shape but never changes identity or role.
  app.post('/api/auth/user', { config: { access: 'signedIn' } }, async (request) => {
    parseInput(ZSyncUser, request.body ?? undefined);
    return toApiUser(request.user!);
  });

  app.get('/api/auth/me', { config: { access: 'public' } }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    return { user: request.user ? toApiUser(request.user) : null };
  });

  app.post('/api/auth/logout', { config: { access: 'public' } }, async (request, reply) => {
    if (request.sessionTokenHash) await deps.auth.endSession(request.sessionTokenHash);
    clearSessionCookie(reply, deps.secureCookies);
    return reply.status(204).send();
  });
}
