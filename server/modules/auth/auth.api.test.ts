import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from '../../../contracts/constants.ts';
import { sessions } from '../../db/schema.ts';
import { createTestApp, TEST_ORIGIN, type TestApp } from '../../test/test-app.ts';
import { NO_CACHE } from '../../lib/invalidations.ts';
import { createAuthService, hashToken } from './auth.service.ts';

const DAY = 24 * 60 * 60 * 1000;

async function me(t: TestApp, cookie?: string) {
  const res = await t.request({ url: '/api/auth/me', cookie });
  expect(res.statusCode).toBe(200);
  return res.json().user as { email: string; role: string; googleId: string | null } | null;
}

/** The stored session behind a `sid=...` cookie header, looked up by the token's hash. */
async function sessionRow(t: TestApp, cookie: string) {
  const token = cookie.slice(cookie.indexOf('=') + 1);
  const [row] = await t.database.db.select().from(sessions).where(eq(sessions.tokenHash, hashToken(token)));
  return row;
}

async function userCount(t: TestApp): Promise<number> {
  const res = await t.database.db.execute('select count(*)::int as n from users');
  return (res as unknown as { rows: Array<{ n: number }> }).rows[0]!.n;
}

describe('local sign-in', () => {
  let t: TestApp;
  afterEach(async () => t?.close());

  it('signs in, sets a HttpOnly SameSite=Lax session cookie and makes the first account admin', async () => {
    t = await createTestApp();
    const res = await t.request({ method: 'POST', url: '/api/auth/local/login', payload: { email: ' Ann@Example.com ', name: 'Ann' } });
    expect(res.statusCode).toBe(200);
    expect(res.json().user).toMatchObject({ email: 'ann@example.com', name: 'Ann', role: 'admin', googleId: null, profilePicture: '' });
    const cookie = res.cookies.find((c) => c.name === 'sid')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/', maxAge: SESSION_ABSOLUTE_MS / 1000 });
    expect(cookie.secure).toBeFalsy();
    expect(cookie.value).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const second = await t.signIn('bob@example.com');
    expect(await me(t, second)).toMatchObject({ email: 'bob@example.com', role: 'guest' });
  });

  it('stores only a hash of the session token', async () => {
    t = await createTestApp();
    const cookie = await t.signIn('ann@example.com');
    const token = cookie.split('=')[1]!;
    const res = await t.database.db.execute('select token_hash from sessions');
    const rows = (res as unknown as { rows: Array<{ token_hash: string }> }).rows;
    expect(rows).toHaveLength(1);
    expect(rows[0]!.token_hash).not.toContain(token);
    expect(rows[0]!.token_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('with ADMIN_EMAILS, only those accounts are admins (no first-account rule)', async () => {
    t = await createTestApp({ env: { ADMIN_EMAILS: 'Boss@Example.com, second@example.com' } });
    expect(await me(t, await t.signIn('first@example.com'))).toMatchObject({ role: 'guest' });
    expect(await me(t, await t.signIn('boss@example.com'))).toMatchObject({ role: 'admin' });
  });

  it.each([
    [{}, ['email', 'name']],
    [{ email: 'not-an-email', name: 'A' }, ['email']],
    [{ email: 'a@example.com', name: '   ' }, ['name']],
    [{ email: 'a@example.com', name: 'x'.repeat(101) }, ['name']],
    [{ email: `${'x'.repeat(250)}@example.com`, name: 'A' }, ['email']],
    [{ email: 42, name: ['A'] }, ['email', 'name']],
  ])('refuses %j with 400 naming %j and creates nothing', async (payload, paths) => {
    t = await createTestApp();
    const res = await t.request({ method: 'POST', url: '/api/auth/local/login', payload });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.error).toBe('Invalid request');
    expect(body.details.map((d: { path: string }) => d.path).sort()).toEqual(paths);
    for (const detail of body.details) expect(detail.message).toEqual(expect.any(String));
    expect(res.cookies).toHaveLength(0);
    expect(await userCount(t)).toBe(0);
  });

  it('refuses malformed JSON with 400 and a non-JSON body with 415', async () => {
    t = await createTestApp();
    const bad = await t.request({ method: 'POST', url: '/api/auth/local/login', payload: '{"email":', headers: { 'content-type': 'application/json' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: 'Invalid request', details: [{ path: '(body)' }] });
    const form = await t.request({
      method: 'POST',
      url: '/api/auth/local/login',
      payload: 'email=a@example.com&name=A',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.statusCode).toBe(415);
    expect(await userCount(t)).toBe(0);
  });

  it('rotates the session at sign-in: the old token stops working', async () => {
    t = await createTestApp();
    const first = await t.signIn('ann@example.com');
    const res = await t.request({ method: 'POST', url: '/api/auth/local/login', payload: { email: 'ann@example.com', name: 'Ann' }, cookie: first });
    const second = `sid=${res.cookies.find((c) => c.name === 'sid')!.value}`;
    expect(second).not.toBe(first);
    expect(await me(t, first)).toBeNull();
    expect(await me(t, second)).toMatchObject({ email: 'ann@example.com' });
  });

  it('rate limits sign-in per IP with 429 and Retry-After', async () => {
    t = await createTestApp({ env: { SIGN_IN_RATE_LIMIT: '3' } });
    const attempt = () => t.request({ method: 'POST', url: '/api/auth/local/login', payload: { email: 'a@example.com', name: 'A' } });
    for (let i = 0; i < 3; i++) expect((await attempt()).statusCode).toBe(200);
    const limited = await attempt();
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.json()).toMatchObject({ error: 'Too Many Requests' });
    const otherIp = await t.app.inject({
      method: 'POST',
      url: '/api/auth/local/login',
      payload: { email: 'a@example.com', name: 'A' },
      headers: { origin: TEST_ORIGIN },
      remoteAddress: '10.0.0.9',
    });
    expect(otherIp.statusCode).toBe(200);
  });

  // docs/decisions/0045: behind a proxy the key is the address the proxy appended, never one the
  // client wrote into X-Forwarded-For itself (Fastify's plain `true` would take the left-most).
  it.each([
    ['true (one proxy)', 'true'],
    ["the proxy's address", '127.0.0.1'],
  ])('behind a proxy (TRUST_PROXY=%s) counts the address the proxy appended; a forged X-Forwarded-For does not reset it', async (_name, trustProxy) => {
    t = await createTestApp({ env: { SIGN_IN_RATE_LIMIT: '3', TRUST_PROXY: trustProxy } });
    // As nginx forwards it: whatever the client sent, then the client's own address.
    const viaProxy = (client: string, forged?: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/auth/local/login',
        payload: { email: 'a@example.com', name: 'A' },
        headers: { origin: TEST_ORIGIN, 'x-forwarded-for': forged ? `${forged}, ${client}` : client },
        remoteAddress: '127.0.0.1',
      });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await viaProxy('203.0.113.7', `198.51.100.${i}`)).statusCode);
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429]);
    // Another client behind the same proxy has its own count.
    expect((await viaProxy('203.0.113.8')).statusCode).toBe(200);
  });

  it('without TRUST_PROXY counts the peer address and ignores X-Forwarded-For', async () => {
    t = await createTestApp({ env: { SIGN_IN_RATE_LIMIT: '2' } });
    const attempt = (forged: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/auth/local/login',
        payload: { email: 'a@example.com', name: 'A' },
        headers: { origin: TEST_ORIGIN, 'x-forwarded-for': forged },
        remoteAddress: '203.0.113.7',
      });
    const statuses = [(await attempt('10.0.0.1')).statusCode, (await attempt('10.0.0.2')).statusCode, (await attempt('10.0.0.3')).statusCode];
    expect(statuses).toEqual([200, 200, 429]);
  });
});

