/**
 * A fake OpenID Connect issuer ("Google") for tests: a real HTTP server on 127.0.0.1 that speaks
 * just enough of the protocol for the authorization-code flow with PKCE. Its authorize endpoint
 * signs the configured user in at once and sends the browser back to `redirect_uri`, by default
 * with a redirect; faults make it misbehave in the ways the client must refuse.
 *
 * A sign-in page (setSignInPage) makes it behave like Google in a browser: authorize answers a
 * page that goes on after a delay, sent with `Cross-Origin-Opener-Policy: same-origin` as
 * Google's sign-in pages are. In Chromium that policy severs a popup from the page that opened
 * it: the opener's `popup.closed` reads true while the person is still on the provider's page,
 * and the result page's `window.opener` is null. (COOP on a redirect response does not count,
 * hence a page.)
 *
 * Standalone (for Playwright): `node tests/fakes/oidc-issuer.ts` prints its URL. Env:
 * FAKE_OIDC_PORT (default random), FAKE_OIDC_CLIENT_ID, FAKE_OIDC_CLIENT_SECRET. A separate
 * process is steered over HTTP: POST /__control/user, /__control/fault and
 * /__control/sign-in-page with JSON bodies, GET /__control/last-authorize.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

export type FakeOidcUser = {
  sub: string;
  email: string;
  name: string;
  picture?: string;
  email_verified: boolean;
};

/**
 * 'none' behaves; the ID-token faults produce a token the client must refuse; 'access-denied'
 * makes authorize answer `error=access_denied` (the user said no); 'unavailable' answers 503
 * everywhere (the issuer is down).
 */
export const FAKE_OIDC_FAULTS = [
  'none',
  'wrong-audience',
  'expired',
  'bad-nonce',
  'email-unverified',
  'stale-auth',
  'access-denied',
  'unavailable',
] as const;
export type FakeOidcFault = (typeof FAKE_OIDC_FAULTS)[number];

/**
 * The page authorize shows before going back to the client: `cutsOpener` sends
 * `Cross-Origin-Opener-Policy: same-origin` (as Google does), `delaySeconds` is how long the page
 * stays (a person choosing an account). null: no page, an immediate redirect.
 */
export type FakeOidcSignInPage = { cutsOpener: boolean; delaySeconds: number };

/** The query of the last authorize request, as the browser sent it. */
export type AuthorizeRequest = Record<string, string>;

export type FakeOidcIssuer = {
  /** Issuer identifier, also the base URL: `http://127.0.0.1:<port>`. */
  url: string;
  clientId: string;
  clientSecret: string;
  setUser(user: FakeOidcUser): void;
  setFault(fault: FakeOidcFault): void;
  setSignInPage(page: FakeOidcSignInPage | null): void;
  lastAuthorizeRequest(): AuthorizeRequest | null;
  /** How many codes the token endpoint has redeemed; lets tests see whether an exchange happened. */
  tokenRequests(): number;
  close(): Promise<void>;
};

export type FakeOidcOptions = { port?: number; clientId?: string; clientSecret?: string };

export const DEFAULT_FAKE_USER: FakeOidcUser = {
  sub: '104938271640000000001',
  email: 'ada@example.com',
  name: 'Ada Lovelace',
  picture: 'https://lh3.googleusercontent.com/a/fake-ada',
  email_verified: true,
};

const CODE_TTL_MS = 60_000;
const ID_TOKEN_TTL_SECONDS = 3600;

type PendingCode = {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  nonce: string | undefined;
  user: FakeOidcUser;
  fault: FakeOidcFault;
  expiresAt: number;
};

type State = {
  url: string;
  clientId: string;
  clientSecret: string;
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
  user: FakeOidcUser;
  fault: FakeOidcFault;
  signInPage: FakeOidcSignInPage | null;
  codes: Map<string, PendingCode>;
  lastAuthorize: AuthorizeRequest | null;
  tokenRequests: number;
};

export async function startFakeOidcIssuer(options: FakeOidcOptions = {}): Promise<FakeOidcIssuer> {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const kid = randomUUID();
  const state: State = {
    url: '',
    clientId: options.clientId ?? 'test-client-id',
    clientSecret: options.clientSecret ?? 'test-client-secret',
    kid,
    privateKey,
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' },
    user: DEFAULT_FAKE_USER,
    fault: 'none',
    signInPage: null,
    codes: new Map(),
    lastAuthorize: null,
    tokenRequests: 0,
  };

  const server = createServer((req, res) => {
    handle(state, req, res).catch((err: unknown) => {
      console.error('fake OIDC issuer failed', err);
      if (!res.headersSent) sendJson(res, 500, { error: 'server_error' });
      else res.end();
    });
  });
  // Outlive the client's idle keep-alive (undici: 4 s), so the client always closes an idle
  // connection first; otherwise a request can race the server's close and fail with ECONNRESET.
  server.keepAliveTimeout = 60_000;
  await listen(server, options.port ?? 0);
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: state.url,
    clientId: state.clientId,
    clientSecret: state.clientSecret,
    setUser: (user) => {
      state.user = { ...user };
    },
    setFault: (fault) => {
      state.fault = fault;
    },
    setSignInPage: (page) => {
      state.signInPage = page && { ...page };
    },
    lastAuthorizeRequest: () => state.lastAuthorize,
    tokenRequests: () => state.tokenRequests,
    close: () => close(server),
  };
}

