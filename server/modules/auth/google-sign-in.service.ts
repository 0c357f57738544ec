import type { FastifyBaseLogger as Logger } from 'fastify';
import type { GoogleOidc } from '../../integrations/google-oidc.ts';
import { authorizationErrorMessage } from '../../integrations/google-oidc.ts';
import { isDatabaseUnavailable } from '../../lib/db-errors.ts';
import { AppError } from '../../lib/errors.ts';
import type { SessionUser } from '../../lib/http/types.ts';
import type { AuthService } from './auth.service.ts';
import type { StoredTransaction } from './google-transaction-cookie.ts';

export type GoogleSignInDeps = { auth: AuthService; google: GoogleOidc; redirectUri: string };

/**
 * Google sign-in's rules: `start` opens an OpenID Connect transaction; `complete` checks
 * Google's answer against this browser's transaction and signs in whom Google vouches for;
 * `failure` turns whatever went wrong into the sentence the person reads, the cause to the log.
 */
export function createGoogleSignInService({ auth, google, redirectUri }: GoogleSignInDeps) {
  function start(log: Logger) {
    return google.startSignIn(log);
  }

  /** The attempt Google answers, known only when this browser's transaction is the one answered. */
  function attemptOf(transaction: StoredTransaction | null, params: URLSearchParams): string | undefined {
    return transaction && transaction.state === params.get('state') ? transaction.attempt : undefined;
  }

  async function complete(transaction: StoredTransaction | null, params: URLSearchParams, log: Logger): Promise<SessionUser> {
    const error = params.get('error');
    if (error !== null) throw new AppError('UNAUTHORIZED', authorizationErrorMessage(error));
    if (!transaction || transaction.state !== params.get('state')) {
      throw new AppError('BAD_REQUEST', 'This sign-in has expired or was started in another browser. Please try again.');
    }
    const callbackUrl = new URL(redirectUri);
    callbackUrl.search = params.toString();
    const identity = await google.completeSignIn(callbackUrl, transaction, log);
    return auth.signIn(
      { provider: 'google', subject: identity.subject },
      { email: identity.email, name: identity.name, profilePicture: identity.picture ?? '' },
    );
  }

  function failure(err: unknown, log: Logger): { status: number; text: string } {
    if (err instanceof AppError) {
      log.info({ code: err.code, message: err.message }, 'Google sign-in failed');
      return { status: err.status, text: err.message };
    }
    if (isDatabaseUnavailable(err)) {
      log.error({ err }, 'database unavailable during Google sign-in');
      return { status: 503, text: 'Sign-in is unavailable right now. Please try again shortly.' };
    }
    log.error({ err }, 'Google sign-in failed unexpectedly');
    return { status: 500, text: 'Something went wrong while signing you in. Please try again.' };
  }

  return { start, attemptOf, complete, failure };
}
