import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TAgentConfig } from '../../../contracts/agents.ts';
import type { TNotificationList } from '../../../contracts/notifications.ts';
import { OWNER_CHANGE_NOTICES } from '../../db/client.ts';
import { agents, channelDeliveries, notifications, users } from '../../db/schema.ts';
import { inAppAlert } from '../../test/agent-fixtures.ts';
import { listenLocally } from '../../test/event-stream-client.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';

const onPostgres = process.env.TEST_DATABASE === 'postgres';

type Owner = { cookie: string; id: string };

async function owner(t: TestApp, email: string): Promise<Owner> {
  const cookie = await t.signIn(email);
  const [user] = await t.database.db.select().from(users).where(eq(users.email, email));
  return { cookie, id: user!.id };
}

/** An agent row straight in the table: these tests are about its notifications. */
async function agentOf(t: TestApp, ownerId: string): Promise<string> {
  const [row] = await t.database.db
    .insert(agents)
    .values({ ownerId, templateId: 'crypto-market-monitor', name: 'BTC watcher', status: 'running', config: {} as TAgentConfig })
    .returning({ id: agents.id });
  return row!.id;
}

/** A write the database does not announce (its notices off for this transaction only), as no
 * module of ours can make: shows whether an answer came from a process's cache. */
async function unannounced(t: TestApp, write: (tx: TestApp['database']['db']) => Promise<unknown>): Promise<void> {
  await t.database.db.transaction(async (tx) => {
    await tx.execute(sql`select set_config(${OWNER_CHANGE_NOTICES}, 'off', true)`);
    await write(tx as unknown as TestApp['database']['db']); // a transaction is a Db for these writes
  });
}

async function listOf(t: TestApp, cookie: string, limit = 20): Promise<TNotificationList> {
  const res = await t.request({ url: `/api/notifications?limit=${limit}`, cookie });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(res.headers['cache-control']).toBe('no-store');
  return res.json();
}

