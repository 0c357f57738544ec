/**
 * A real OpenID Connect provider for tests: panva's `oidc-provider` (a certified
 * implementation: discovery, JWKS, token endpoint, PKCE enforcement, userinfo) run in this
 * process on 127.0.0.1, with one confidential client and accounts the test defines. As Keycloak,
 * Authentik or Okta do in the code flow, it keeps email and groups out of the ID token
 * (conformIdTokenClaims) and answers them at userinfo.
 *
 * People sign in on its development interactions (a login form that takes any account id, then
 * a consent form): `authorizeWithFetch` drives them over plain HTTP for API tests; a browser
 * fills them in for journeys.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/** An account's claims as the provider hands them out (by scope: email, profile, groups). */
export type ProviderAccount = { email?: unknown; email_verified?: unknown; name?: string; groups?: unknown };

export type OidcProviderHarness = {
  url: string;
  clientId: string;
  clientSecret: string;
  /** Creates or changes an account (its groups, its email's status) for the next sign-in. */
  setAccount(id: string, account: ProviderAccount): void;
  /** The server's environment for signing in through this provider (AUTH_PROVIDER=oidc), its
   * button 'Sign in with Acme SSO' and admins by the groups claim holding one of `adminValues`. */
  serverEnv(adminValues: string): Record<string, string>;
  close(): Promise<void>;
};

export async function startOidcProvider(options: { clientId: string; clientSecret: string; redirectUris: string[] }): Promise<OidcProviderHarness> {
  const accounts = new Map<string, ProviderAccount>();
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(url, {
    clients: [
      {
        client_id: options.clientId,
        client_secret: options.clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        // token_endpoint_auth_method left at the standard's default, client_secret_basic.
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
    scopes: ['openid', 'email', 'profile', 'groups'],
    cookies: { keys: ['oidc-provider-test-cookie-key'] },
    // Its own lifetimes, given so it does not log a notice for each default it falls back to.
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    findAccount: (_ctx, sub) => {
      const account = accounts.get(sub);
      if (!account) return undefined;
      return { accountId: sub, claims: () => ({ sub, ...account }) };
    },
  });
  // Its development interactions say so on stderr at start; the tests know.
  server.on('request', provider.callback());
  return {
    url,
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    setAccount: (id, account) => void accounts.set(id, account),
    serverEnv: (adminValues) => ({
      AUTH_PROVIDER: 'oidc',
      OIDC_ISSUER_URL: url,
      OIDC_CLIENT_ID: options.clientId,
      OIDC_CLIENT_SECRET: options.clientSecret,
      OIDC_SCOPES: 'openid email profile groups',
      OIDC_BUTTON_LABEL: 'Sign in with Acme SSO',
      OIDC_ADMIN_CLAIM: 'groups',
      OIDC_ADMIN_VALUES: adminValues,
    }),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/**
 * Follows the provider's redirects from an authorization URL as a browser would (keeping its
 * cookies), signs in as `login` and consents on its interaction pages, and returns the URL the
 * provider sends the browser back to (our callback with code, state and iss, or an error).
 * `cancel` aborts at the login page instead (the person said no).
 */
export async function authorizeWithFetch(authorizationUrl: string, login: string, options: { callbackPrefix: string; cancel?: boolean }): Promise<URL> {
  const jar = new Map<string, string>();
  const cookieHeader = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const keep = (res: Response) => {
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      const value = pair.slice(at + 1);
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) jar.delete(pair.slice(0, at));
      else jar.set(pair.slice(0, at), value);
    }
  };
  let next = new URL(authorizationUrl);
  let form: { method: 'POST'; body: URLSearchParams } | null = null;
  for (let hop = 0; hop < 20; hop++) {
    if (next.href.startsWith(options.callbackPrefix)) return next;
    const res = await fetch(next, {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: { cookie: cookieHeader(), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(form ? { body: form.body } : {}),
    });
    keep(res);
    form = null;
    const location = res.headers.get('location');
    if (location) {
      next = new URL(location, next);
      continue;
    }
    const html = await res.text();
    if (res.status !== 200) throw new Error(`the provider answered ${res.status} at ${next.pathname}: ${html.slice(0, 300)}`);
    const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
    if (prompt === 'login' && options.cancel) {
      next = new URL(`${next.pathname}/abort`, next);
      continue;
    }
    if (prompt === 'login') form = { method: 'POST', body: new URLSearchParams({ prompt, login, password: 'any' }) };
    else if (prompt === 'consent') form = { method: 'POST', body: new URLSearchParams({ prompt }) };
    else throw new Error(`the provider showed a page this helper does not know at ${next.pathname}`);
  }
  throw new Error('the provider redirected too many times');
}
