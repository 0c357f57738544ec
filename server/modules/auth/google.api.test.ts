import { createHash } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_FAKE_USER, startFakeOidcIssuer, type FakeOidcFault, type FakeOidcIssuer } from '../../../tests/fakes/oidc-issuer.ts';
import { createTestApp, TEST_ORIGIN, type TestApp } from '../../test/test-app.ts';
import { countUsers } from '../../test/user-count.ts';
import { RESULT_PAGE_CSP } from './sign-in-result-page.ts';

const CLIENT_ID = 'test-client.apps.googleusercontent.com';
const CLIENT_SECRET = 'test-client-secret';
const TX_COOKIE = 'google_signin';
const CALLBACK_URL = `${TEST_ORIGIN}/api/auth/google/callback`;

let fake: FakeOidcIssuer;
let t: TestApp;

beforeAll(async () => {
  fake = await startFakeOidcIssuer({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
});
afterAll(async () => fake?.close());
beforeEach(() => {
  fake.setFault('none');
  fake.setUser(DEFAULT_FAKE_USER);
});
afterEach(async () => t?.close().catch(() => {}));

function googleApp(env: Record<string, string> = {}): Promise<TestApp> {
  return createTestApp({
    env: { AUTH_PROVIDER: 'google', GOOGLE_CLIENT_ID: CLIENT_ID, GOOGLE_CLIENT_SECRET: CLIENT_SECRET, OIDC_ISSUER: fake.url, ...env },
  });
}

/** `name=value` exactly as the server sent it (still URL-encoded), as a browser sends it back. */
function rawCookie(res: LightMyRequestResponse, name: string): string | undefined {
  const header = res.headers['set-cookie'];
  const lines = header === undefined ? [] : Array.isArray(header) ? header : [header];
  const line = lines.find((l) => l.startsWith(`${name}=`));
  return line?.split(';')[0];
}

function setCookieLine(res: LightMyRequestResponse, name: string): string | undefined {
  const header = res.headers['set-cookie'];
  const lines = header === undefined ? [] : Array.isArray(header) ? header : [header];
  return lines.find((l) => l.startsWith(`${name}=`));
}

/** The transaction the signed cookie holds (signed, not encrypted, so a test can read it). */
function decodeTransaction(cookie: string): { state: string; nonce: string; codeVerifier: string; attempt?: string; expiresAt: number } {
  const value = decodeURIComponent(cookie.slice(cookie.indexOf('=') + 1));
  const payload = value.slice(0, value.lastIndexOf('.'));
  return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
}

type Started = { start: LightMyRequestResponse; txCookie: string; callbackPath: string };

/** An attempt id as the app's popup makes one. */
const ATTEMPT = 'tab-attempt_0123456789abcdef';

/** start (for `attempt`, if given) -> the fake's authorize endpoint -> the callback URL it
 * redirects the browser to. */
async function startAndAuthorize(app: TestApp, options: { remoteAddress?: string; attempt?: string } = {}): Promise<Started> {
  const { attempt, ...request } = options;
  const query = attempt === undefined ? '' : `?attempt=${encodeURIComponent(attempt)}`;
  const start = await app.request({ url: `/api/auth/google/start${query}`, ...request });
  expect(start.statusCode).toBe(302);
  const txCookie = rawCookie(start, TX_COOKIE);
  expect(txCookie).toBeDefined();
  const authorize = await fetch(start.headers.location as string, { redirect: 'manual' });
  expect(authorize.status).toBe(302);
  const back = new URL(authorize.headers.get('location')!);
  expect(`${back.origin}${back.pathname}`).toBe(CALLBACK_URL);
  return { start, txCookie: txCookie!, callbackPath: `${back.pathname}${back.search}` };
}

function callback(app: TestApp, path: string, cookies: Array<string | undefined>): Promise<LightMyRequestResponse> {
  const cookie = cookies.filter(Boolean).join('; ');
  return app.request({ url: path, ...(cookie ? { cookie } : {}) });
}

async function signInWithGoogle(app: TestApp, sessionCookie?: string, attempt?: string) {
  const { txCookie, callbackPath } = await startAndAuthorize(app, attempt === undefined ? {} : { attempt });
  const res = await callback(app, callbackPath, [txCookie, sessionCookie]);
  return { res, session: rawCookie(res, 'sid') };
}

/** The data block the result page posts to its opener. */
function pageResult(res: LightMyRequestResponse): { result: { type: string; ok: boolean; message?: string; attempt?: string }; origin: string } {
  const match = /<script type="application\/json" id="result">([^<]*)<\/script>/.exec(res.body);
  expect(match).not.toBeNull();
  return JSON.parse(match![1]!);
}

type ScriptRun = { openerPosts: unknown[][]; channelPosts: unknown[][]; closed: boolean; redirectedTo: string | null };

/**
 * Runs the page's inline script against a minimal stand-in for the popup window, as a browser
 * would: it reads the data block, reports, closes, or goes on to the app if it cannot close.
 */
function runResultScript(res: LightMyRequestResponse, popup: { hasOpener: boolean; closable: boolean }): ScriptRun {
  const data = /<script type="application\/json" id="result">([^<]*)<\/script>/.exec(res.body)![1]!;
  const script = /<script>([\s\S]*?)<\/script>/.exec(res.body)![1]!;
  const run: ScriptRun = { openerPosts: [], channelPosts: [], closed: false, redirectedTo: null };
  const win = {
    opener: popup.hasOpener ? { postMessage: (...args: unknown[]) => run.openerPosts.push(args) } : null,
    get closed() {
      return run.closed;
    },
    close() {
      if (popup.closable) run.closed = true;
    },
    location: { replace: (url: string) => (run.redirectedTo = url) },
  };
  const doc = { getElementById: (id: string) => (id === 'result' ? { textContent: data } : null) };
  class Channel {
    name: string;
    constructor(name: string) {
      this.name = name;
    }
    postMessage(message: unknown) {
      run.channelPosts.push([this.name, message]);
    }
    close() {}
  }
  new Function('window', 'document', 'BroadcastChannel', script)(win, doc, Channel);
  return run;
}

/** A loopback port nothing listens on (connection refused), unlike fetch's blocked ports. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function me(app: TestApp, cookie: string | undefined) {
  const res = await app.request({ url: '/api/auth/me', ...(cookie ? { cookie } : {}) });
  return res.json().user;
}

function expectRefused(res: LightMyRequestResponse, status: number, message: string | RegExp) {
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toMatch(/^text\/html/);
  expect(res.headers['content-security-policy']).toBe(RESULT_PAGE_CSP);
  const { result } = pageResult(res);
  expect(result).toMatchObject({ type: 'auth:google', ok: false });
  expect(result.message).toMatch(message);
  expect(res.body).not.toMatch(/\bat \S+ \(|Error:/); // no stack trace, no raw error
  expect(rawCookie(res, 'sid')).toBeUndefined();
}

describe('Google sign-in (OpenID Connect)', () => {
  it('signs a new user in: user keyed by sub, HttpOnly Lax session, CSP-safe result page', async () => {
    t = await googleApp();
    const { res, session } = await signInWithGoogle(t);

    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const sessionLine = setCookieLine(res, 'sid')!;
    expect(sessionLine).toMatch(/; HttpOnly/i);
    expect(sessionLine).toMatch(/; SameSite=Lax/i);
    expect(sessionLine).toMatch(/; Path=\//);
    // The one-time transaction cookie is cleared.
    expect(setCookieLine(res, TX_COOKIE)).toMatch(/Expires=Thu, 01 Jan 1970|Max-Age=0/i);

    const user = await me(t, session);
    expect(user).toMatchObject({
      googleId: DEFAULT_FAKE_USER.sub,
      email: DEFAULT_FAKE_USER.email,
      name: DEFAULT_FAKE_USER.name,
      profilePicture: DEFAULT_FAKE_USER.picture,
      role: 'guest',
    });
    expect(await countUsers(t.database.db)).toBe(1);
    expect(pageResult(res)).toEqual({ result: { type: 'auth:google', ok: true }, origin: TEST_ORIGIN });
  });

  it('gives the result page its own CSP that allows exactly its inline script', async () => {
    t = await googleApp();
    const { res } = await signInWithGoogle(t);
    const csp = res.headers['content-security-policy'] as string;
    expect(csp).toBe(RESULT_PAGE_CSP);
    expect(csp).not.toContain('unsafe-inline');
    const scripts = [...res.body.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    expect(scripts).toHaveLength(1);
    const hash = createHash('sha256').update(scripts[0]!).digest('base64');
    expect(csp).toContain(`script-src 'sha256-${hash}'`);
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    // Our pages' same-origin-allow-popups would cut the popup from its opener on this page.
    expect(res.headers['cross-origin-opener-policy']).toBe('unsafe-none');
  });

  it("the page's script reports to the opener (exact origin) and the channel, then closes", async () => {
    t = await googleApp();
    const { res } = await signInWithGoogle(t);
    const result = { type: 'auth:google', ok: true };

    const popup = runResultScript(res, { hasOpener: true, closable: true });
    expect(popup.openerPosts).toEqual([[result, TEST_ORIGIN]]);
    expect(popup.channelPosts).toEqual([['auth', result]]);
    expect(popup).toMatchObject({ closed: true, redirectedTo: null });

    // Opener cut by COOP: the channel still carries the result and the popup still closes.
    const severed = runResultScript(res, { hasOpener: false, closable: true });
    expect(severed.channelPosts).toEqual([['auth', result]]);
    expect(severed).toMatchObject({ closed: true, redirectedTo: null });

    // Opened as a full tab (cannot close itself): it goes on to the app.
    expect(runResultScript(res, { hasOpener: false, closable: false }).redirectedTo).toBe('/dashboard');
  });

  it("the failure page's script reports the message to the attempt, closes, and in a full tab goes home", async () => {
    fake.setFault('access-denied');
    t = await googleApp();
    const { res } = await signInWithGoogle(t, undefined, ATTEMPT);
    const result = { type: 'auth:google', ok: false, message: 'Google sign-in was cancelled.', attempt: ATTEMPT };
    const popup = runResultScript(res, { hasOpener: true, closable: true });
    expect(popup.openerPosts).toEqual([[result, TEST_ORIGIN]]);
    expect(popup.channelPosts).toEqual([['auth', result]]);
    expect(popup.closed).toBe(true);
    expect(runResultScript(res, { hasOpener: false, closable: false }).redirectedTo).toBe('/');
  });

  it('a failure addressed to no attempt stays on screen, with a way back to the site', async () => {
    fake.setFault('access-denied');
    t = await googleApp();
    const { res } = await signInWithGoogle(t); // started without an attempt (a full-page sign-in)
    const run = runResultScript(res, { hasOpener: false, closable: true });
    expect(run).toMatchObject({ closed: false, redirectedTo: null });
    expect(res.body).toContain('Google sign-in was cancelled.');
    expect(res.body).toContain('<a href="/">back to the site</a>');
  });

  describe('names the attempt of the tab that started it', () => {
    it('keeps the attempt in the signed transaction and echoes it on success', async () => {
      t = await googleApp();
      const { txCookie, callbackPath } = await startAndAuthorize(t, { attempt: ATTEMPT });
      expect(decodeTransaction(txCookie).attempt).toBe(ATTEMPT);
      expect(fake.lastAuthorizeRequest()!.state).not.toContain(ATTEMPT); // Google never sees it
      const res = await callback(t, callbackPath, [txCookie]);
      expect(res.statusCode).toBe(200);
      expect(pageResult(res).result).toEqual({ type: 'auth:google', ok: true, attempt: ATTEMPT });
    });

    it.each<[FakeOidcFault, number, RegExp]>([
      ['email-unverified', 401, /email address is not verified/],
      ['access-denied', 401, /^Google sign-in was cancelled\.$/],
    ])('echoes it on a refusal (%s)', async (fault, status, message) => {
      fake.setFault(fault);
      t = await googleApp();
      const { res } = await signInWithGoogle(t, undefined, ATTEMPT);
      expectRefused(res, status, message);
      expect(pageResult(res).result.attempt).toBe(ATTEMPT);
    });

    it('echoes it when the issuer is unavailable at the start', async () => {
      fake.setFault('unavailable');
      t = await googleApp();
      const res = await t.request({ url: `/api/auth/google/start?attempt=${ATTEMPT}` });
      expectRefused(res, 502, /^Google sign-in is unavailable right now$/);
      expect(pageResult(res).result.attempt).toBe(ATTEMPT);
    });

    it("does not echo it when the callback is not this browser's transaction", async () => {
      t = await googleApp();
      const first = await startAndAuthorize(t, { attempt: ATTEMPT });
      const second = await startAndAuthorize(t, { attempt: 'another-tab-attempt-0000' });
      const res = await callback(t, second.callbackPath, [first.txCookie]);
      expectRefused(res, 400, /started in another browser/);
      expect(pageResult(res).result.attempt).toBeUndefined();
      expect(runResultScript(res, { hasOpener: false, closable: true }).closed).toBe(false);
    });

    it.each(['short', 'has space in it 0123456', 'x'.repeat(65), '<script>alert(1)</script>xx'])(
      'refuses a malformed attempt (%s) with 400 and starts nothing',
      async (attempt) => {
        t = await googleApp();
        const res = await t.request({ url: `/api/auth/google/start?attempt=${encodeURIComponent(attempt)}` });
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({ error: 'Invalid request', details: [{ path: 'attempt' }] });
        expect(rawCookie(res, TX_COOKIE)).toBeUndefined();
        expect(res.headers.location).toBeUndefined();
      },
    );
  });

  it('escapes user data on the page and drops a non-https picture', async () => {
    const name = '</script><script>alert("x")</script>\u2028<img src=x onerror=alert(1)>&';
    fake.setUser({ ...DEFAULT_FAKE_USER, name, picture: 'javascript:alert(1)' });
    t = await googleApp();
    const { res, session } = await signInWithGoogle(t);
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain('<img');
    expect(res.body).not.toContain('alert("x")');
    expect(res.body.match(/<script/g)).toHaveLength(2); // the data block and ours, nothing injected
    expect(res.body).toContain('&#60;/script&#62;&#60;script&#62;alert(&#34;x&#34;)');
    const user = await me(t, session);
    expect(user.name).toBe(name);
    expect(user.profilePicture).toBe('');
  });

  it('sends PKCE (S256), state, nonce, the exact redirect URI and prompt=select_account', async () => {
    t = await googleApp();
    const { start, txCookie } = await startAndAuthorize(t);
    const sent = fake.lastAuthorizeRequest()!;
    const tx = decodeTransaction(txCookie);

    expect(sent).toMatchObject({
      response_type: 'code',
      client_id: CLIENT_ID,
      redirect_uri: CALLBACK_URL,
      scope: 'openid email profile',
      prompt: 'select_account',
      code_challenge_method: 'S256',
      state: tx.state,
      nonce: tx.nonce,
    });
    expect(sent.code_challenge).toBe(createHash('sha256').update(tx.codeVerifier).digest('base64url'));
    expect(sent.state).not.toBe(sent.nonce);

    const line = setCookieLine(start, TX_COOKIE)!;
    expect(line).toMatch(/; HttpOnly/i);
    expect(line).toMatch(/; SameSite=Lax/i);
    expect(line).toMatch(/; Path=\/api\/auth\/google(;|$)/);
    expect(line).toMatch(/; Max-Age=600/);
    expect(line).not.toMatch(/; Secure/i); // http PUBLIC_URL in tests
    expect(start.headers['cache-control']).toBe('no-store');
  });

  it('marks the transaction cookie Secure when PUBLIC_URL is https', async () => {
    t = await googleApp({ PUBLIC_URL: 'https://hub.example.com' });
    const start = await t.request({ url: '/api/auth/google/start' });
    expect(start.statusCode).toBe(302);
    expect(setCookieLine(start, `__Secure-${TX_COOKIE}`)).toMatch(/; Secure/i);
    expect(new URL(start.headers.location as string).searchParams.get('redirect_uri')).toBe(
      'https://hub.example.com/api/auth/google/callback',
    );
  });

  describe('refuses the sign-in and creates nothing', () => {
    const cases: Array<[FakeOidcFault, RegExp]> = [
      ['wrong-audience', /^Google sign-in was refused: the token was issued to another application$/],
      ['expired', /^Google sign-in was refused: the token has expired$/],
      ['bad-nonce', /^Google sign-in was refused: the token does not belong to this sign-in$/],
      ['email-unverified', /^Google sign-in was refused: the Google account email address is not verified$/],
      ['stale-auth', /^Google sign-in was refused: the sign-in is too old/],
    ];

    it.each(cases)('when the ID token is %s', async (fault, message) => {
      fake.setFault(fault);
      t = await googleApp();
      const { res } = await signInWithGoogle(t);
      expectRefused(res, 401, message);
      expect(await countUsers(t.database.db)).toBe(0);
    });

    it('when the token is older than 5 minutes by the app clock', async () => {
      t = await googleApp();
      const { txCookie, callbackPath } = await startAndAuthorize(t);
      t.advanceTime(6 * 60 * 1000);
      expectRefused(await callback(t, callbackPath, [txCookie]), 401, /the sign-in is too old/);
      expect(await countUsers(t.database.db)).toBe(0);
    });

    it('when the user denies access at Google', async () => {
      fake.setFault('access-denied');
      t = await googleApp();
      const { res } = await signInWithGoogle(t);
      expectRefused(res, 401, /^Google sign-in was cancelled\.$/);
      expect(await countUsers(t.database.db)).toBe(0);
    });

    it('when the transaction cookie is missing', async () => {
      t = await googleApp();
      const { callbackPath } = await startAndAuthorize(t);
      const before = fake.tokenRequests();
      expectRefused(await callback(t, callbackPath, []), 400, /expired or was started in another browser/);
      expect(fake.tokenRequests()).toBe(before); // the code was never redeemed
      expect(await countUsers(t.database.db)).toBe(0);
    });

    it('when the transaction cookie was tampered with', async () => {
      t = await googleApp();
      const { txCookie, callbackPath } = await startAndAuthorize(t);
      const [name, value] = [txCookie.slice(0, txCookie.indexOf('=')), decodeURIComponent(txCookie.slice(txCookie.indexOf('=') + 1))];
      const dot = value.lastIndexOf('.');
      const tx = decodeTransaction(txCookie);
      const forged = Buffer.from(JSON.stringify({ ...tx, expiresAt: tx.expiresAt + 3_600_000 })).toString('base64url');
      const tampered = `${name}=${encodeURIComponent(`${forged}${value.slice(dot)}`)}`;
      expectRefused(await callback(t, callbackPath, [tampered]), 400, /expired or was started in another browser/);
      expect(await countUsers(t.database.db)).toBe(0);
    });

    it('when the state belongs to another sign-in', async () => {
      t = await googleApp();
      const first = await startAndAuthorize(t);
      const second = await startAndAuthorize(t);
      expectRefused(await callback(t, second.callbackPath, [first.txCookie]), 400, /expired or was started in another browser/);
      expect(await countUsers(t.database.db)).toBe(0);
    });

    it('when the transaction is older than 10 minutes', async () => {
      t = await googleApp();
      const { txCookie, callbackPath } = await startAndAuthorize(t);
      t.advanceTime(11 * 60 * 1000);
      expectRefused(await callback(t, callbackPath, [txCookie]), 400, /expired/);
    });

    it('when a callback is replayed (the code is single-use)', async () => {
      t = await googleApp();
      const { txCookie, callbackPath } = await startAndAuthorize(t);
      expect((await callback(t, callbackPath, [txCookie])).statusCode).toBe(200);
      expectRefused(await callback(t, callbackPath, [txCookie]), 401, /did not accept the sign-in code/);
      expect(await countUsers(t.database.db)).toBe(1);
    });
  });

  describe('when the issuer is unavailable', () => {
    it('answers a 502 page on start, and discovers again on the next sign-in', async () => {
      fake.setFault('unavailable');
      t = await googleApp(); // start-up does not need the issuer
      const down = await t.request({ url: '/api/auth/google/start' });
      expectRefused(down, 502, /^Google sign-in is unavailable right now$/);

      fake.setFault('none');
      const { res, session } = await signInWithGoogle(t);
      expect(res.statusCode).toBe(200);
      expect(await me(t, session)).toMatchObject({ googleId: DEFAULT_FAKE_USER.sub });
    });

    it('answers a 502 page when nothing listens at the issuer URL', async () => {
      t = await googleApp({ OIDC_ISSUER: `http://127.0.0.1:${await closedPort()}` });
      expectRefused(await t.request({ url: '/api/auth/google/start' }), 502, /^Google sign-in is unavailable right now$/);
    });

    it('answers a 502 page when the token endpoint fails', async () => {
      t = await googleApp();
      const { txCookie, callbackPath } = await startAndAuthorize(t);
      fake.setFault('unavailable');
      expectRefused(await callback(t, callbackPath, [txCookie]), 502, /^Google sign-in is unavailable right now$/);
      expect(await countUsers(t.database.db)).toBe(0);
    });
  });

  it('rotates the session on a second sign-in: the old cookie stops working', async () => {
    t = await googleApp();
    const first = await signInWithGoogle(t);
    const second = await signInWithGoogle(t, first.session);
    expect(second.res.statusCode).toBe(200);
    expect(second.session).toBeDefined();
    expect(second.session).not.toBe(first.session);
    expect(await me(t, first.session)).toBeNull();
    expect(await me(t, second.session)).toMatchObject({ googleId: DEFAULT_FAKE_USER.sub });
    expect(await countUsers(t.database.db)).toBe(1);
  });

  it('answers 404 on the local sign-in route', async () => {
    t = await googleApp();
    const res = await t.request({ method: 'POST', url: '/api/auth/local/login', payload: { email: 'a@example.com', name: 'A' } });
    expect(res.statusCode).toBe(404);
  });

  it('rate limits start per IP with 429 and Retry-After', async () => {
    t = await googleApp({ SIGN_IN_RATE_LIMIT: '2' });
    const start = (remoteAddress: string) => t.request({ url: '/api/auth/google/start', remoteAddress });
    expect((await start('203.0.113.7')).statusCode).toBe(302);
    expect((await start('203.0.113.7')).statusCode).toBe(302);
    const limited = await start('203.0.113.7');
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect((await start('203.0.113.8')).statusCode).toBe(302);
  });
});
