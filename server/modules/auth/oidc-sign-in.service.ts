import type { FastifyBaseLogger as Logger } from 'fastify';
import type { OidcClient } from '../../integrations/oidc.ts';
import { isDatabaseUnavailable } from '../../lib/db-errors.ts';
import { AppError } from '../../lib/errors.ts';
import type { SessionUser } from '../../lib/http/types.ts';
import type { AuthService } from './auth.service.ts';
import { roleFromClaims, type AdminClaimRule } from './oidc-admin-claim.ts';
import type { StoredTransaction } from './sign-in-transaction-cookie.ts';

export type OidcSignInDeps = {
  auth: AuthService;
  client: OidcClient;
  redirectUri: string;
  /** Stored as the users' identity provider: `google`, or `oidc` for the operator's own. */
  provider: 'google' | 'oidc';
  /** Names the provider in what a person and the log read. */
  displayName: string;
  /** The role from a claim at every sign-in; null: ADMIN_EMAILS decides (auth.service). */
  adminClaim: AdminClaimRule | null;
};

/**
 * OpenID Connect sign-in's rules, for Google and any other provider: `start` opens a
 * transaction; `complete` checks the provider's answer against this browser's transaction and
 * signs in whom the provider vouches for, with the role its claims give when a claim decides;
 * `failure` turns whatever went wrong into the sentence the person reads, the cause to the log.
 */
export function createOidcSignInService({ auth, client, redirectUri, provider, displayName, adminClaim }: OidcSignInDeps) {
  function start(log: Logger) {
    return client.startSignIn(log);
  }

  /** The attempt the provider answers, known only when this browser's transaction is the one answered. */
  function attemptOf(transaction: StoredTransaction | null, params: URLSearchParams): string | undefined {
    return transaction && transaction.state === params.get('state') ? transaction.attempt : undefined;
  }

  async function complete(transaction: StoredTransaction | null, params: URLSearchParams, log: Logger): Promise<SessionUser> {
    const error = params.get('error');
    if (error !== null) throw new AppError('UNAUTHORIZED', client.authorizationErrorMessage(error));
    if (!transaction || transaction.state !== params.get('state')) {
      throw new AppError('BAD_REQUEST', 'This sign-in has expired or was started in another browser. Please try again.');
    }
    const callbackUrl = new URL(redirectUri);
    callbackUrl.search = params.toString();
    const identity = await client.completeSignIn(callbackUrl, transaction, log);
    const role = adminClaim ? roleFromClaims(identity.claims, adminClaim, displayName) : undefined;
    return auth.signIn(
      { provider, subject: identity.subject },
      { email: identity.email, name: identity.name, profilePicture: identity.picture ?? '' },
      role === undefined ? {} : { role },
    );
  }

  function failure(err: unknown, log: Logger): { status: number; text: string } {
    if (err instanceof AppError) {
      log.info({ code: err.code, message: err.message }, `${displayName} sign-in failed`);
      return { status: err.status, text: err.message };
    }
    if (isDatabaseUnavailable(err)) {
      log.error({ err }, `database unavailable during ${displayName} sign-in`);
      return { status: 503, text: 'Sign-in is unavailable right now. Please try again shortly.' };
    }
    log.error({ err }, `${displayName} sign-in failed unexpectedly`);
    return { status: 500, text: 'Something went wrong while signing you in. Please try again.' };
  }

  return { start, attemptOf, complete, failure };
}
