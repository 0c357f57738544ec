/**
 * Sign-in with an OpenID Connect provider (Google, or any the operator names) as a relying
 * party: authorization-code flow with PKCE (S256), state and nonce, on top of `openid-client`.
 * openid-client checks the ID token's issuer, audience, expiry and nonce; this module adds what
 * we require on top (an email address, verified as the provider's rule asks, and a recent
 * sign-in) and turns every failure into an AppError a person can read.
 */
import type { FastifyBaseLogger } from 'fastify';
import * as oidc from 'openid-client';
import { z } from 'zod';
import { ZEmail } from '../../contracts/auth.ts';
import { ID_TOKEN_MAX_AGE_SECONDS } from '../../contracts/constants.ts';
import { AppError } from '../lib/errors.ts';

/** Every outbound call (discovery, token exchange, userinfo) gives up after this. */
const OUTBOUND_TIMEOUT_SECONDS = 10;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** What differs between providers, in what a person reads and what the provider vouches for. */
export type OidcProviderTraits = {
  /** Names the provider in the sentences a person reads: "Google sign-in was refused: ...". */
  displayName: string;
  /** Whose email address is unverified, in the refusal: "the Google account". */
  accountName: string;
  /**
   * `required`: email_verified must be true (Google always sends it). `unlessDenied`: refused
   * only when the provider says false (many, such as Entra ID, never send the claim).
   */
  emailVerification: 'required' | 'unlessDenied';
  /** Ask the userinfo endpoint for the claims the ID token lacks (most providers keep email and
   * groups there in the code flow). */
  readUserInfo: boolean;
  /** Further authorization parameters (Google: prompt=select_account). */
  authorizationParams: Record<string, string>;
  /**
   * How the client secret goes to the token endpoint: `basic` (HTTP Basic, the standard's default
   * for a registered client, and the one some providers such as Okta hold a web app to) or
   * `post` (in the form body, what Google's client has always sent here).
   */
  clientAuthentication: 'basic' | 'post';
};

export type OidcClientOptions = OidcProviderTraits & {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Space-separated, with openid. */
  scopes: string;
  /** Our callback, registered with the provider; must match exactly in both legs of the flow. */
  redirectUri: string;
  now: () => Date;
  logger: FastifyBaseLogger;
};

/** What the browser must bring back to the callback; kept in a signed cookie meanwhile. */
export type SignInTransaction = { state: string; nonce: string; codeVerifier: string };

export type OidcIdentity = {
  subject: string;
  email: string;
  name: string;
  picture: string | undefined;
  /** Every claim the provider sent (ID token, then userinfo for what it lacked): the role rule reads them. */
  claims: Record<string, unknown>;
};

export type OidcClient = ReturnType<typeof createOidcClient>;

export function createOidcClient(options: OidcClientOptions) {
  const configuration = lazyDiscovery(options);
  const texts = sentences(options);

  /** A fresh transaction and the URL to send the browser to. */
  async function startSignIn(log = options.logger): Promise<{ url: string; transaction: SignInTransaction }> {
    const config = await configuration(log);
    const transaction: SignInTransaction = {
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      codeVerifier: oidc.randomPKCECodeVerifier(),
    };
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: options.redirectUri,
      scope: options.scopes,
      code_challenge: await oidc.calculatePKCECodeChallenge(transaction.codeVerifier),
      code_challenge_method: 'S256',
      state: transaction.state,
      nonce: transaction.nonce,
      ...options.authorizationParams,
    });
    return { url: url.href, transaction };
  }

  /**
   * Redeems the code in `callbackUrl` (our redirect URI plus the query the provider added) and
   * returns the identity its ID token vouches for, or throws an AppError (401 refused, 502
   * unavailable).
   */
  async function completeSignIn(callbackUrl: URL, transaction: SignInTransaction, log = options.logger): Promise<OidcIdentity> {
    const config = await configuration(log);
    let claims: Record<string, unknown>;
    try {
      const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: transaction.codeVerifier,
        expectedState: transaction.state,
        expectedNonce: transaction.nonce,
        idTokenExpected: true,
      });
      claims = { ...tokens.claims() };
      if (options.readUserInfo && config.serverMetadata().userinfo_endpoint) {
        // openid-client refuses userinfo for another subject than the ID token's.
        const userInfo = await oidc.fetchUserInfo(config, tokens.access_token, String(claims.sub));
        // The signed ID token wins where both speak; userinfo only fills in.
        claims = { ...userInfo, ...claims };
      }
    } catch (err) {
      throw toAppError(err, texts, log);
    }
    return verifyIdentity(claims, options, texts, log);
  }

  /** The human message for an `error` the provider put in the callback query instead of a code. */
  function authorizationErrorMessage(error: string): string {
    return texts.authorizationError(error);
  }

  return { startSignIn, completeSignIn, authorizationErrorMessage };
}

