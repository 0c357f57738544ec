import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSoftwareAuthenticator, type SoftwareAuthenticator } from '../../../tests/fakes/webauthn-authenticator.ts';
import { startSmtpCatcher } from '../../../tests/fakes/smtp-catcher.ts';
import { createTestApp, TEST_ORIGIN, type TestApp } from '../../test/test-app.ts';

type Created = { id: string; email: string; role: string; expiresAt: string; emailed: boolean; link: string | null };
type Passkey = { id: string; name: string; createdAt: string; lastUsedAt: string | null };

const tokenOf = (link: string) => new URL(link).hash.slice(1);
const cookieOf = (res: { cookies: Array<{ name: string; value: string }> }) => {
  const c = res.cookies.find((x) => x.name === 'sid');
  return c ? `sid=${c.value}` : undefined;
};

describe('passkey accounts (issue 33 item 2)', () => {
  let t: TestApp;
  let admin: string;
  let guest: string;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.signIn('admin@example.com', 'Admin'); // the first local account: admin
    guest = await t.signIn('guest@example.com', 'Guest');
  });
  afterAll(async () => t?.close());

  const invite = async (email: string, role = 'guest', cookie = admin) => t.request({ method: 'POST', url: '/api/invites', payload: { email, role }, cookie });

  /** Opens the invite link and registers a passkey: what the invite page does. */
  async function acceptInvite(token: string, authenticator: SoftwareAuthenticator, name = 'Laptop') {
    const options = await t.request({ method: 'POST', url: '/api/auth/invite/options', payload: { token } });
    if (options.statusCode !== 200) return options;
    const credential = authenticator.register(options.json().options);
    return t.request({ method: 'POST', url: '/api/auth/invite/verify', payload: { token, name, credential } });
  }

  async function signInOptions() {
    const res = await t.request({ method: 'POST', url: '/api/auth/passkey/options', payload: {} });
    expect(res.statusCode).toBe(200);
    return res.json();
  }
  const signInWith = (credential: unknown) => t.request({ method: 'POST', url: '/api/auth/passkey/verify', payload: { credential } });

  /** A new passkey account with one passkey, signed in. */
  async function newAccount(email: string, role = 'guest') {
    const created = (await invite(email, role)).json() as Created;
    const authenticator = createSoftwareAuthenticator({ origin: TEST_ORIGIN });
    const res = await acceptInvite(tokenOf(created.link!), authenticator);
    expect(res.statusCode).toBe(200);
    return { authenticator, cookie: cookieOf(res)!, user: res.json().user };
  }

  it('only an admin invites: 401 signed out, 403 a guest, 400 naming a bad field, and nothing is stored', async () => {
    expect((await t.request({ method: 'POST', url: '/api/invites', payload: { email: 'a@example.com', role: 'guest' } })).statusCode).toBe(401);
    const denied = await invite('a@example.com', 'guest', guest);
    expect(denied.statusCode).toBe(403);
    const bad = await invite('not-an-email', 'owner');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details.map((d: { path: string }) => d.path).sort()).toEqual(['email', 'role']);
    const existing = await invite('guest@example.com');
    expect(existing.statusCode).toBe(409);
    expect(existing.json().message).toBe('A user with this email already exists');
    const rows = await t.database.db.execute('select count(*)::int as n from invites');
    expect((rows as unknown as { rows: Array<{ n: number }> }).rows[0]!.n).toBe(0);
  });

  it('without SMTP_URL the admin is given the one-time link; only its SHA-256 is stored', async () => {
    const res = await invite('Ann@Example.com', 'admin');
    expect(res.statusCode).toBe(201);
    const created = res.json() as Created;
    expect(created).toMatchObject({ email: 'ann@example.com', role: 'admin', emailed: false });
    expect(created.link).toMatch(new RegExp(`^${TEST_ORIGIN}/invite#[A-Za-z0-9_-]{43}$`));
    const token = tokenOf(created.link!);
    const stored = (await t.database.db.execute(`select * from invites where id = '${created.id}'`)) as unknown as { rows: Array<Record<string, unknown>> };
    const row = stored.rows[0]!;
    expect(row.token_hash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(token);
    // 72 hours by default (INVITE_TTL_HOURS).
    expect(Date.parse(created.expiresAt) - t.now().getTime()).toBeGreaterThan(71.9 * 3_600_000);
  });

  it('the invited person registers a passkey and is signed in with the role invited; the link then works no more', async () => {
    const created = (await invite('bea@example.com', 'admin')).json() as Created;
    const token = tokenOf(created.link!);
    const options = await t.request({ method: 'POST', url: '/api/auth/invite/options', payload: { token } });
    expect(options.statusCode).toBe(200);
    expect(options.json().email).toBe('bea@example.com');
    expect(options.json().options).toMatchObject({ rp: { id: 'localhost' }, attestation: 'none', authenticatorSelection: { residentKey: 'required' } });
    const authenticator = createSoftwareAuthenticator({ origin: TEST_ORIGIN });
    const credential = authenticator.register(options.json().options);
    const res = await t.request({ method: 'POST', url: '/api/auth/invite/verify', payload: { token, name: 'Work laptop', credential } });
    expect(res.statusCode).toBe(200);
    expect(res.json().user).toMatchObject({ email: 'bea@example.com', role: 'admin', googleId: null });
    const me = await t.request({ url: '/api/auth/me', cookie: cookieOf(res) });
    expect(me.json().user.email).toBe('bea@example.com');
    const list = await t.request({ url: '/api/passkeys', cookie: cookieOf(res) });
    expect(list.json()).toEqual({ available: true, passkeys: [expect.objectContaining({ name: 'Work laptop', lastUsedAt: null })] });

    // Single use: the same link, or the same answer again, is refused.
    const again = await t.request({ method: 'POST', url: '/api/auth/invite/options', payload: { token } });
    expect(again.statusCode).toBe(404);
    expect(again.json().message).toMatch(/^This invite link has expired or was already used/);
    const replay = await t.request({ method: 'POST', url: '/api/auth/invite/verify', payload: { token, name: 'Work laptop', credential } });
    expect(replay.statusCode).toBe(409);
    const users = (await t.database.db.execute("select count(*)::int as n from users where email = 'bea@example.com'")) as unknown as { rows: Array<{ n: number }> };
    expect(users.rows[0]!.n).toBe(1);
  });

  it('signs in with a discoverable passkey, and refuses the same assertion replayed', async () => {
    const { authenticator } = await newAccount('cy@example.com');
    const options = await signInOptions();
    expect(options.allowCredentials ?? []).toEqual([]);
    const assertion = authenticator.authenticate(options);
    const res = await signInWith(assertion);
    expect(res.statusCode).toBe(200);
    expect(res.json().user.email).toBe('cy@example.com');
    const cookie = cookieOf(res)!;
    expect((await t.request({ url: '/api/auth/me', cookie })).json().user.email).toBe('cy@example.com');
    const [used] = (await t.request({ url: '/api/passkeys', cookie })).json().passkeys as Passkey[];
    expect(used!.lastUsedAt).not.toBeNull();

    const replay = await signInWith(assertion);
    expect(replay.statusCode).toBe(401);
    expect(replay.json().message).toMatch(/already answered/);
    expect(cookieOf(replay)).toBeUndefined();
  });

  it('refuses an assertion whose signature counter did not grow (a cloned authenticator)', async () => {
    const { authenticator } = await newAccount('dee@example.com');
    const first = authenticator.authenticate(await signInOptions());
    const second = authenticator.authenticate(await signInOptions());
    expect((await signInWith(second)).statusCode).toBe(200);
    const stale = await signInWith(first);
    expect(stale.statusCode).toBe(401);
    expect(stale.json().message).toMatch(/^The passkey could not be verified: .*counter/i);
  });

  it('refuses a tampered assertion and a sign-in from another origin', async () => {
    const { authenticator } = await newAccount('eve@example.com');
    const assertion = authenticator.authenticate(await signInOptions());
    const tampered = { ...assertion, response: { ...assertion.response, signature: Buffer.from('not a signature').toString('base64url') } };
    expect((await signInWith(tampered)).statusCode).toBe(401);
    const foreign = await t.request({ method: 'POST', url: '/api/auth/passkey/options', payload: {}, headers: { origin: 'https://evil.example' } });
    expect(foreign.statusCode).toBe(403);
  });

  it('adds a second passkey at Settings, removes one (never the last): the removed one is refused and the sessions it signed in end, but the remover\'s', async () => {
    const { authenticator: laptop, cookie } = await newAccount('fay@example.com');
    const remove = (id: string) => t.request({ method: 'DELETE', url: `/api/passkeys/${id}`, cookie });
    const [only] = (await t.request({ url: '/api/passkeys', cookie })).json().passkeys as Passkey[];
    const last = await remove(only!.id);
    expect(last.statusCode).toBe(409);
    expect(last.json().message).toMatch(/^This is your only passkey/);

    const phone = createSoftwareAuthenticator({ origin: TEST_ORIGIN, counter: 'none' });
    const options = (await t.request({ method: 'POST', url: '/api/passkeys/options', payload: {}, cookie })).json();
    expect(options.excludeCredentials.map((c: { id: string }) => c.id)).toEqual([laptop.credentials[0]!.id]);
    // The laptop already holds a passkey for this account: the authenticator refuses, as a browser does.
    expect(() => laptop.register(options)).toThrow(/InvalidStateError/);
    const added = await t.request({ method: 'POST', url: '/api/passkeys', payload: { name: 'Phone', credential: phone.register(options) }, cookie });
    expect(added.statusCode).toBe(201);
    const names = ((await t.request({ url: '/api/passkeys', cookie })).json().passkeys as Passkey[]).map((p) => p.name);
    expect(names).toEqual(['Laptop', 'Phone']);

    // The second device signs in (a synced passkey keeps no counter: replay is stopped by the challenge).
    const onPhone = await signInWith(phone.authenticate(await signInOptions()));
    expect(onPhone.statusCode).toBe(200);
    const phoneCookie = cookieOf(onPhone)!;
    // Another session of the laptop's (a second browser on it): removing the laptop's passkey
    // from the phone signs both of the laptop's sessions out, and keeps the phone's.
    const onLaptopAgain = await signInWith(laptop.authenticate(await signInOptions()));
    const laptopCookie = cookieOf(onLaptopAgain)!;
    const me = async (session: string) => (await t.request({ url: '/api/auth/me', cookie: session })).json().user?.email ?? null;
    expect(await me(laptopCookie)).toBe('fay@example.com');
    expect(await me(cookie)).toBe('fay@example.com');

    expect((await t.request({ method: 'DELETE', url: `/api/passkeys/${only!.id}`, cookie: phoneCookie })).statusCode).toBe(204);
    expect(await me(laptopCookie)).toBeNull();
    expect(await me(cookie)).toBeNull();
    expect(await me(phoneCookie)).toBe('fay@example.com');
    const refused = await signInWith(laptop.authenticate(await signInOptions()));
    expect(refused.statusCode).toBe(401);
    expect(refused.json().message).toMatch(/^This passkey is not registered here/);
    // The one removing a passkey stays signed in, even when that passkey signed it in.
    const second = createSoftwareAuthenticator({ origin: TEST_ORIGIN, counter: 'none' });
    const more = (await t.request({ method: 'POST', url: '/api/passkeys/options', payload: {}, cookie: phoneCookie })).json();
    expect((await t.request({ method: 'POST', url: '/api/passkeys', payload: { name: 'Tablet', credential: second.register(more) }, cookie: phoneCookie })).statusCode).toBe(201);
    const phoneKey = ((await t.request({ url: '/api/passkeys', cookie: phoneCookie })).json().passkeys as Passkey[]).find((p) => p.name === 'Phone')!;
    expect((await t.request({ method: 'DELETE', url: `/api/passkeys/${phoneKey.id}`, cookie: phoneCookie })).statusCode).toBe(204);
    expect(await me(phoneCookie)).toBe('fay@example.com');
  });

  it("a passkey of one account cannot be removed by another, nor added to an account that signs in otherwise", async () => {
    const { cookie: owner } = await newAccount('gus@example.com');
    const [key] = (await t.request({ url: '/api/passkeys', cookie: owner })).json().passkeys as Passkey[];
    const { cookie: other } = await newAccount('hal@example.com');
    expect((await t.request({ method: 'DELETE', url: `/api/passkeys/${key!.id}`, cookie: other })).statusCode).toBe(404);
    expect((await t.request({ url: '/api/passkeys', cookie: admin })).json()).toEqual({ available: false, passkeys: [] });
    const local = await t.request({ method: 'POST', url: '/api/passkeys/options', payload: {}, cookie: admin });
    expect(local.statusCode).toBe(409);
    expect(local.json().message).toBe('Passkeys are for accounts invited to sign in with one');
    expect((await t.request({ method: 'DELETE', url: `/api/passkeys/${key!.id}` })).statusCode).toBe(401);
  });

  it('a newer invite replaces the older link, and an invite past INVITE_TTL_HOURS is refused', async () => {
    const older = (await invite('ivy@example.com')).json() as Created;
    const newer = (await invite('ivy@example.com')).json() as Created;
    expect((await acceptInvite(tokenOf(older.link!), createSoftwareAuthenticator({ origin: TEST_ORIGIN }))).statusCode).toBe(404);
    const options = await t.request({ method: 'POST', url: '/api/auth/invite/options', payload: { token: tokenOf(newer.link!) } });
    expect(options.statusCode).toBe(200);
    t.advanceTime(72 * 3_600_000 + 60_000);
    const expired = await acceptInvite(tokenOf(newer.link!), createSoftwareAuthenticator({ origin: TEST_ORIGIN }));
    expect(expired.statusCode).toBe(404);
    expect(expired.json().message).toMatch(/^This invite link has expired/);
  });
});

