import { createHash } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_FAKE_USER, startFakeOidcIssuer, type FakeOidcIssuer } from './oidc-issuer.ts';

// The Google sign-in tests trust this fake to refuse what Google refuses; these pin that down.
const REDIRECT_URI = 'http://localhost:3000/api/auth/google/callback';
const VERIFIER = 'v'.repeat(43);

let issuer: FakeOidcIssuer;

beforeAll(async () => {
  issuer = await startFakeOidcIssuer();
});
afterAll(async () => issuer?.close());
beforeEach(() => {
  issuer.setFault('none');
  issuer.setUser(DEFAULT_FAKE_USER);
  issuer.setSignInPage(null);
});

function authorizeUrl(params: Record<string, string> = {}): URL {
  const url = new URL(`${issuer.url}/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: issuer.clientId,
    redirect_uri: REDIRECT_URI,
    scope: 'openid email profile',
    state: 'the-state',
    nonce: 'the-nonce',
    code_challenge: createHash('sha256').update(VERIFIER).digest('base64url'),
    code_challenge_method: 'S256',
    ...params,
  }).toString();
  return url;
}

async function authorize(params: Record<string, string> = {}): Promise<URL> {
  const res = await fetch(authorizeUrl(params), { redirect: 'manual' });
  expect(res.status).toBe(302);
  return new URL(res.headers.get('location')!);
}

function redeem(code: string, overrides: Record<string, string> = {}) {
  return fetch(`${issuer.url}/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: VERIFIER,
      client_id: issuer.clientId,
      client_secret: issuer.clientSecret,
      ...overrides,
    }),
  });
}

describe('fake OIDC issuer', () => {
  it('publishes discovery for its own issuer URL', async () => {
    const doc = await (await fetch(`${issuer.url}/.well-known/openid-configuration`)).json();
    expect(doc).toMatchObject({ issuer: issuer.url, token_endpoint: `${issuer.url}/token`, code_challenge_methods_supported: ['S256'] });
  });

  it('issues an RS256 ID token, verifiable with its JWKS, for a good code exchange', async () => {
    const back = await authorize();
    expect(back.searchParams.get('state')).toBe('the-state');
    const res = await redeem(back.searchParams.get('code')!);
    expect(res.status).toBe(200);
    const { id_token: idToken } = (await res.json()) as { id_token: string };
    const { payload } = await jwtVerify(idToken, createRemoteJWKSet(new URL(`${issuer.url}/jwks`)), {
      issuer: issuer.url,
      audience: issuer.clientId,
    });
    expect(payload).toMatchObject({ sub: DEFAULT_FAKE_USER.sub, email: DEFAULT_FAKE_USER.email, email_verified: true, nonce: 'the-nonce' });
  });

  it.each([
    ['a wrong client secret', { client_secret: 'wrong' }, 401, 'invalid_client'],
    ['a wrong PKCE verifier', { code_verifier: 'w'.repeat(43) }, 400, 'invalid_grant'],
    ['another redirect URI', { redirect_uri: 'http://localhost:3000/elsewhere' }, 400, 'invalid_grant'],
  ])('refuses the exchange with %s', async (_label, overrides, status, error) => {
    const back = await authorize();
    const res = await redeem(back.searchParams.get('code')!, overrides);
    expect(res.status).toBe(status);
    expect(await res.json()).toEqual({ error });
  });

  it('redeems a code once only', async () => {
    const code = (await authorize()).searchParams.get('code')!;
    expect((await redeem(code)).status).toBe(200);
    expect((await redeem(code)).status).toBe(400);
  });

  it('refuses an authorize request without S256 PKCE', async () => {
    const back = await authorize({ code_challenge_method: 'plain' });
    expect(back.searchParams.get('error')).toBe('invalid_request');
    expect(back.searchParams.get('code')).toBeNull();
  });

  describe('with a sign-in page, like Google in a browser', () => {
    /** The page authorize answers, and where its refresh goes after how long. */
    async function signInPage() {
      const res = await fetch(authorizeUrl(), { redirect: 'manual' });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      const refresh = /<meta http-equiv="refresh" content="(\d+);url=([^"]+)">/.exec(await res.text());
      expect(refresh).not.toBeNull();
      return { res, delay: Number(refresh![1]), back: new URL(refresh![2]!.replace(/&amp;/g, '&')) };
    }

    it('cuts the opener with Cross-Origin-Opener-Policy: same-origin, then goes back with a code', async () => {
      issuer.setSignInPage({ cutsOpener: true, delaySeconds: 2 });
      const { res, delay, back } = await signInPage();
      expect(res.headers.get('cross-origin-opener-policy')).toBe('same-origin');
      expect(delay).toBe(2);
      expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
      expect(back.searchParams.get('state')).toBe('the-state');
      expect((await redeem(back.searchParams.get('code')!)).status).toBe(200);
    });

    it('keeps the opener without the policy, and carries a refusal back too', async () => {
      issuer.setSignInPage({ cutsOpener: false, delaySeconds: 0 });
      issuer.setFault('access-denied');
      const { res, back } = await signInPage();
      expect(res.headers.get('cross-origin-opener-policy')).toBeNull();
      expect(back.searchParams.get('error')).toBe('access_denied');
    });

    it('is set over HTTP by a separate process, and unset with null', async () => {
      const set = (body: unknown) =>
        fetch(`${issuer.url}/__control/sign-in-page`, { method: 'POST', body: JSON.stringify(body) });
      expect((await set({ cutsOpener: true, delaySeconds: 1 })).status).toBe(200);
      expect((await signInPage()).res.headers.get('cross-origin-opener-policy')).toBe('same-origin');
      expect((await set({ cutsOpener: 'yes', delaySeconds: 1 })).status).toBe(400);
      expect((await set(null)).status).toBe(200);
      await authorize(); // an immediate redirect again
    });
  });

  it('can be steered over HTTP when it runs as a separate process', async () => {
    const post = (path: string, body: unknown) =>
      fetch(`${issuer.url}/__control/${path}`, { method: 'POST', body: JSON.stringify(body) });
    expect((await post('fault', { fault: 'access-denied' })).status).toBe(200);
    expect((await authorize()).searchParams.get('error')).toBe('access_denied');
    expect((await post('fault', { fault: 'not-a-fault' })).status).toBe(400);

    await post('fault', { fault: 'none' });
    const user = { sub: 'control-sub', email: 'c@example.com', name: 'C', email_verified: true };
    expect((await post('user', user)).status).toBe(200);
    const code = (await authorize({ nonce: 'n2' })).searchParams.get('code')!;
    const { id_token: idToken } = (await (await redeem(code)).json()) as { id_token: string };
    const claims = JSON.parse(Buffer.from(idToken.split('.')[1]!, 'base64url').toString('utf8'));
    expect(claims).toMatchObject({ sub: 'control-sub', nonce: 'n2' });

    const last = await (await fetch(`${issuer.url}/__control/last-authorize`)).json();
    expect(last).toMatchObject({ nonce: 'n2', client_id: issuer.clientId });
  });
});