type Sentences = ReturnType<typeof sentences>;

/** The sentences a person reads, in the provider's name. */
function sentences(traits: Pick<OidcProviderTraits, 'displayName' | 'accountName'>) {
  const refused = (reason: string) => `${traits.displayName} sign-in was refused: ${reason}`;
  return {
    displayName: traits.displayName,
    refused,
    unavailable: `${traits.displayName} sign-in is unavailable right now`,
    unverified: refused(`${traits.accountName} email address is not verified`),
    authorizationError: (error: string) =>
      error === 'access_denied' ? `${traits.displayName} sign-in was cancelled.` : refused(`${traits.displayName} reported an error`),
  };
}

/**
 * Discovery happens at the first sign-in, not at start-up, so an unreachable issuer never stops
 * the app. A success is kept; a failure is forgotten so the next sign-in tries again.
 */
function lazyDiscovery(options: OidcClientOptions): (log: FastifyBaseLogger) => Promise<oidc.Configuration> {
  let pending: Promise<oidc.Configuration> | null = null;
  return (log) => {
    pending ??= discover(options).catch((err: unknown) => {
      pending = null;
      log.error({ cause: describeError(err), issuer: options.issuer }, 'OIDC discovery failed');
      throw new AppError('BAD_GATEWAY', sentences(options).unavailable);
    });
    return pending;
  };
}

function discover(options: OidcClientOptions): Promise<oidc.Configuration> {
  const issuer = new URL(options.issuer);
  const authentication = options.clientAuthentication === 'basic' ? oidc.ClientSecretBasic(options.clientSecret) : oidc.ClientSecretPost(options.clientSecret);
  return oidc.discovery(issuer, options.clientId, options.clientSecret, authentication, {
    timeout: OUTBOUND_TIMEOUT_SECONDS,
    // Plain http is for the tests' issuers on loopback only; anything else must be https.
    execute: isLoopbackHttp(issuer) ? [oidc.allowInsecureRequests] : [],
  });
}

function isLoopbackHttp(url: URL): boolean {
  return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
}

const ZClaims = z.object({
  sub: z.string().min(1).max(255),
  email: z.unknown().optional(),
  email_verified: z.unknown().optional(),
  name: z.string().optional(),
  picture: z.string().optional(),
  iat: z.number(),
  auth_time: z.number().optional(),
});

/** Our checks on top of openid-client's: an email address, verified as the provider's rule asks,
 * and a sign-in made just now. */
function verifyIdentity(claims: Record<string, unknown>, options: OidcClientOptions, texts: Sentences, log: FastifyBaseLogger): OidcIdentity {
  const refuse = (sentence: string, detail: string) => {
    log.warn({ reason: detail }, `${options.displayName} sign-in refused`);
    return new AppError('UNAUTHORIZED', sentence);
  };
  const parsed = ZClaims.safeParse(claims);
  if (!parsed.success) {
    throw refuse(texts.refused('the token lacks a valid subject or email address'), parsed.error.issues.map((i) => i.path.join('.')).join(','));
  }
  const c = parsed.data;
  if (c.email === undefined || c.email === null || c.email === '') {
    throw refuse(texts.refused(`${options.displayName} sent no email address for this account`), 'email missing');
  }
  const email = ZEmail.safeParse(c.email);
  if (!email.success) throw refuse(texts.refused('the token lacks a valid subject or email address'), 'email');
  const verified = options.emailVerification === 'required' ? c.email_verified === true : c.email_verified !== false && c.email_verified !== 'false';
  if (!verified) throw refuse(texts.unverified, 'email_verified');

  const nowSeconds = Math.floor(options.now().getTime() / 1000);
  const tooOld = (at: number | undefined) => at !== undefined && nowSeconds - at > ID_TOKEN_MAX_AGE_SECONDS;
  if (tooOld(c.iat) || tooOld(c.auth_time)) throw refuse(texts.refused('the sign-in is too old, please try again'), 'iat/auth_time');

  return { subject: c.sub, email: email.data, name: (c.name ?? '').trim().slice(0, 200), picture: safePicture(c.picture), claims };
}