describe('passkey invites by email (SMTP_URL)', () => {
  it('emails the link, shows the admin none, and the emailed link registers a passkey', async () => {
    const smtp = await startSmtpCatcher();
    const t = await createTestApp({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'hub@example.com', INVITE_TTL_HOURS: '2' } });
    try {
      const admin = await t.signIn('admin@example.com', 'Admin');
      const res = await t.request({ method: 'POST', url: '/api/invites', payload: { email: 'jo@example.com', role: 'guest' }, cookie: admin });
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({ emailed: true, link: null });
      expect(Date.parse(res.json().expiresAt) - t.now().getTime()).toBeLessThanOrEqual(2 * 3_600_000);
      const [message] = await smtp.waitForMessages(1);
      expect(message!.to).toEqual(['jo@example.com']);
      const link = message!.text.match(/http:\/\/localhost:3000\/invite#[A-Za-z0-9_-]{43}/)?.[0];
      expect(link).toBeDefined();
      const token = tokenOf(link!);
      const options = await t.request({ method: 'POST', url: '/api/auth/invite/options', payload: { token } });
      const credential = createSoftwareAuthenticator({ origin: TEST_ORIGIN }).register(options.json().options);
      const verified = await t.request({ method: 'POST', url: '/api/auth/invite/verify', payload: { token, name: 'Laptop', credential } });
      expect(verified.statusCode).toBe(200);
      expect(verified.json().user).toMatchObject({ email: 'jo@example.com', role: 'guest' });

      // An SMTP server that refuses: a clear 502, and no invite stands.
      smtp.setMode('reject');
      const failed = await t.request({ method: 'POST', url: '/api/invites', payload: { email: 'kim@example.com', role: 'guest' }, cookie: admin });
      expect(failed.statusCode).toBe(502);
      expect(failed.json().message).toMatch(/^The invite email could not be sent, so no invite was made/);
      const rows = (await t.database.db.execute("select count(*)::int as n from invites where email = 'kim@example.com'")) as unknown as { rows: Array<{ n: number }> };
      expect(rows.rows[0]!.n).toBe(0);
    } finally {
      await t.close();
      await smtp.close();
    }
  });
});