describe('sessions', () => {
  let t: TestApp;
  afterEach(async () => t?.close());

  it('GET /api/auth/me answers null when signed out and for an unknown token', async () => {
    t = await createTestApp();
    expect(await me(t)).toBeNull();
    const res = await t.request({ url: '/api/auth/me', cookie: 'sid=forged-token' });
    expect(res.json()).toEqual({ user: null });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('sign-out deletes the session server-side and clears the cookie', async () => {
    t = await createTestApp();
    const cookie = await t.signIn('ann@example.com');
    const res = await t.request({ method: 'POST', url: '/api/auth/logout', cookie });
    expect(res.statusCode).toBe(204);
    const cleared = res.cookies.find((c) => c.name === 'sid')!;
    expect(new Date(cleared.expires!).getTime()).toBeLessThan(Date.now());
    expect(await me(t, cookie)).toBeNull();
    expect(await sessionRow(t, cookie)).toBeUndefined();
    // The old cookie replayed on a protected route: refused, and told to drop the cookie.
    const replay = await t.request({ url: '/api/settings', cookie });
    expect(replay.statusCode).toBe(401);
    expect(new Date(replay.cookies.find((c) => c.name === 'sid')!.expires!).getTime()).toBeLessThan(Date.now());
    // Signing out again (or while signed out) is harmless.
    expect((await t.request({ method: 'POST', url: '/api/auth/logout', cookie })).statusCode).toBe(204);
  });

  it('ends a session idle for 7 days, and keeps one in use', async () => {
    t = await createTestApp();
    const active = await t.signIn('ann@example.com');
    const idle = await t.signIn('bob@example.com');
    t.advanceTime(SESSION_IDLE_MS - DAY);
    expect(await me(t, active)).not.toBeNull();
    t.advanceTime(2 * DAY);
    expect(await me(t, active)).not.toBeNull();
    expect(await sessionRow(t, idle)).toBeDefined(); // still stored until it is presented or purged
    expect(await me(t, idle)).toBeNull();
    expect(await sessionRow(t, idle)).toBeUndefined();
    expect(await sessionRow(t, active)).toBeDefined();
  });

  it('ends every session 30 days after sign-in however active', async () => {
    t = await createTestApp();
    const cookie = await t.signIn('ann@example.com');
    for (let day = 6; day < 30; day += 6) {
      t.advanceTime(6 * DAY);
      expect(await me(t, cookie), `day ${day}`).not.toBeNull();
    }
    t.advanceTime(6 * DAY);
    expect(await me(t, cookie)).toBeNull();
    expect(await sessionRow(t, cookie)).toBeUndefined();
  });

  it('the hourly purge deletes sessions past either limit that are never presented again', async () => {
    t = await createTestApp();
    const abandoned = await t.signIn('ann@example.com'); // never used again: idle
    const longLived = await t.signIn('bob@example.com'); // used every few days: past 30 days
    for (let day = 6; day <= 24; day += 6) {
      t.advanceTime(6 * DAY);
      await me(t, longLived);
    }
    t.advanceTime(4 * DAY);
    await me(t, longLived); // day 28: seen 2.5 days before the purge, so only the absolute limit ends it
    const recent = await t.signIn('cy@example.com');
    t.advanceTime(2.5 * DAY);
    // The app runs this on a timer; here it runs once, on the app's clock and database.
    const removed = await createAuthService({ db: t.database.db, config: t.config, now: t.now, invalidations: NO_CACHE }).purgeExpiredSessions();
    expect(removed).toBe(2);
    expect(await sessionRow(t, abandoned)).toBeUndefined();
    expect(await sessionRow(t, longLived)).toBeUndefined();
    expect(await sessionRow(t, recent)).toBeDefined();
  });
});

describe('POST /api/auth/user (SPEC sync)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  it('answers 401 signed out', async () => {
    const res = await t.request({ method: 'POST', url: '/api/auth/user', payload: {} });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'Unauthorized', message: 'Sign in to continue' });
  });

  it('returns the session user and role; body fields never change identity or role', async () => {
    const admin = await t.signIn('admin@example.com', 'Admin');
    const guest = await t.signIn('guest@example.com', 'Guest');
    const res = await t.request({
      method: 'POST',
      url: '/api/auth/user',
      cookie: guest,
      payload: { email: 'admin@example.com', name: 'Admin', googleId: 'someone-else', profilePicture: '' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ email: 'guest@example.com', name: 'Guest', role: 'guest', googleId: null });
    const adminRes = await t.request({ method: 'POST', url: '/api/auth/user', cookie: admin });
    expect(adminRes.json()).toMatchObject({ email: 'admin@example.com', role: 'admin' });
  });

  it('refuses a body that tries to set the role', async () => {
    const guest = await t.signIn('guest2@example.com');
    const res = await t.request({ method: 'POST', url: '/api/auth/user', cookie: guest, payload: { role: 'admin' } });
    expect(res.statusCode).toBe(400);
    expect(await me(t, guest)).toMatchObject({ role: 'guest' });
  });
});