describe.skipIf(onPostgres)('notification lists kept in memory on PGlite (docs/decisions/0059)', () => {
  let t: TestApp;
  let ann: Owner;
  beforeAll(async () => {
    t = await createTestApp();
    ann = await owner(t, 'ann@example.com');
  });
  afterAll(async () => t?.close());

  /** An alert of a new agent of ann's (an agent alerts once per condition until it clears). */
  const alert = async (agentId?: string) => inAppAlert(t, { userId: ann.id, agentId: agentId ?? (await agentOf(t, ann.id)), agentName: 'BTC watcher', runId: null });

  it('answers from memory until the database announces a change, for each page size', async () => {
    expect(await listOf(t, ann.cookie)).toEqual({ notifications: [], unread: 0 });
    const id = await alert();
    const before = await listOf(t, ann.cookie);
    expect(before.unread).toBe(1);
    expect((await listOf(t, ann.cookie, 5)).notifications.map((n) => n.id)).toEqual([id]);
    // Not announced: both kept pages answer as before (the cache is in use)...
    await unannounced(t, (db) => db.update(notifications).set({ title: 'Unannounced' }).where(eq(notifications.id, id)));
    expect(await listOf(t, ann.cookie)).toEqual(before);
    expect((await listOf(t, ann.cookie, 5)).notifications[0]!.title).not.toBe('Unannounced');
    // ...and an announced one, even written past every module, drops every page of the owner.
    await t.database.db.update(notifications).set({ title: 'Retitled in SQL' }).where(eq(notifications.id, id));
    expect((await listOf(t, ann.cookie)).notifications[0]!.title).toBe('Retitled in SQL');
    expect((await listOf(t, ann.cookie, 5)).notifications[0]!.title).toBe('Retitled in SQL');
  });

  it('new alerts, read marks and deliveries show at the very next request', async () => {
    const start = (await listOf(t, ann.cookie)).unread;
    const id = await alert();
    let list = await listOf(t, ann.cookie);
    expect(list.notifications[0]!.id).toBe(id);
    expect(list.unread).toBe(start + 1);
    expect((await t.request({ method: 'POST', url: `/api/notifications/${id}/read`, cookie: ann.cookie })).statusCode).toBe(200);
    list = await listOf(t, ann.cookie);
    expect(list.unread).toBe(start);
    expect(list.notifications[0]!.readAt).not.toBeNull();
    await alert();
    expect((await listOf(t, ann.cookie)).unread).toBe(start + 1);
    expect((await t.request({ method: 'POST', url: '/api/notifications/read-all', cookie: ann.cookie })).statusCode).toBe(204);
    expect((await listOf(t, ann.cookie)).unread).toBe(0);

    // A delivery of the notification (the list carries them), then its outcome.
    await t.database.db.insert(channelDeliveries).values({ notificationId: id, channelKind: 'webhook', channelName: 'Ops hook' });
    expect((await listOf(t, ann.cookie)).notifications.find((n) => n.id === id)!.deliveries).toMatchObject([{ channelName: 'Ops hook', status: 'pending' }]);
    await t.database.db.update(channelDeliveries).set({ status: 'sent', attempts: 1 }).where(eq(channelDeliveries.notificationId, id));
    expect((await listOf(t, ann.cookie)).notifications.find((n) => n.id === id)!.deliveries).toMatchObject([{ status: 'sent', attempts: 1 }]);
  });

  it('cascades are changes too: an agent deleted leaves its notifications without it', async () => {
    const agentId = await agentOf(t, ann.id);
    const id = await alert(agentId);
    expect((await listOf(t, ann.cookie)).notifications.find((n) => n.id === id)!.agentId).toBe(agentId);
    await t.database.db.delete(agents).where(eq(agents.id, agentId)); // notifications.agent_id: set null
    expect((await listOf(t, ann.cookie)).notifications.find((n) => n.id === id)!.agentId).toBeNull();
  });

  it('keeps each owner’s list apart: another owner’s change leaves this one’s kept', async () => {
    const bob = await owner(t, 'bob@example.com');
    const bobAgent = await agentOf(t, bob.id);
    const mine = await listOf(t, ann.cookie);
    expect((await listOf(t, bob.cookie)).notifications).toEqual([]);
    await unannounced(t, (db) => db.update(notifications).set({ title: 'Unannounced' }).where(eq(notifications.userId, ann.id)));
    await inAppAlert(t, { userId: bob.id, agentId: bobAgent, agentName: 'BTC watcher', runId: null });
    expect((await listOf(t, bob.cookie)).unread).toBe(1);
    expect(await listOf(t, ann.cookie)).toEqual(mine); // still the kept one: only bob's went
  });
});

describe.runIf(onPostgres)('notification lists across two processes on PostgreSQL', () => {
  let a: TestApp;
  let b: TestApp;
  let ann: Owner;
  /** b as a browser reaches another process: over HTTP, after a's answer has arrived. */
  let bUrl: string;
  const listFromB = async (): Promise<TNotificationList> => (await fetch(`${bUrl}/api/notifications`, { headers: { cookie: ann.cookie } })).json() as Promise<TNotificationList>;
  beforeAll(async () => {
    a = await createTestApp();
    b = await createTestApp({ sameDatabaseAs: a });
    bUrl = await listenLocally(b.app);
    ann = await owner(a, 'ann@example.com');
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('a change in one process, announced or not, is in the other’s next answer: nothing is kept', async () => {
    const agentId = await agentOf(a, ann.id);
    for (let i = 0; i < 3; i++) expect(await listFromB()).toEqual({ notifications: [], unread: 0 });
    const id = await inAppAlert(a, { userId: ann.id, agentId, agentName: 'BTC watcher', runId: null });
    expect((await listFromB()).unread).toBe(1);
    expect((await a.request({ method: 'POST', url: `/api/notifications/${id}/read`, cookie: ann.cookie })).statusCode).toBe(200);
    expect((await listFromB()).unread).toBe(0);
    await unannounced(a, (db) => db.update(notifications).set({ title: 'Unannounced' }).where(eq(notifications.id, id)));
    expect((await listFromB()).notifications[0]!.title).toBe('Unannounced');
    expect(b.app.invalidations.announced('notifications')).toBe(false);
  });
});
