import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/test-app.ts';

type ApiUser = { id: string; email: string; role: string };

describe('users administration', () => {
  let t: TestApp;
  afterEach(async () => t?.close());

  async function setup() {
    t = await createTestApp();
    const admin = await t.signIn('admin@example.com', 'Admin'); // first account: admin
    const guest = await t.signIn('guest@example.com', 'Guest');
    const list = (await t.request({ url: '/api/users', cookie: admin })).json() as ApiUser[];
    const id = (email: string) => list.find((u) => u.email === email)!.id;
    return { admin, guest, adminId: id('admin@example.com'), guestId: id('guest@example.com') };
  }
  const patch = (id: string, payload: unknown, cookie?: string) =>
    t.request({ method: 'PATCH', url: `/api/users/${id}`, payload: payload as object, cookie });

  it('GET /api/users: 401 signed out, 403 guest, 200 admin with every user', async () => {
    const { admin, guest } = await setup();
    expect((await t.request({ url: '/api/users' })).statusCode).toBe(401);
    const denied = await t.request({ url: '/api/users', cookie: guest });
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({ error: 'Forbidden', message: 'This action needs the admin role' });
    const res = await t.request({ url: '/api/users', cookie: admin });
    expect(res.statusCode).toBe(200);
    expect(res.json().map((u: ApiUser) => [u.email, u.role])).toEqual([
      ['admin@example.com', 'admin'],
      ['guest@example.com', 'guest'],
    ]);
  });

  it('PATCH /api/users/:id: 401 signed out, 403 guest (even on themselves)', async () => {
    const { guestId } = await setup();
    expect((await patch(guestId, { role: 'admin' })).statusCode).toBe(401);
    const { guest } = { guest: await t.signIn('guest@example.com', 'Guest') };
    expect((await patch(guestId, { role: 'admin' }, guest)).statusCode).toBe(403);
    const list = (await t.request({ url: '/api/users', cookie: await t.signIn('admin@example.com') })).json() as ApiUser[];
    expect(list.find((u) => u.id === guestId)!.role).toBe('guest');
  });

  it('an admin promotes a guest, and the new role applies on their very next request', async () => {
    const { admin, guest, guestId } = await setup();
    expect((await t.request({ url: '/api/users', cookie: guest })).statusCode).toBe(403);
    const res = await patch(guestId, { role: 'admin' }, admin);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: guestId, role: 'admin' });
    expect((await t.request({ url: '/api/users', cookie: guest })).statusCode).toBe(200);
    // ...and a demotion too.
    expect((await patch(guestId, { role: 'guest' }, admin)).statusCode).toBe(200);
    expect((await t.request({ url: '/api/users', cookie: guest })).statusCode).toBe(403);
  });

  it('refuses to demote the last admin with 409, and allows it once another admin exists', async () => {
    const { admin, adminId, guestId } = await setup();
    const res = await patch(adminId, { role: 'guest' }, admin);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: 'Conflict', message: 'Cannot remove the last admin' });
    await patch(guestId, { role: 'admin' }, admin);
    expect((await patch(adminId, { role: 'guest' }, admin)).statusCode).toBe(200);
  });

  it('two admins demoting each other at once leave one admin', async () => {
    const { admin, adminId, guest, guestId } = await setup();
    await patch(guestId, { role: 'admin' }, admin);
    const results = await Promise.all([patch(adminId, { role: 'guest' }, guest), patch(guestId, { role: 'guest' }, admin)]);
    // One wins. The other is refused: 409 if it reached the last-admin check, or 403 if its
    // sender had already been demoted when its role was read.
    const statuses = results.map((r) => r.statusCode).sort();
    expect(statuses[0]).toBe(200);
    expect([403, 409]).toContain(statuses[1]);
    const admins = (await t.database.db.execute("select count(*)::int as n from users where role = 'admin'")) as unknown as {
      rows: Array<{ n: number }>;
    };
    expect(admins.rows[0]!.n).toBe(1);
  });

  it.each([
    [{ role: 'owner' }, 'role'],
    [{}, 'role'],
    [{ role: 'admin', email: 'x@example.com' }, '(root)'],
    [{ role: 42 }, 'role'],
  ])('refuses body %j with 400 naming %s', async (payload, path) => {
    const { admin, guestId } = await setup();
    const res = await patch(guestId, payload, admin);
    expect(res.statusCode).toBe(400);
    expect(res.json().details.map((d: { path: string }) => d.path)).toContain(path);
    const list = (await t.request({ url: '/api/users', cookie: admin })).json() as ApiUser[];
    expect(list.find((u) => u.id === guestId)).toMatchObject({ role: 'guest', email: 'guest@example.com' });
  });

  it('answers 400 for an id that is not a UUID and 404 for an unknown one', async () => {
    const { admin } = await setup();
    const bad = await patch('not-a-uuid', { role: 'admin' }, admin);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details).toEqual([{ path: 'id', message: 'User id must be a UUID' }]);
    const unknown = await patch('00000000-0000-4000-8000-000000000000', { role: 'admin' }, admin);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: 'Not Found', message: 'User not found' });
  });
});
