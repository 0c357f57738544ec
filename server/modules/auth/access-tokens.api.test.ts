import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCESS_TOKENS_PER_USER, type TAccessToken, type TCreatedAccessToken } from '../../../contracts/assistant-tools.ts';
import { accessTokens } from '../../db/schema.ts';
import { capturingLogger, encodings, leaks } from '../../test/secret-scan.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';

const OWNER = 'tokens-owner@example.com';
const OTHER = 'tokens-other@example.com';
const GUEST = 'tokens-guest@example.com';
const DAY_MS = 24 * 60 * 60 * 1000;

describe('access tokens (Settings → Access tokens)', () => {
  let t: TestApp;
  let owner: string;
  let other: string;
  let guest: string;
  const { logger, lines } = capturingLogger();
  const issued: string[] = [];

  beforeAll(async () => {
    t = await createTestApp({ env: { ADMIN_EMAILS: `${OWNER},${OTHER}`, WRITE_RATE_LIMIT: '1000' }, logger });
    owner = await t.signIn(OWNER, 'Owner');
    other = await t.signIn(OTHER, 'Other');
    guest = await t.signIn(GUEST, 'Guest');
  });
  afterAll(async () => t.close());

  const create = async (payload: object, cookie = owner) => {
    const res = await t.request({ method: 'POST', url: '/api/settings/access-tokens', cookie, payload });
    if (res.statusCode === 201) issued.push(res.json<TCreatedAccessToken>().token);
    return res;
  };
  const list = async (cookie = owner) => (await t.request({ url: '/api/settings/access-tokens', cookie })).json<TAccessToken[]>();
  const revoke = (id: string, cookie = owner) => t.request({ method: 'DELETE', url: `/api/settings/access-tokens/${id}`, cookie });
  const rowsOf = (id: string) => t.database.db.select().from(accessTokens).where(eq(accessTokens.id, id));

  it('shows a new token once, keeps only its SHA-256, and lists it without the secret', async () => {
    const before = t.now().getTime();
    const res = await create({ name: 'Claude Desktop', scope: 'read', expiresInDays: 30 });
    expect(res.statusCode).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    const created = res.json<TCreatedAccessToken>();
    expect(created.token).toMatch(/^agt_[A-Za-z0-9_-]{43}$/);
    expect(created).toMatchObject({ name: 'Claude Desktop', scope: 'read', lastUsedAt: null, prefix: created.token.slice(4, 12) });
    const expiresIn = new Date(created.expiresAt).getTime() - new Date(created.createdAt).getTime();
    expect(expiresIn).toBe(30 * DAY_MS);
    expect(new Date(created.createdAt).getTime()).toBeGreaterThanOrEqual(before - 1000);

    const [row] = await rowsOf(created.id);
    expect(row!.tokenHash).toBe(createHash('sha256').update(created.token).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(created.token.slice(4));

    const { token: _secret, ...listed } = created;
    expect(await list()).toContainEqual(listed);
    const text = (await t.request({ url: '/api/settings/access-tokens', cookie: owner })).body;
    expect(text).not.toContain(created.token);
  });

  it('refuses bad input with the field and the rule, and writes nothing', async () => {
    const count = (await list()).length;
    const cases: Array<[object, string, RegExp]> = [
      [{ name: '  ', scope: 'read', expiresInDays: 7 }, 'name', /Name the token/],
      [{ name: 'x'.repeat(61), scope: 'read', expiresInDays: 7 }, 'name', /at most 60/],
      [{ name: 'Cursor', scope: 'write', expiresInDays: 7 }, 'scope', /'read' or 'propose'/],
      [{ name: 'Cursor', scope: 'read', expiresInDays: 10 }, 'expiresInDays', /7, 30, 90, 365/],
      [{ name: 'Cursor', scope: 'read', expiresInDays: 7, userId: 'someone' }, '(root)', /userId/],
    ];
    for (const [payload, path, message] of cases) {
      const res = await create(payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().details).toContainEqual({ path, message: expect.stringMatching(message) });
    }
    expect(await list()).toHaveLength(count);
  });

  it('is each user’s own: another user neither lists nor revokes it (404, as for one that does not exist)', async () => {
    const created = (await create({ name: 'Laptop', scope: 'propose', expiresInDays: 7 })).json<TCreatedAccessToken>();
    expect((await list(other)).map((tok) => tok.id)).not.toContain(created.id);
    const refused = await revoke(created.id, other);
    expect(refused.statusCode).toBe(404);
    expect(refused.json()).toEqual({ error: 'Not Found', message: 'Access token not found' });
    expect((await revoke('00000000-0000-4000-8000-000000000000', other)).statusCode).toBe(404);
    expect((await rowsOf(created.id))[0]!.revokedAt).toBeNull();
    expect((await revoke('not-a-uuid')).json().details).toEqual([{ path: 'id', message: 'Token id must be a UUID' }]);
  });

  it('revokes at once: gone from the list, its row kept as revoked, and a second revoke is 404', async () => {
    const created = (await create({ name: 'Old client', scope: 'read', expiresInDays: 7 })).json<TCreatedAccessToken>();
    expect((await revoke(created.id)).statusCode).toBe(204);
    expect((await list()).map((tok) => tok.id)).not.toContain(created.id);
    expect((await rowsOf(created.id))[0]!.revokedAt).toBeInstanceOf(Date);
    expect((await revoke(created.id)).statusCode).toBe(404);
  });

  it('lets any signed-in user hold tokens (a guest too), and refuses the signed out', async () => {
    const res = await create({ name: 'Guest token', scope: 'read', expiresInDays: 7 }, guest);
    expect(res.statusCode).toBe(201);
    expect((await list(guest)).map((tok) => tok.name)).toEqual(['Guest token']);
    expect((await t.request({ url: '/api/settings/access-tokens' })).statusCode).toBe(401);
  });

  it(`holds at most ${ACCESS_TOKENS_PER_USER} working tokens per user, also when created at once; revoked and expired ones do not count`, async () => {
    const email = 'tokens-many@example.com';
    const cookie = await t.signIn(email, 'Many');
    const answers = await Promise.all(Array.from({ length: ACCESS_TOKENS_PER_USER + 5 }, (_, i) => create({ name: `Token ${i}`, scope: 'read', expiresInDays: 7 }, cookie)));
    expect(answers.filter((r) => r.statusCode === 201)).toHaveLength(ACCESS_TOKENS_PER_USER);
    const refused = answers.filter((r) => r.statusCode !== 201);
    expect(refused.map((r) => r.statusCode)).toEqual([409, 409, 409, 409, 409]);
    expect(refused[0]!.json().message).toBe(`You have ${ACCESS_TOKENS_PER_USER} access tokens, the most one account may hold; revoke one first.`);

    const [first] = await list(cookie);
    expect((await revoke(first!.id, cookie)).statusCode).toBe(204);
    expect((await create({ name: 'After a revoke', scope: 'read', expiresInDays: 30 }, cookie)).statusCode).toBe(201);
    expect((await create({ name: 'One too many', scope: 'read', expiresInDays: 30 }, cookie)).statusCode).toBe(409);

    // A week on, the 7-day tokens have ended: listed still (their owner sees them expired), counted no more.
    t.advanceTime(7 * DAY_MS + 1000);
    const later = await t.signIn(email, 'Many'); // the session idled out meanwhile
    expect((await create({ name: 'After the expiry', scope: 'read', expiresInDays: 30 }, later)).statusCode).toBe(201);
    const listed = await list(later);
    expect(listed).toHaveLength(ACCESS_TOKENS_PER_USER + 1);
    expect(listed.filter((tok) => new Date(tok.expiresAt) <= t.now())).toHaveLength(ACCESS_TOKENS_PER_USER - 1);
  });

  it('never logs a token or its hash', () => {
    expect(issued.length).toBeGreaterThan(20);
    const forms = Object.fromEntries(issued.flatMap((token, i) => [[`token ${i}`, encodings(token)], [`token hash ${i}`, [createHash('sha256').update(token).digest('hex')]]]));
    expect(lines.length).toBeGreaterThan(0);
    expect(leaks(lines.map((text, i) => ({ label: `log line ${i}`, text })), forms)).toEqual([]);
  });
});