describe('origin check on state-changing requests', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  const login = (headers: Record<string, string>) =>
    t.app.inject({ method: 'POST', url: '/api/auth/local/login', payload: { email: 'x@example.com', name: 'X' }, headers });

  it('refuses another origin, a missing origin and a cross-site fetch with 403', async () => {
    const refused: Array<Record<string, string>> = [{ origin: 'https://evil.example' }, {}, { 'sec-fetch-site': 'cross-site' }, { origin: 'null' }];
    for (const headers of refused) {
      const res = await login(headers);
      expect(res.statusCode, JSON.stringify(headers)).toBe(403);
      expect(res.json()).toEqual({ error: 'Forbidden', message: 'Cross-origin request refused' });
    }
    expect(await userCount(t)).toBe(0);
  });

  it('accepts our origin, or a same-origin fetch without an Origin header', async () => {
    expect((await login({ origin: TEST_ORIGIN })).statusCode).toBe(200);
    expect((await login({ 'sec-fetch-site': 'same-origin' })).statusCode).toBe(200);
  });

  it('refuses a cross-origin sign-out, so a forged page cannot end a session', async () => {
    const cookie = await t.signIn('victim@example.com');
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers: { origin: 'https://evil.example', cookie } });
    expect(res.statusCode).toBe(403);
    expect(await me(t, cookie)).not.toBeNull();
  });
});