async function handle(state: State, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', state.url);
  if (url.pathname.startsWith('/__control/')) return control(state, req, res, url.pathname);
  if (state.fault === 'unavailable') return sendJson(res, 503, { error: 'temporarily_unavailable' });

  switch (`${req.method} ${url.pathname}`) {
    case 'GET /.well-known/openid-configuration':
      return sendJson(res, 200, discoveryDocument(state.url));
    case 'GET /jwks':
      return sendJson(res, 200, { keys: [state.publicJwk] });
    case 'GET /authorize':
      return authorize(state, url, res);
    case 'POST /token':
      return token(state, req, res);
    default:
      return sendJson(res, 404, { error: 'not_found' });
  }
}

function discoveryDocument(issuer: string) {
  return {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    jwks_uri: `${issuer}/jwks`,
    response_types_supported: ['code'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
    scopes_supported: ['openid', 'email', 'profile'],
    token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
    code_challenge_methods_supported: ['S256'],
    claims_supported: ['aud', 'email', 'email_verified', 'exp', 'iat', 'auth_time', 'iss', 'name', 'picture', 'sub', 'nonce'],
  };
}

/** Signs the current user in at once and sends the browser back with a code (or an error),
 * through the sign-in page when one is set. */
function authorize(state: State, url: URL, res: ServerResponse): void {
  const query = Object.fromEntries(url.searchParams);
  state.lastAuthorize = query;
  const redirectUri = query.redirect_uri;
  if (!redirectUri || query.client_id !== state.clientId) {
    return sendJson(res, 400, { error: 'invalid_request', error_description: 'unknown client or missing redirect_uri' });
  }
  const back = new URL(redirectUri);
  if (query.state !== undefined) back.searchParams.set('state', query.state);
  const problem = authorizeProblem(query, state.fault);
  if (problem) {
    back.searchParams.set('error', problem);
  } else {
    const code = randomBytes(24).toString('base64url');
    state.codes.set(code, {
      clientId: state.clientId,
      redirectUri,
      codeChallenge: query.code_challenge!,
      nonce: query.nonce,
      user: state.user,
      fault: state.fault,
      expiresAt: Date.now() + CODE_TTL_MS,
    });
    back.searchParams.set('code', code);
  }
  if (state.signInPage) return signInPage(res, back, state.signInPage);
  res.writeHead(302, { location: back.href, 'cache-control': 'no-store' }).end();
}

/** A page in place of Google's account chooser: it goes on to `back` by itself (a meta refresh,
 * so it needs no script). */
function signInPage(res: ServerResponse, back: URL, page: FakeOidcSignInPage): void {
  const target = back.href.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="refresh" content="${page.delaySeconds};url=${target}">
<title>Sign in - Fake Google</title>
</head>
<body><p>Signing you in…</p></body>
</html>
`;
  res
    .writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      ...(page.cutsOpener ? { 'cross-origin-opener-policy': 'same-origin' } : {}),
    })
    .end(html);
}

function authorizeProblem(query: AuthorizeRequest, fault: FakeOidcFault): string | null {
  if (fault === 'access-denied') return 'access_denied';
  if (query.response_type !== 'code') return 'unsupported_response_type';
  if (!query.scope?.split(' ').includes('openid')) return 'invalid_scope';
  // Like Google for this client: PKCE is required and only S256 is accepted.
  if (!query.code_challenge || query.code_challenge_method !== 'S256') return 'invalid_request';
  return null;
}

/** Redeems a code once, after checking the client, the redirect URI and the PKCE verifier. */
async function token(state: State, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = new URLSearchParams(await readBody(req));
  const client = clientCredentials(req, body);
  if (client.id !== state.clientId || client.secret !== state.clientSecret) {
    return sendJson(res, 401, { error: 'invalid_client' });
  }
  if (body.get('grant_type') !== 'authorization_code') return sendJson(res, 400, { error: 'unsupported_grant_type' });

  const code = body.get('code') ?? '';
  const pending = state.codes.get(code);
  state.codes.delete(code);
  const verifier = body.get('code_verifier') ?? '';
  const valid =
    pending !== undefined &&
    pending.expiresAt > Date.now() &&
    pending.clientId === client.id &&
    pending.redirectUri === body.get('redirect_uri') &&
    s256(verifier) === pending.codeChallenge;
  if (!valid) return sendJson(res, 400, { error: 'invalid_grant' });

  state.tokenRequests += 1;
  sendJson(res, 200, {
    access_token: randomBytes(24).toString('base64url'),
    token_type: 'Bearer',
    expires_in: ID_TOKEN_TTL_SECONDS,
    scope: 'openid email profile',
    id_token: await idToken(state, pending),
  });
}

function idToken(state: State, pending: PendingCode): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const { user, fault } = pending;
  let iat = now;
  let exp = now + ID_TOKEN_TTL_SECONDS;
  if (fault === 'expired') {
    // Expired well past the usual 30 s tolerance, yet issued recently enough for the age check.
    iat = now - 3 * 60;
    exp = now - 2 * 60;
  } else if (fault === 'stale-auth') {
    iat = now - 10 * 60;
    exp = iat + ID_TOKEN_TTL_SECONDS;
  }
  const claims = {
    email: user.email,
    email_verified: fault === 'email-unverified' ? false : user.email_verified,
    name: user.name,
    ...(user.picture !== undefined ? { picture: user.picture } : {}),
    auth_time: iat,
    ...(pending.nonce !== undefined ? { nonce: fault === 'bad-nonce' ? 'not-the-nonce-you-sent' : pending.nonce } : {}),
  };
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid: state.kid, typ: 'JWT' })
    .setIssuer(state.url)
    .setAudience(fault === 'wrong-audience' ? 'some-other-client.apps.example' : pending.clientId)
    .setSubject(user.sub)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(state.privateKey);
}

/** client_secret_post or client_secret_basic, whichever the client used. */
function clientCredentials(req: IncomingMessage, body: URLSearchParams): { id: string | null; secret: string | null } {
  const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '');
  if (basic) {
    const [id = '', secret = ''] = Buffer.from(basic[1]!, 'base64').toString('utf8').split(':');
    return { id: decodeURIComponent(id), secret: decodeURIComponent(secret) };
  }
  return { id: body.get('client_id'), secret: body.get('client_secret') };
}

/** Lets a test runner in another process steer the issuer. */
async function control(state: State, req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
  if (req.method === 'GET' && path === '/__control/last-authorize') return sendJson(res, 200, state.lastAuthorize);
  if (req.method !== 'POST') return sendJson(res, 405, { error: 'method_not_allowed' });
  const input: unknown = JSON.parse((await readBody(req)) || 'null');
  if (path === '/__control/user' && isUser(input)) {
    state.user = input;
    return sendJson(res, 200, state.user);
  }
  if (path === '/__control/fault' && isFaultBody(input)) {
    state.fault = input.fault;
    return sendJson(res, 200, { fault: state.fault });
  }
  if (path === '/__control/sign-in-page' && (input === null || isSignInPage(input))) {
    state.signInPage = input;
    return sendJson(res, 200, { signInPage: state.signInPage });
  }
  sendJson(res, 400, { error: 'invalid_request' });
}

function isUser(value: unknown): value is FakeOidcUser {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.sub === 'string' &&
    typeof v.email === 'string' &&
    typeof v.name === 'string' &&
    typeof v.email_verified === 'boolean' &&
    (v.picture === undefined || typeof v.picture === 'string')
  );
}

function isSignInPage(value: unknown): value is FakeOidcSignInPage {
  if (typeof value !== 'object' || value === null) return false;
  const { cutsOpener, delaySeconds } = value as Record<string, unknown>;
  return typeof cutsOpener === 'boolean' && Number.isInteger(delaySeconds) && (delaySeconds as number) >= 0 && (delaySeconds as number) <= 60;
}

function isFaultBody(value: unknown): value is { fault: FakeOidcFault } {
  const fault = (value as { fault?: unknown } | null)?.fault;
  return (FAKE_OIDC_FAULTS as readonly unknown[]).includes(fault);
}

function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((err) => (err ? reject(err) : resolve()));
    // Keep-alive sockets from fetch() would otherwise hold close() open.
    server.closeAllConnections();
  });
}

const runDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (runDirectly) {
  const issuer = await startFakeOidcIssuer({
    port: Number(process.env.FAKE_OIDC_PORT ?? 0),
    clientId: process.env.FAKE_OIDC_CLIENT_ID || undefined,
    clientSecret: process.env.FAKE_OIDC_CLIENT_SECRET || undefined,
  });
  console.log(issuer.url);
  const stop = () => void issuer.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
