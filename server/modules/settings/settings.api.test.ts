import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TSettings } from '../../../contracts/settings.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';

describe('settings API', () => {
  let t: TestApp;
  let ada: string;
  let bob: string;
  beforeAll(async () => {
    t = await createTestApp();
    ada = await t.signIn('ada@example.com', 'Ada');
    bob = await t.signIn('bob@example.com', 'Bob');
  });
  afterAll(async () => t?.close());

  const get = (cookie?: string) => t.request({ url: '/api/settings', cookie });
  const put = (payload: unknown, cookie: string | null = ada) =>
    t.request({ method: 'PUT', url: '/api/settings', cookie: cookie ?? undefined, payload: payload as object });

  it('needs a session', async () => {
    expect((await get()).statusCode).toBe(401);
    expect((await put({ alertEmail: null, timeZone: null }, null)).statusCode).toBe(401);
  });

  it('starts empty, with the sign-in email the alerts go to meanwhile; never cached', async () => {
    const res = await get(bob);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json()).toEqual({ alertEmail: null, timeZone: null, signInEmail: 'bob@example.com' });
  });

  it('saves both, normalising the email, and keeps them for the next read', async () => {
    const res = await put({ alertEmail: '  Alerts@Example.COM ', timeZone: 'America/New_York' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const saved: TSettings = { alertEmail: 'alerts@example.com', timeZone: 'America/New_York', signInEmail: 'ada@example.com' };
    expect(res.json()).toEqual(saved);
    expect((await get(ada)).json()).toEqual(saved);
    // Somebody else's are untouched.
    expect((await get(bob)).json()).toEqual({ alertEmail: null, timeZone: null, signInEmail: 'bob@example.com' });
  });

  it('an empty alert email goes back to the sign-in email; null clears the time zone', async () => {
    await put({ alertEmail: 'alerts@example.com', timeZone: 'Europe/Paris' });
    const res = await put({ alertEmail: '', timeZone: null });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ alertEmail: null, timeZone: null, signInEmail: 'ada@example.com' });
  });

  it.each([
    [{ alertEmail: 'not-an-email', timeZone: 'Europe/Paris' }, [{ path: 'alertEmail', message: 'Enter a valid email address' }]],
    [{ alertEmail: `${'a'.repeat(250)}@example.com`, timeZone: null }, [{ path: 'alertEmail', message: 'Email must be at most 254 characters' }]],
    [{ alertEmail: null, timeZone: 'Mars/Olympus_Mons' }, [{ path: 'timeZone', message: 'Time zone must be an IANA time zone such as Europe/Paris' }]],
    [{ alertEmail: 42, timeZone: null }, [{ path: 'alertEmail', message: 'Enter an email address, or leave it empty to use your sign-in email' }]],
    [{ alertEmail: null }, [{ path: 'timeZone', message: expect.stringContaining('expected string') }]],
    [{ alertEmail: null, timeZone: null, role: 'admin' }, [{ path: '(root)', message: expect.stringContaining('role') }]],
  ])('refuses %j with 400 naming each field, and writes nothing', async (payload, details) => {
    await put({ alertEmail: 'kept@example.com', timeZone: 'Asia/Tokyo' });
    const res = await put(payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'Invalid request', details });
    expect((await get(ada)).json()).toMatchObject({ alertEmail: 'kept@example.com', timeZone: 'Asia/Tokyo' });
  });

  it('refuses a cross-origin write', async () => {
    await put({ alertEmail: null, timeZone: null });
    const res = await t.request({
      method: 'PUT',
      url: '/api/settings',
      cookie: ada,
      headers: { origin: 'https://evil.example' },
      payload: { alertEmail: 'eve@evil.example', timeZone: null },
    });
    expect(res.statusCode).toBe(403);
    expect((await get(ada)).json()).toMatchObject({ alertEmail: null });
  });
});
