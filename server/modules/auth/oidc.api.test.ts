import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeWithFetch, startOidcProvider, type OidcProviderHarness } from '../../../tests/fakes/oidc-provider.ts';
import { createTestApp, TEST_ORIGIN, type TestApp } from '../../test/test-app.ts';
import { countUsers } from '../../test/user-count.ts';

// Sign-in with an OpenID Connect provider of the operator's (AUTH_PROVIDER=oidc) against a real
// certified implementation (oidc-provider) on 127.0.0.1: discovery, PKCE, state, nonce, the
// token endpoint, userinfo; the role from its groups claim at every sign-in. On PGlite and, with
// TEST_POSTGRES_URL, PostgreSQL. One provider and one app for the file.

const CALLBACK = `${TEST_ORIGIN}/api/auth/oidc/callback`;
const ADMINS = 'automation-admins';

let provider: OidcProviderHarness;
let t: TestApp;

beforeAll(async () => {
  provider = await startOidcProvider({ clientId: 'hub', clientSecret: 'hub-secret-for-tests', redirectUris: [CALLBACK] });
  const clientDir = mkdtempSync(path.join(tmpdir(), 'oidc-client-'));
  writeFileSync(path.join(clientDir, 'index.html'), '<!doctype html><title>%SITE_NAME%</title><!--app-config--><div id="root"></div>');
  t = await createTestApp({
    clientDir,
    env: provider.serverEnv(`${ADMINS}, other-admins`),
  });
});
afterAll(async () => {
  await t?.close();
  await provider?.close();
});

function sessionCookie(res: LightMyRequestResponse): string | undefined {
  const header = res.headers['set-cookie'];
  const lines = header === undefined ? [] : Array.isArray(header) ? header : [header];
  return lines.find((l) => l.startsWith('sid=') && !l.startsWith('sid=;'))?.split(';')[0];
}

