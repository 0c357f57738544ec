import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ZGoogleStartQuery } from '../../../contracts/auth.ts';
import type { Config } from '../../config.ts';
import { createGoogleOidc } from '../../integrations/google-oidc.ts';
import { parseInput } from '../../lib/validate.ts';
import { requestForLog } from '../../lib/http/request-log.ts';
import type { Clock } from './auth.service.ts';
import { signInRateLimit, startSession, type AuthRouteDeps } from './auth.routes.ts';
import { resultPageRenderer } from './google-result-page.ts';
import { createGoogleSignInService } from './google-sign-in.service.ts';
import { transactionCookieStore } from './google-transaction-cookie.ts';

export type GoogleAuthRouteDeps = Omit<AuthRouteDeps, 'localSignIn'> & {
  google: Extract<Config['auth'], { provider: 'google' }>;
  publicUrl: string;
  now: Clock;
};

const BASE_PATH = '/api/auth/google';

/**
 * Google sign-in in a popup: `start` sends the browser to Google with a fresh transaction kept in
 * a signed cookie, with the id of the tab's attempt; Google sends it back to `callback`, which
 * signs the user in and answers a small page that reports the result, addressed to that
 * attempt, to the opener and on a BroadcastChannel, and closes itself.
 */
export async function googleAuthRoutes(app: FastifyInstance, deps: GoogleAuthRouteDeps): Promise<void> {
  const redirectUri = `${deps.publicUrl}${BASE_PATH}/callback`;
  const google = createGoogleOidc({ ...deps.google, redirectUri, now: deps.now, logger: app.log });
  const signIn = createGoogleSignInService({ auth: deps.auth, google, redirectUri });
  const transactionCookie = transactionCookieStore({ secureCookies: deps.secureCookies, now: deps.now, path: BASE_PATH });
  const resultPage = resultPageRenderer(new URL(deps.publicUrl).origin);
  const rateLimit = signInRateLimit(deps.signInRateLimit);

  app.get(`${BASE_PATH}/start`, { config: { access: 'public', rateLimit } }, async (request, reply) => {
    const { attempt } = parseInput(ZGoogleStartQuery, request.query);
    try {
      const { url, transaction } = await signIn.start(request.log);
      transactionCookie.set(reply, { ...transaction, attempt });
      return reply.header('cache-control', 'no-store').redirect(url, 302);
    } catch (err) {
      return resultPage(reply, { ...signIn.failure(err, request.log), ok: false, attempt });
    }
  });

  app.get(
    `${BASE_PATH}/callback`,
    // The query holds a one-time code and the state: keep them out of the request log.
    { config: { access: 'public', rateLimit }, logSerializers: { req: requestWithoutQuery } },
    async (request, reply) => {
      const transaction = transactionCookie.take(request, reply);
      const params = new URL(request.url, deps.publicUrl).searchParams;
      // Without a known attempt the result goes to no tab and the page stays to show it.
      const attempt = signIn.attemptOf(transaction, params);
      try {
        const user = await signIn.complete(transaction, params, request.log);
        await startSession(deps, request, reply, user);
        return resultPage(reply, { status: 200, ok: true, text: `Signed in as ${user.name || user.email}.`, attempt });
      } catch (err) {
        return resultPage(reply, { ...signIn.failure(err, request.log), ok: false, attempt });
      }
    },
  );
}

/** The request log's usual fields (request-log.ts) minus the whole query string. */
function requestWithoutQuery(req: FastifyRequest) {
  return { ...requestForLog(req), url: req.url.split('?')[0] };
}