/** Only an https image URL is kept: it ends up in an <img src> on every page. */
function safePicture(picture: string | undefined): string | undefined {
  if (!picture || picture.length > 2048) return undefined;
  try {
    return new URL(picture).protocol === 'https:' ? picture : undefined;
  } catch {
    return undefined;
  }
}

/** The reason a token or response was refused, or null when the issuer is to blame (502). */
function refusalReason(err: unknown, texts: Sentences): string | null {
  const refusedMessage = texts.refused;
  if (err instanceof oidc.AuthorizationResponseError) return texts.authorizationError(err.error);
  if (err instanceof oidc.ResponseBodyError) {
    // invalid_client is our configuration, a 5xx is the provider's trouble: neither is the user's doing.
    if (err.status >= 500 || err.error === 'invalid_client' || err.error === 'unauthorized_client') return null;
    return refusedMessage(`${texts.displayName} did not accept the sign-in code, please try again`);
  }
  if (!(err instanceof oidc.ClientError)) return null;
  switch (err.code) {
    case 'OAUTH_JWT_CLAIM_COMPARISON_FAILED':
      return refusedMessage(claimMismatchReason(failedClaim(err)));
    case 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED':
      return refusedMessage(failedClaim(err) === 'nbf' ? 'the token is not valid yet' : 'the token has expired');
    case 'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED':
    case 'OAUTH_INVALID_RESPONSE':
    case 'OAUTH_PARSE_ERROR':
      return refusedMessage('the response did not match this sign-in, please try again');
    default:
      return null;
  }
}

function claimMismatchReason(claim: string | undefined): string {
  switch (claim) {
    case 'aud':
    case 'azp':
      return 'the token was issued to another application';
    case 'iss':
      return 'the token came from an unexpected issuer';
    case 'nonce':
      return 'the token does not belong to this sign-in';
    default:
      return 'the token did not match this sign-in';
  }
}

/** oauth4webapi names the offending claim in the cause of the error openid-client wraps. */
function failedClaim(err: Error): string | undefined {
  const detail = (err.cause as { cause?: { claim?: unknown } } | undefined)?.cause?.claim;
  return typeof detail === 'string' ? detail : undefined;
}

function toAppError(err: unknown, texts: Sentences, log: FastifyBaseLogger): AppError {
  if (err instanceof AppError) return err;
  const reason = refusalReason(err, texts);
  if (reason !== null) {
    log.warn({ cause: describeError(err) }, `${texts.displayName} sign-in refused`);
    return new AppError('UNAUTHORIZED', reason);
  }
  log.error({ cause: describeError(err) }, `${texts.displayName} sign-in failed at the issuer`);
  return new AppError('BAD_GATEWAY', texts.unavailable);
}

/**
 * A log-safe summary: names, codes and messages only. The errors' own causes can hold the
 * token response or the ID token claims, which must not reach the logs.
 */
function describeError(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) return { value: String(err) };
  const summary: Record<string, unknown> = { name: err.name, message: err.message };
  const extra = err as Error & { code?: unknown; status?: unknown; error?: unknown };
  if (typeof extra.code === 'string') summary.code = extra.code;
  if (typeof extra.status === 'number') summary.status = extra.status;
  if (typeof extra.error === 'string') summary.error = extra.error;
  const claim = failedClaim(err);
  if (claim) summary.claim = claim;
  if (err.cause instanceof Error) summary.cause = { name: err.cause.name, message: err.cause.message, code: (err.cause as { code?: unknown }).code };
  return summary;
}
