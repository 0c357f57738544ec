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
});

async function authorize(params: Record<string, string> = {}): Promise<URL> {
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
  const res = await fetch(url, { redirect: 'manual' });
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
