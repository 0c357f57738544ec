import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ZPopupSignInStartQuery } from '../../../contracts/auth.ts';
import type { OidcProviderConfig } from '../../config.ts';
import { createOidcClient, type OidcProviderTraits } from '../../integrations/oidc.ts';
import { parseInput } from '../../lib/validate.ts';
import { requestForLog } from '../../lib/http/request-log.ts';
import type { Clock } from './auth.service.ts';
import { signInRateLimit, startSession, type AuthRouteDeps } from './auth.routes.ts';
import { createOidcSignInService } from './oidc-sign-in.service.ts';
import { resultPageRenderer } from './sign-in-result-page.ts';
import { transactionCookieStore } from './sign-in-transaction-cookie.ts';

export type OidcAuthRouteDeps = Omit<AuthRouteDeps, 'localSignIn'> & {
  provider: 'google' | 'oidc';
  settings: OidcProviderConfig;
  publicUrl: string;
  now: Clock;
};

/**
 * What sets Google apart from the operator's own provider: its name in SPEC's sentences, an
 * email_verified it always sends, and its account chooser. Anything else is the same code.
 */
const PROVIDER_TRAITS: Record<OidcAuthRouteDeps['provider'], OidcProviderTraits> = {
  google: {
    displayName: 'Google',
    accountName: 'the Google account',
    emailVerification: 'required',
    readUserInfo: false,
    authorizationParams: { prompt: 'select_account' },
    clientAuthentication: 'post',
  },
  oidc: {
    displayName: 'SSO',
    accountName: "the account's",
    emailVerification: 'unlessDenied',
    readUserInfo: true,
    authorizationParams: {},
    clientAuthentication: 'basic',
  },
};

/**
 * OpenID Connect sign-in in a popup, at /api/auth/{google,oidc}: `start` sends the browser to the
 * provider with a fresh transaction kept in a signed cookie, with the id of the tab's attempt;
 * the provider sends it back to `callback`, which signs the user in and answers a small page
 * that reports the result, addressed to that attempt, to the opener and on a BroadcastChannel,
 * and closes itself.
 */
export async function oidcAuthRoutes(app: FastifyInstance, deps: OidcAuthRouteDeps): Promise<void> {
  const BASE_PATH = `/api/auth/${deps.provider}`;
  const traits = PROVIDER_TRAITS[deps.provider];
  const redirectUri = `${deps.publicUrl}${BASE_PATH}/callback`;
  const { issuer, clientId, clientSecret, scopes, adminClaim } = deps.settings;
  const client = createOidcClient({ ...traits, issuer, clientId, clientSecret, scopes, redirectUri, now: deps.now, logger: app.log });
  const signIn = createOidcSignInService({ auth: deps.auth, client, redirectUri, provider: deps.provider, displayName: traits.displayName, adminClaim });
  const transactionCookie = transactionCookieStore({ secureCookies: deps.secureCookies, now: deps.now, path: BASE_PATH, name: `${deps.provider}_signin` });
  const resultPage = resultPageRenderer(new URL(deps.publicUrl).origin);
  const rateLimit = signInRateLimit(deps.signInRateLimit);

  app.get(`${BASE_PATH}/start`, { config: { access: 'public', rateLimit } }, async (request, reply) => {
    const { attempt } = parseInput(ZPopupSignInStartQuery, request.query);
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
