import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessions, users } from '../../db/schema.ts';
import { createBus, type Bus } from '../events/bus.ts';
import { LISTENER_APPLICATION_NAME } from '../events/pg-listener.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { startTwoProcesses, type TwoProcesses } from '../../test/two-processes.ts';
import { until } from '../../test/until.ts';
import { createAuthService, TOUCH_INTERVAL_MS } from './auth.service.ts';

const onPostgres = process.env.TEST_DATABASE === 'postgres';
type ApiUser = { id: string; email: string; role: string };

/** The token inside a `sid=...` cookie header. */
const tokenOf = (cookie: string) => cookie.split('=')[1]!;

describe('session cache (docs/decisions/0049)', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.signIn('admin@example.com', 'Admin'); // first account: admin
  });
  afterAll(async () => t.close());

  const idOf = async (email: string) => (await t.database.db.select().from(users).where(eq(users.email, email)))[0]!.id;

  it('a demoted admin is refused at the very next request, after being served from the cache', async () => {
    const other = await t.signIn('second@example.com', 'Second');
    await t.request({ method: 'PATCH', url: `/api/users/${await idOf('second@example.com')}`, payload: { role: 'admin' }, cookie: admin });
    for (let i = 0; i < 3; i++) expect((await t.request({ url: '/api/users', cookie: other })).statusCode).toBe(200);
    const demoted = await t.request({ method: 'PATCH', url: `/api/users/${await idOf('second@example.com')}`, payload: { role: 'guest' }, cookie: admin });
    expect(demoted.statusCode).toBe(200);
    expect((await t.request({ url: '/api/users', cookie: other })).statusCode).toBe(403);
    expect(((await t.request({ url: '/api/auth/me', cookie: other })).json() as { user: ApiUser }).user.role).toBe('guest');
  });

  it('a signed-out cookie is refused at the very next request', async () => {
    const cookie = await t.signIn('leaver@example.com', 'Leaver');
    expect((await t.request({ url: '/api/notifications', cookie })).statusCode).toBe(200);
    expect((await t.request({ method: 'POST', url: '/api/auth/logout', cookie })).statusCode).toBe(204);
    expect((await t.request({ url: '/api/notifications', cookie })).statusCode).toBe(401);
  });

  it('an expired session is refused at its next request though cached', async () => {
    const cookie = await t.signIn('expiring@example.com', 'Expiring');
    expect((await t.request({ url: '/api/notifications', cookie })).statusCode).toBe(200);
    t.advanceTime(8 * 24 * 60 * 60_000); // past the 7-day idle limit
    expect((await t.request({ url: '/api/notifications', cookie })).statusCode).toBe(401);
    admin = await t.signIn('admin@example.com', 'Admin'); // the admin's session idled out too
  });

  it('a profile changed at sign-in shows at once in the other sessions of the user', async () => {
    const first = await t.signIn('renamed@example.com', 'Before');
    expect(((await t.request({ url: '/api/auth/me', cookie: first })).json() as { user: { name: string } }).user.name).toBe('Before');
    await t.signIn('renamed@example.com', 'After');
    expect(((await t.request({ url: '/api/auth/me', cookie: first })).json() as { user: { name: string } }).user.name).toBe('After');
  });

  it('writes last_seen_at once per session per interval, however many requests arrive at once', async () => {
    let bus: Bus | null = null;
    try {
      bus = await createBus({ database: t.database, logger: t.app.log });
      let updates = 0;
      const db = new Proxy(t.database.db, {
        get(target, prop, receiver) {
          if (prop === 'update') updates++;
          return Reflect.get(target, prop, receiver);
        },
      });
      let clock = t.now().getTime();
      const auth = createAuthService({ db, config: t.config, now: () => new Date(clock), invalidations: bus.invalidations });
      const cookie = await t.signIn('busy@example.com', 'Busy');
      const token = tokenOf(cookie);
      const [hash] = await t.database.db.select({ lastSeenAt: sessions.lastSeenAt, tokenHash: sessions.tokenHash }).from(sessions).orderBy(sql`${sessions.lastSeenAt} desc`).limit(1);
      clock = hash!.lastSeenAt.getTime() + 1_000;
      await Promise.all(Array.from({ length: 20 }, () => auth.resolveSession(token)));
      expect(updates).toBe(0); // within the interval of sign-in
      clock += TOUCH_INTERVAL_MS;
      await Promise.all(Array.from({ length: 20 }, () => auth.resolveSession(token)));
      await auth.close();
      expect(updates).toBe(1);
      await Promise.all(Array.from({ length: 20 }, () => auth.resolveSession(token)));
      clock += TOUCH_INTERVAL_MS / 2;
      await Promise.all(Array.from({ length: 20 }, () => auth.resolveSession(token)));
      await auth.close();
      expect(updates).toBe(1);
      clock += TOUCH_INTERVAL_MS / 2;
      await Promise.all(Array.from({ length: 20 }, () => auth.resolveSession(token)));
      await auth.close();
      expect(updates).toBe(2);
      const [row] = await t.database.db.select().from(sessions).where(eq(sessions.tokenHash, hash!.tokenHash));
      expect(row!.lastSeenAt.getTime()).toBe(clock);
    } finally {
      await bus?.close();
    }
  });
});

