import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/test-app.ts';

const LIMIT = 5;

/** DESIGN section 5: a per-user limit on writes, 429 with Retry-After. */
describe('per-user write limit', () => {
  let t: TestApp;
  let admin: string;
  let guest: string;
  let otherGuest: string;
  beforeAll(async () => {
    t = await createTestApp({ env: { ADMIN_EMAILS: 'admin@example.com', WRITE_RATE_LIMIT: String(LIMIT) } });
    admin = await t.signIn('admin@example.com');
    guest = await t.signIn('guest@example.com');
    otherGuest = await t.signIn('other@example.com');
  });
  afterAll(async () => t.close());

  const saveSettings = (cookie: string, timeZone: string) => t.request({ method: 'PUT', url: '/api/settings', cookie, payload: { alertEmail: null, timeZone } });
  const settingsOf = async (cookie: string) => (await t.request({ url: '/api/settings', cookie })).json();

  it(`answers the ${LIMIT + 1}th write in a minute 429 with Retry-After, changing nothing; other users, reads and the next minute are unaffected`, async () => {
    for (let i = 0; i < LIMIT; i++) expect((await saveSettings(guest, 'Europe/Paris')).statusCode, `write ${i + 1}`).toBe(200);
    const refused = await saveSettings(guest, 'Asia/Tokyo');
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({ error: 'Too Many Requests', message: expect.stringMatching(new RegExp(`^You can make ${LIMIT} changes a minute\\. Try again in \\d+ s\\.$`)) });
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await settingsOf(guest)).timeZone).toBe('Europe/Paris');
    // Every kind of write counts, a refused one too, and any route: the user is limited, not a path.
    expect((await t.request({ method: 'POST', url: '/api/notifications/read-all', cookie: guest })).statusCode).toBe(429);
    expect((await saveSettings(guest, 'not a zone')).statusCode).toBe(429);

    expect((await t.request({ url: '/api/settings', cookie: guest })).statusCode).toBe(200);
    expect((await saveSettings(otherGuest, 'Asia/Tokyo')).statusCode).toBe(200);
    expect((await t.request({ method: 'POST', url: '/api/articles', cookie: admin, payload: { title: 'Not limited by a guest', category: 'Ops', excerpt: 'Another user entirely.', content: 'x'.repeat(60) } })).statusCode).toBe(201);

    t.advanceTime(61_000);
    expect((await saveSettings(guest, 'Asia/Tokyo')).statusCode).toBe(200);
    expect((await settingsOf(guest)).timeZone).toBe('Asia/Tokyo');
  });

  it('counts a signed-in user only: sign-in and sign-out are not writes of a user, and refused signed-out writes stay 401', async () => {
    const fresh = await t.signIn('fresh@example.com');
    for (let i = 0; i < LIMIT; i++) await saveSettings(fresh, 'UTC');
    expect((await saveSettings(fresh, 'UTC')).statusCode).toBe(429);
    expect((await t.request({ method: 'PUT', url: '/api/settings', payload: { alertEmail: null, timeZone: 'UTC' } })).statusCode).toBe(401);
    expect((await t.request({ method: 'POST', url: '/api/auth/logout', cookie: fresh })).statusCode).toBe(204);
    expect(await t.signIn('fresh@example.com')).toMatch(/^sid=/);
  });

  it('does not count the chat, which has its own per-user limit and budget', async () => {
    const chatter = await t.signIn('chatter@example.com');
    for (let i = 0; i < LIMIT; i++) await saveSettings(chatter, 'UTC');
    expect((await saveSettings(chatter, 'UTC')).statusCode).toBe(429);
    // DeepSeek is open to guests; without a key it answers its configuration error, not 429.
    const chat = await t.request({ method: 'POST', url: '/api/deepseek/chat', cookie: chatter, payload: { model: 'deepseek-chat', messages: [{ role: 'user', content: 'Hi' }] } });
    expect(chat.statusCode).not.toBe(429);
    expect(chat.body).toContain('API key not configured');
  });
});
