import type { FastifyInstance } from 'fastify';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { ZAddPasskey, ZCreateInvite, ZInviteOptions, ZInviteVerify, ZPasskeyParams, ZPasskeySignIn } from '../../../contracts/passkeys.ts';
import { parseInput } from '../../lib/validate.ts';
import { signInRateLimit, startSession, type AuthRouteDeps } from '../auth/auth.routes.ts';
import { toApiUser } from '../users/users.presenter.ts';
import type { InvitesService } from './invites.service.ts';
import type { PasskeysService } from './passkeys.service.ts';

export type PasskeysRouteDeps = Pick<AuthRouteDeps, 'auth' | 'secureCookies' | 'signInRateLimit'> & {
  passkeys: PasskeysService;
  invites: InvitesService;
};

/**
 * Passkey accounts (docs/decisions/0092). The ceremonies that sign in are public and limited per
 * address like every sign-in; the request guard checks their origin like every write.
 */
export async function passkeysRoutes(app: FastifyInstance, deps: PasskeysRouteDeps): Promise<void> {
  const { passkeys, invites } = deps;
  const publicSignIn = { config: { access: 'public' as const, rateLimit: signInRateLimit(deps.signInRateLimit) } };
  // Challenges, invite links and passkey lists are for one browser only.
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
  });

  app.post('/api/invites', { config: { access: 'admin' } }, async (request, reply) => {
    const input = parseInput(ZCreateInvite, request.body);
    reply.code(201);
    return invites.create(request.user!, input);
  });

  app.post('/api/auth/invite/options', publicSignIn, async (request) => {
    const { token } = parseInput(ZInviteOptions, request.body);
    return passkeys.inviteOptions(token);
  });

  app.post('/api/auth/invite/verify', publicSignIn, async (request, reply) => {
    const input = parseInput(ZInviteVerify, request.body);
    // The contract checked the answer's shape; the library checks what it proves.
    const { user, passkeyId } = await passkeys.acceptInvite(input.token, input.name, input.credential as RegistrationResponseJSON);
    await startSession(deps, request, reply, user, { passkeyId });
    return { user: toApiUser(user) };
  });

  app.post('/api/auth/passkey/options', publicSignIn, async () => passkeys.signInOptions());

  app.post('/api/auth/passkey/verify', publicSignIn, async (request, reply) => {
    const { credential } = parseInput(ZPasskeySignIn, request.body);
    const { user, passkeyId } = await passkeys.signIn(credential as AuthenticationResponseJSON);
    await startSession(deps, request, reply, user, { passkeyId });
    return { user: toApiUser(user) };
  });

  app.get('/api/passkeys', { config: { access: 'signedIn' } }, async (request) => passkeys.list(request.user!));

  app.post('/api/passkeys/options', { config: { access: 'signedIn' } }, async (request) => passkeys.addOptions(request.user!));

  app.post('/api/passkeys', { config: { access: 'signedIn' } }, async (request, reply) => {
    const input = parseInput(ZAddPasskey, request.body);
    reply.code(201);
    return passkeys.add(request.user!, input.name, input.credential as RegistrationResponseJSON);
  });

  app.delete('/api/passkeys/:id', { config: { access: 'signedIn' } }, async (request, reply) => {
    const { id } = parseInput(ZPasskeyParams, request.params);
    await passkeys.remove(request.user!, id, request.sessionTokenHash ?? undefined);
    return reply.status(204).send();
  });
}