/** The sentence the result page shows (and posts to the tab, which toasts 'Login failed' with it). */
function pageText(res: LightMyRequestResponse): string {
  const html = /<p>([^<]*)<\/p>/.exec(res.body)?.[1] ?? '';
  return html.replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** start -> the provider's login and consent as `login` -> our callback. */
async function signIn(login: string, options: { cancel?: boolean } = {}) {
  const start = await t.request({ url: '/api/auth/oidc/start?attempt=tab-attempt_0123456789abcdef' });
  expect(start.statusCode).toBe(302);
  const location = new URL(start.headers.location as string);
  expect(location.origin).toBe(provider.url);
  expect(location.searchParams.get('code_challenge_method')).toBe('S256');
  expect(location.searchParams.get('scope')).toBe('openid email profile groups');
  const txCookie = (start.headers['set-cookie'] as string).split(';')[0]!;
  expect(txCookie.startsWith('oidc_signin=')).toBe(true);
  const back = await authorizeWithFetch(location.href, login, { callbackPrefix: CALLBACK, ...options });
  const res = await t.request({ url: `${back.pathname}${back.search}`, cookie: txCookie });
  return { res, session: sessionCookie(res) };
}

async function me(cookie: string) {
  const res = await t.request({ url: '/api/auth/me', cookie });
  return (res.json() as { user: { email: string; name: string; role: string; googleId: string | null } | null }).user;
}

describe('sign-in with any OpenID Connect provider', () => {
  it('the page config names the provider and its button label', async () => {
    const res = await t.request({ url: '/login' });
    const config = /<script type="application\/json" id="app-config">([^<]*)<\/script>/.exec(res.body);
    expect(JSON.parse(config![1]!)).toMatchObject({ authProvider: 'oidc', signInLabel: 'Sign in with Acme SSO' });
  });

  it('signs a person in with the email and name from userinfo, as a guest outside the admin group', async () => {
    provider.setAccount('dana', { email: 'Dana@Example.com', email_verified: true, name: 'Dana Reyes', groups: ['staff'] });
    const { res, session } = await signIn('dana');
    expect(res.statusCode).toBe(200);
    expect(pageText(res)).toBe('Signed in as Dana Reyes.');
    expect(await me(session!)).toMatchObject({ email: 'dana@example.com', name: 'Dana Reyes', role: 'guest', googleId: null });
  });

  it('the admin claim makes an admin; removed from the group, the next sign-in demotes them and ends their other sessions', async () => {
    provider.setAccount('ada', { email: 'ada@example.com', email_verified: true, name: 'Ada', groups: ['staff', ADMINS] });
    const first = await signIn('ada');
    const second = await signIn('ada');
    expect(await me(first.session!)).toMatchObject({ role: 'admin' });
    expect((await t.request({ url: '/api/users', cookie: second.session! })).statusCode).toBe(200);

    provider.setAccount('ada', { email: 'ada@example.com', email_verified: true, name: 'Ada', groups: ['staff'] });
    const demoted = await signIn('ada');
    expect(demoted.res.statusCode).toBe(200);
    expect(await me(demoted.session!)).toMatchObject({ role: 'guest' });
    expect((await t.request({ url: '/api/users', cookie: demoted.session! })).statusCode).toBe(403);
    // The sessions she had as admin ended with that sign-in.
    expect(await me(first.session!)).toBeNull();
    expect((await t.request({ url: '/api/users', cookie: second.session! })).statusCode).toBe(401);
  });

  it('a promotion applies at once to the sessions a person already has', async () => {
    provider.setAccount('lin', { email: 'lin@example.com', email_verified: true, name: 'Lin', groups: 'staff' });
    const before = await signIn('lin');
    expect(await me(before.session!)).toMatchObject({ role: 'guest' });
    provider.setAccount('lin', { email: 'lin@example.com', email_verified: true, name: 'Lin', groups: 'other-admins' });
    await signIn('lin');
    expect(await me(before.session!)).toMatchObject({ role: 'admin' });
  });

  it('an account without the claim at all is a guest (providers leave an empty groups claim out)', async () => {
    provider.setAccount('noah', { email: 'noah@example.com', name: 'Noah' });
    const { session } = await signIn('noah');
    expect(await me(session!)).toMatchObject({ role: 'guest' });
  });

  describe('refusals give the reason and sign nobody in', () => {
    const refusals: Array<[string, Parameters<OidcProviderHarness['setAccount']>[1], string]> = [
      ['an email the provider says is unverified', { email: 'una@example.com', email_verified: false, groups: [ADMINS] }, "SSO sign-in was refused: the account's email address is not verified"],
      ['no email', { name: 'No Mail', groups: [ADMINS] }, 'SSO sign-in was refused: SSO sent no email address for this account'],
      ['a claim of the wrong type', { email: 'odd@example.com', email_verified: true, groups: { admins: true } }, 'SSO sign-in was refused: the groups claim is not a text or a list of texts, so your role cannot be decided'],
      ['a list claim holding a number', { email: 'num@example.com', email_verified: true, groups: [ADMINS, 7] }, 'SSO sign-in was refused: the groups claim is not a text or a list of texts, so your role cannot be decided'],
    ];
    for (const [what, account, sentence] of refusals) {
      it(what, async () => {
        const login = `refused-${what.replace(/\W+/g, '-')}`;
        provider.setAccount(login, account);
        const usersBefore = await countUsers(t.database.db);
        const { res, session } = await signIn(login);
        expect(res.statusCode).toBe(401);
        expect(pageText(res)).toBe(sentence);
        expect(session).toBeUndefined();
        expect(await countUsers(t.database.db)).toBe(usersBefore);
      });
    }

    it('the person cancelling at the provider', async () => {
      provider.setAccount('quits', { email: 'quits@example.com', email_verified: true });
      const { res, session } = await signIn('quits', { cancel: true });
      expect(res.statusCode).toBe(401);
      expect(pageText(res)).toBe('SSO sign-in was cancelled.');
      expect(session).toBeUndefined();
    });
  });
});