describe.runIf(onPostgres)('session cache across two processes on PostgreSQL', () => {
  let processes: TwoProcesses;
  let a: TestApp;
  let b: TestApp;
  let admin: string;
  let bUrl: string;
  const fromB = async (path: string, cookie: string) => (await fetch(`${bUrl}${path}`, { headers: { cookie } })).status;
  beforeAll(async () => {
    ({ a, b, bUrl, admin } = processes = await startTwoProcesses());
  });
  afterAll(() => processes?.close());

  const idOf = async (email: string) => (await a.database.db.select().from(users).where(eq(users.email, email)))[0]!.id;


  it('an admin demoted in one process is refused at the next request in the other', async () => {
    const other = await a.signIn('second@example.com', 'Second');
    await a.request({ method: 'PATCH', url: `/api/users/${await idOf('second@example.com')}`, payload: { role: 'admin' }, cookie: admin });
    for (let i = 0; i < 3; i++) expect((await fromB('/api/users', other))).toBe(200);
    expect((await a.request({ method: 'PATCH', url: `/api/users/${await idOf('second@example.com')}`, payload: { role: 'guest' }, cookie: admin })).statusCode).toBe(200);
    expect((await fromB('/api/users', other))).toBe(403);
  });

  it('a cookie signed out in one process is refused at the next request in the other', async () => {
    const cookie = await a.signIn('leaver@example.com', 'Leaver');
    for (let i = 0; i < 3; i++) expect((await fromB('/api/notifications', cookie))).toBe(200);
    expect((await a.request({ method: 'POST', url: '/api/auth/logout', cookie })).statusCode).toBe(204);
    expect((await fromB('/api/notifications', cookie))).toBe(401);
  });

  it('serves nothing from the cache while its LISTEN connection is down, and caches again once back', async () => {
    const cookie = await a.signIn('third@example.com', 'Third');
    await a.request({ method: 'PATCH', url: `/api/users/${await idOf('third@example.com')}`, payload: { role: 'admin' }, cookie: admin });
    expect((await fromB('/api/users', cookie))).toBe(200); // cached in b
    let resets = 0;
    b.app.invalidations.onReset(() => resets++);
    await a.database.db.execute(sql`select pg_terminate_backend(pid) from pg_stat_activity where application_name = ${LISTENER_APPLICATION_NAME} and datname = current_database()`);
    await until(async () => resets, (n) => n >= 1);
    // A demotion whose invalidation nobody hears (written past the app, as if sent while b was deaf).
    await a.database.db.update(users).set({ role: 'guest' }).where(eq(users.id, await idOf('third@example.com')));
    expect((await fromB('/api/users', cookie))).toBe(403);
    // Listening again, the cache works again: the demotion through the app reaches b.
    await until(async () => b.app.invalidations.reliable(), (up) => up);
    await a.request({ method: 'PATCH', url: `/api/users/${await idOf('third@example.com')}`, payload: { role: 'admin' }, cookie: admin });
    expect((await fromB('/api/users', cookie))).toBe(200);
    expect((await a.request({ method: 'PATCH', url: `/api/users/${await idOf('third@example.com')}`, payload: { role: 'guest' }, cookie: admin })).statusCode).toBe(200);
    expect((await fromB('/api/users', cookie))).toBe(403);
  });
});