describe('passkeys in production without an identity provider', () => {
  it('starts without ALLOW_LOCAL_AUTH: the development sign-in is gone, passkey sign-in is offered for PUBLIC_URL and limited per address', async () => {
    const origin = 'https://hub.example.com';
    const t = await createTestApp({ env: { NODE_ENV: 'production', SESSION_SECRET: 'p'.repeat(32), PUBLIC_URL: origin, SIGN_IN_RATE_LIMIT: '3' } });
    try {
      const local = await t.request({ method: 'POST', url: '/api/auth/local/login', payload: { email: 'a@example.com', name: 'A' }, headers: { origin } });
      expect(local.statusCode).toBe(404);
      const options = await t.request({ method: 'POST', url: '/api/auth/passkey/options', payload: {}, headers: { origin } });
      expect(options.statusCode).toBe(200);
      expect(options.json().rpId).toBe('hub.example.com');
      // SIGN_IN_RATE_LIMIT per route and address, as every sign-in.
      const ask = () => t.request({ method: 'POST', url: '/api/auth/passkey/options', payload: {}, headers: { origin } });
      expect([(await ask()).statusCode, (await ask()).statusCode]).toEqual([200, 200]);
      const limited = await ask();
      expect(limited.statusCode).toBe(429);
      expect(limited.headers['retry-after']).toBeDefined();
    } finally {
      await t.close();
    }
  });
});
