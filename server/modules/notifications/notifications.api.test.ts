import pino from 'pino';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TAgentConfig } from '../../../contracts/agents.ts';
import { notificationUrl } from '../../../contracts/links.ts';
import type { TNotification, TNotificationList } from '../../../contracts/notifications.ts';
import { startSmtpCatcher, type SmtpCatcher } from '../../../tests/fakes/smtp-catcher.ts';
import { agents, alertStates, notifications } from '../../db/schema.ts';
import { createMailer } from '../../integrations/email/mailer.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { createNotificationsService, type AlertCondition, type ApplyAlertsInput } from './notifications.service.ts';

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
const SMTP_SECRET = 'smtp-pa55word';

const rsi = (firing: boolean, market = 'BTC/USDT on binance'): AlertCondition => ({
  market,
  thresholdType: 'rsi_overbought',
  firing,
  value: 78.2,
  limit: 70,
  message: `RSI 78.2 on ${market} is above 70.`,
});

type Person = { cookie: string; id: string; email: string };

async function person(t: TestApp, email: string): Promise<Person> {
  const cookie = await t.signIn(email);
  const me = (await t.request({ url: '/api/auth/me', cookie })).json() as { user: { id: string } };
  return { cookie, id: me.user.id, email };
}

/** An agent row straight in the table: these tests are about its alerts, not its config. */
async function agentOf(t: TestApp, ownerId: string, name = 'BTC watcher'): Promise<string> {
  const [row] = await t.database.db
    .insert(agents)
    .values({ ownerId, templateId: 'crypto-market-monitor', name, status: 'running', config: {} as TAgentConfig })
    .returning({ id: agents.id });
  return row!.id;
}

function alertsInput(owner: Person, agentId: string, conditions: AlertCondition[], channels: Partial<ApplyAlertsInput> = {}): ApplyAlertsInput {
  return { userId: owner.id, agentId, agentName: 'BTC watcher', runId: null, emailEnabled: false, inAppEnabled: true, conditions, ...channels };
}

const listOf = async (t: TestApp, cookie: string, query = ''): Promise<TNotificationList> =>
  (await t.request({ url: `/api/notifications${query}`, cookie })).json();

/** Polls the owner's list until the notification's email has left 'pending'. */
async function settledEmail(t: TestApp, cookie: string, id: string): Promise<TNotification> {
  for (let i = 0; i < 100; i++) {
    const found = (await listOf(t, cookie)).notifications.find((n) => n.id === id);
    if (found && found.emailStatus !== 'pending') return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`email of ${id} still pending`);
}

const emailRow = async (t: TestApp, id: string) =>
  (await t.database.db.select().from(notifications).where(eq(notifications.id, id)))[0]!;

describe('notifications API', () => {
  let t: TestApp;
  let ada: Person;
  let bob: Person;
  let agentId: string;
  beforeAll(async () => {
    t = await createTestApp();
    ada = await person(t, 'ada@example.com');
    bob = await person(t, 'bob@example.com');
    agentId = await agentOf(t, ada.id);
  });
  afterAll(async () => t?.close());
  afterEach(async () => {
    await t.database.db.delete(notifications);
    await t.database.db.delete(alertStates);
  });

  it('needs a session for every route', async () => {
    expect((await t.request({ url: '/api/notifications' })).statusCode).toBe(401);
    expect((await t.request({ method: 'POST', url: `/api/notifications/${UNKNOWN_ID}/read` })).statusCode).toBe(401);
    expect((await t.request({ method: 'POST', url: '/api/notifications/read-all' })).statusCode).toBe(401);
  });

  it('lists only the user’s own, newest first, with the unread count, never cached', async () => {
    await t.app.notifications.applyAlerts(alertsInput(ada, agentId, [rsi(true, 'ETH/USDT on binance')]));
    t.advanceTime(1_000);
    await t.app.notifications.applyAlerts(alertsInput(ada, agentId, [rsi(true, 'BTC/USDT on binance')]));

    const res = await t.request({ url: '/api/notifications', cookie: ada.cookie });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const list = res.json() as TNotificationList;
    expect(list.unread).toBe(2);
    expect(list.notifications.map((n) => n.market)).toEqual(['BTC/USDT on binance', 'ETH/USDT on binance']);
    expect(list.notifications[0]).toEqual({
      id: expect.any(String),
      kind: 'alerts',
      agentId,
      agentName: 'BTC watcher',
      runId: null,
      market: 'BTC/USDT on binance',
      thresholdType: 'rsi_overbought',
      alerts: [{ market: 'BTC/USDT on binance', threshold: 'rsi_overbought', value: 78.2, limit: 70, message: 'RSI 78.2 on BTC/USDT on binance is above 70.' }],
      conditions: [],
      title: 'BTC watcher: rsi_overbought alert on BTC/USDT on binance',
      message: 'RSI 78.2 on BTC/USDT on binance is above 70.',
      createdAt: expect.any(String),
      readAt: null,
      emailStatus: 'none',
      heldUntil: null,
      deliveries: [],
      brief: null,
    });

    expect(await listOf(t, bob.cookie)).toEqual({ notifications: [], unread: 0 });
    const limited = await listOf(t, ada.cookie, '?limit=1');
    expect(limited.notifications).toHaveLength(1);
    expect(limited.unread).toBe(2); // the count is of all unread, not of the page
  });

  it.each([['?limit=0'], ['?limit=101'], ['?limit=abc'], ['?other=1']])('refuses the query %s with 400', async (query) => {
    const res = await t.request({ url: `/api/notifications${query}`, cookie: ada.cookie });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('Invalid request');
  });

  it('marks one read: 200 with the notification, the count drops, a second time keeps the first read time', async () => {
    const { created } = await t.app.notifications.applyAlerts(alertsInput(ada, agentId, [rsi(true)]));
    const id = created[0]!.id;

    const res = await t.request({ method: 'POST', url: `/api/notifications/${id}/read`, cookie: ada.cookie });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const read = res.json() as TNotification;
    expect(read).toMatchObject({ id, readAt: expect.any(String) });
    expect((await listOf(t, ada.cookie)).unread).toBe(0);

    t.advanceTime(5_000);
    const again = (await t.request({ method: 'POST', url: `/api/notifications/${id}/read`, cookie: ada.cookie })).json() as TNotification;
    expect(again.readAt).toBe(read.readAt);
  });

  it("answers 404 for another user's notification, as for a missing one, and leaves it unread", async () => {
    const { created } = await t.app.notifications.applyAlerts(alertsInput(ada, agentId, [rsi(true)]));
    const id = created[0]!.id;
    for (const url of [`/api/notifications/${id}/read`, `/api/notifications/${UNKNOWN_ID}/read`]) {
      const res = await t.request({ method: 'POST', url, cookie: bob.cookie });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'Not Found', message: 'Notification not found' });
    }
    expect((await listOf(t, ada.cookie)).unread).toBe(1);

    const bad = await t.request({ method: 'POST', url: '/api/notifications/not-a-uuid/read', cookie: ada.cookie });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details).toEqual([{ path: 'id', message: 'Notification id must be a UUID' }]);
  });

  it('marks all of the user’s read with 204, and nobody else’s', async () => {
    const bobsAgent = await agentOf(t, bob.id);
    await t.app.notifications.applyAlerts(alertsInput(ada, agentId, [rsi(true, 'A'), rsi(true, 'B')]));
    await t.app.notifications.applyAlerts(alertsInput(bob, bobsAgent, [rsi(true)]));

    const res = await t.request({ method: 'POST', url: '/api/notifications/read-all', cookie: ada.cookie });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    const list = await listOf(t, ada.cookie);
    expect(list.unread).toBe(0);
    expect(list.notifications.every((n) => n.readAt !== null)).toBe(true);
    expect((await listOf(t, bob.cookie)).unread).toBe(1);
  });

  it('refuses a cross-origin mark-as-read', async () => {
    const { created } = await t.app.notifications.applyAlerts(alertsInput(ada, agentId, [rsi(true)]));
    const res = await t.request({
      method: 'POST',
      url: `/api/notifications/${created[0]!.id}/read`,
      cookie: ada.cookie,
      headers: { origin: 'https://evil.example' },
    });
    expect(res.statusCode).toBe(403);
    expect((await listOf(t, ada.cookie)).unread).toBe(1);
  });
});

describe('applyAlerts: one notification per run, one alert per condition until it clears', () => {
  let t: TestApp;
  let ada: Person;
  let agentId: string;
  beforeAll(async () => {
    t = await createTestApp();
    ada = await person(t, 'ada@example.com');
    agentId = await agentOf(t, ada.id);
  });
  afterAll(async () => t?.close());
  afterEach(async () => {
    await t.database.db.delete(notifications);
    await t.database.db.delete(alertStates);
  });

  const apply = (conditions: AlertCondition[], channels: Partial<ApplyAlertsInput> = {}) =>
    t.app.notifications.applyAlerts(alertsInput(ada, agentId, conditions, channels));

  it('alerts when a condition starts firing, stays quiet while it fires, and alerts again after it clears', async () => {
    expect((await apply([rsi(true)])).created).toHaveLength(1);
    expect((await apply([rsi(true)])).created).toEqual([]);
    expect((await apply([rsi(true)])).created).toEqual([]);
    expect((await apply([rsi(false)])).created).toEqual([]);
    expect((await apply([rsi(false)])).created).toEqual([]);
    const again = await apply([rsi(true)]);
    expect(again.created).toHaveLength(1);
    expect((await listOf(t, ada.cookie)).notifications).toHaveLength(2);
  });

  it('lists every alert of a run in one notification, and keeps each market and threshold apart', async () => {
    const first = await apply([rsi(true, 'BTC'), rsi(true, 'ETH'), { ...rsi(true, 'BTC'), thresholdType: 'price_drop', value: 3.5, limit: 2 }]);
    expect(first.created).toHaveLength(1);
    const [run] = first.created;
    expect(run!.alerts.map((a) => `${a.market} ${a.threshold} ${a.value} > ${a.limit}`)).toEqual(['BTC price_drop 3.5 > 2', 'BTC rsi_overbought 78.2 > 70', 'ETH rsi_overbought 78.2 > 70']);
    expect(run).toMatchObject({ kind: 'alerts', title: 'BTC watcher: 3 alerts on 2 markets', market: null, thresholdType: null });
    expect(run!.message.split('\n')).toHaveLength(3);
    // BTC's RSI clears and fires again in later runs; ETH keeps firing.
    await apply([rsi(false, 'BTC'), rsi(true, 'ETH')]);
    const later = await apply([rsi(true, 'BTC'), rsi(true, 'ETH')]);
    expect(later.created.map((n) => n.alerts.map((a) => a.market))).toEqual([['BTC']]);
    expect(later.created[0]).toMatchObject({ title: 'BTC watcher: rsi_overbought alert on BTC', market: 'BTC', thresholdType: 'rsi_overbought' });
  });

  it('two thresholds of one type on a market are one event: the one not firing does not clear the one that does', async () => {
    const small = (firing: boolean) => ({ ...rsi(firing), limit: 70, message: 'small' });
    const big = (firing: boolean) => ({ ...rsi(firing), limit: 80, message: 'big' });
    // Both fire: one notification with both.
    expect((await apply([small(true), big(true)])).created.map((n) => n.alerts.map((a) => a.message))).toEqual([['small', 'big']]);
    // Only the lower one fires, run after run: the event goes on, nothing new (it used to clear
    // and alert again every other run).
    for (let run = 0; run < 3; run++) expect((await apply([small(true), big(false)])).created).toEqual([]);
    // Neither fires: it clears; the next firing is a new event.
    expect((await apply([small(false), big(false)])).created).toEqual([]);
    expect((await apply([small(true), big(false)])).created.map((n) => n.alerts.map((a) => a.message))).toEqual([['small']]);
  });

  it('alerts once when several runs of the agent see the same condition at once', async () => {
    const results = await Promise.all(Array.from({ length: 5 }, () => apply([rsi(true, 'SOL'), rsi(true, 'ADA')])));
    expect(results.flatMap((r) => r.created.flatMap((n) => n.alerts.map((a) => a.market))).sort()).toEqual(['ADA', 'SOL']);
    expect((await listOf(t, ada.cookie)).notifications).toHaveLength(1);
  });

  it('with in-app off but email on: the row carries the email, already read so the bell does not count it', async () => {
    const { created } = await apply([rsi(true)], { inAppEnabled: false, emailEnabled: true });
    expect(created).toHaveLength(1);
    expect(created[0]!.readAt).not.toBeNull();
    const list = await listOf(t, ada.cookie);
    expect(list.unread).toBe(0);
    expect(list.notifications).toHaveLength(1);
    // No SMTP_URL here: the email goes to the log.
    expect((await settledEmail(t, ada.cookie, created[0]!.id)).emailStatus).toBe('logged');
  });

  it('with both channels off: no notification, and the condition is not marked, so turning alerts on alerts at once', async () => {
    expect((await apply([rsi(true)], { inAppEnabled: false, emailEnabled: false })).created).toEqual([]);
    expect(await t.database.db.select().from(alertStates)).toEqual([]);
    expect((await apply([rsi(true)])).created).toHaveLength(1);
  });

  it('skips an agent deleted while it ran, without failing', async () => {
    const { created } = await t.app.notifications.applyAlerts(alertsInput(ada, UNKNOWN_ID, [rsi(true)]));
    expect(created).toEqual([]);
    expect((await listOf(t, ada.cookie)).notifications).toEqual([]);
  });

  describe('a batch of runs at once (docs/decisions/0052)', () => {
    const others: string[] = [];
    beforeAll(async () => {
      for (const name of ['ETH watcher', 'SOL watcher', 'ADA watcher']) others.push(await agentOf(t, ada.id, name));
    });
    const applyMany = (inputs: ApplyAlertsInput[]) => t.app.notifications.applyAlertsMany(inputs);

    it('decides each run as applyAlerts would, answered in order: starts, clears, quiet while firing, channels off', async () => {
      const [eth, sol, ada2] = others as [string, string, string];
      const first = await applyMany([
        alertsInput(ada, agentId, [rsi(true, 'BTC'), rsi(true, 'ETH')]),
        alertsInput(ada, eth, [rsi(false)]),
        alertsInput(ada, sol, [rsi(true)], { inAppEnabled: false, emailEnabled: false }),
        alertsInput(ada, ada2, [rsi(true)]),
      ]);
      expect(first.map((r) => r.created.map((n) => n.alerts.map((a) => a.market)))).toEqual([[['BTC', 'ETH']], [], [], [['BTC/USDT on binance']]]);
      expect(first[0]!.created[0]).toMatchObject({ agentId, title: 'BTC watcher: 2 alerts on 2 markets', readAt: null, emailStatus: 'none' });
      const marked = async () => (await t.database.db.select().from(alertStates)).map((s) => `${s.agentId === agentId ? 'btc' : s.agentId === ada2 ? 'ada' : 'other'} ${s.market}`).sort();
      // Both channels off: not marked, as one by one.
      expect(await marked()).toEqual(['ada BTC/USDT on binance', 'btc BTC', 'btc ETH']);

      // Still firing: nothing new. ETH clears for the first agent; the fourth stops firing.
      const second = await applyMany([alertsInput(ada, agentId, [rsi(true, 'BTC'), rsi(false, 'ETH')]), alertsInput(ada, ada2, [rsi(false)])]);
      expect(second.map((r) => r.created)).toEqual([[], []]);
      expect(await marked()).toEqual(['btc BTC']);
      // ETH fires again: a new event, alone in its notification.
      const third = await applyMany([alertsInput(ada, agentId, [rsi(true, 'BTC'), rsi(true, 'ETH')])]);
      expect(third[0]!.created.map((n) => n.title)).toEqual(['BTC watcher: rsi_overbought alert on ETH']);
      expect((await listOf(t, ada.cookie)).notifications).toHaveLength(3);
    });

    it('two runs of one agent in the batch alert once, and its cap counts the batch’s own notifications', async () => {
      const [eth] = others as [string];
      await t.database.db.update(agents).set({ config: { notifications: { maxPerHour: 1 } } as TAgentConfig }).where(eq(agents.id, eth));
      try {
        const results = await applyMany([
          alertsInput(ada, agentId, [rsi(true, 'SOL')]),
          alertsInput(ada, agentId, [rsi(true, 'SOL')]),
          alertsInput(ada, eth, [rsi(true, 'BTC')]),
          alertsInput(ada, eth, [rsi(true, 'BTC'), rsi(true, 'ETH')]),
        ]);
        expect(results.map((r) => r.created.map((n) => n.kind))).toEqual([['alerts'], [], ['alerts'], ['alert-storm']]);
      } finally {
        await t.database.db.update(agents).set({ config: {} as TAgentConfig }).where(eq(agents.id, eth));
      }
    });

    it('an agent deleted while its run ran loses its alerts alone: the batch’s others are stored', async () => {
      const [eth, sol] = others as [string, string];
      const results = await applyMany([alertsInput(ada, eth, [rsi(true)]), alertsInput(ada, UNKNOWN_ID, [rsi(true)]), alertsInput(ada, sol, [rsi(true, 'SOL')])]);
      expect(results.map((r) => r.created.length)).toEqual([1, 0, 1]);
      expect((await listOf(t, ada.cookie)).notifications.map((n) => n.agentId).sort()).toEqual([eth, sol].sort());
    });
  });
});

describe('alert emails', () => {
  let catcher: SmtpCatcher;
  let t: TestApp;
  let ada: Person;
  let agentId: string;
  beforeAll(async () => {
    catcher = await startSmtpCatcher();
    t = await createTestApp({ env: { SMTP_URL: catcher.url.replace('smtp://', `smtp://mailer:${SMTP_SECRET}@`), MAIL_FROM: 'alerts@example.com' } });
    ada = await person(t, 'ada@example.com');
    agentId = await agentOf(t, ada.id);
  });
  afterAll(async () => {
    await t?.close();
    await catcher?.close();
  });
  afterEach(async () => {
    catcher.reset();
    await t.database.db.delete(notifications);
    await t.database.db.delete(alertStates);
  });

  const withEmail = (conditions: AlertCondition[]) =>
    t.app.notifications.applyAlerts(alertsInput(ada, agentId, conditions, { emailEnabled: true }));
  const putSettings = (payload: object) => t.request({ method: 'PUT', url: '/api/settings', cookie: ada.cookie, payload });

  it('emails the alert storm notice once, as its summary; held alerts send nothing (docs/decisions/0041)', async () => {
    await t.database.db.update(agents).set({ config: { notifications: { maxPerHour: 1 } } as TAgentConfig }).where(eq(agents.id, agentId));
    try {
      await withEmail([rsi(true, 'BTC/USDT on binance')]);
      const [storm] = (await withEmail([rsi(true, 'ETH/USDT on binance')])).created;
      // The storm email says what was held when it goes: waited for before a third alert is held,
      // so its summary is known (a slow job would otherwise count the third too).
      const messages = await catcher.waitForMessages(2);
      await withEmail([rsi(true, 'SOL/USDT on binance')]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(catcher.messages()).toHaveLength(2);
      // The jobs deliver in any order.
      const email = messages.find((m) => m.subject === storm!.title);
      expect(email).toMatchObject({ to: ['ada@example.com'] });
      expect(storm!.title).toMatch(/^BTC watcher: alert storm, notifications paused until \d{2}:\d{2} (UTC|GMT[+-][\d:]+)$/);
      expect(email!.text).toContain('This agent reached its limit of 1 notification per hour.');
      expect(email!.text).toMatch(/Held back since .*: 1 alert on ETH\/USDT on binance \(rsi_overbought\)\./);
      expect(email!.text).toContain('Run History records every firing.');
    } finally {
      await t.database.db.update(agents).set({ config: {} as TAgentConfig }).where(eq(agents.id, agentId));
    }
  });

  it('sends one email per alert to the sign-in email, with the agent, market, message, time and console link', async () => {
    await putSettings({ alertEmail: null, timeZone: 'Europe/Paris' });
    const { created } = await withEmail([rsi(true)]);
    expect(created[0]!.emailStatus).toBe('pending');

    const [message] = await catcher.waitForMessages(1);
    expect(message).toMatchObject({ from: 'alerts@example.com', to: ['ada@example.com'], subject: 'BTC watcher: rsi_overbought alert on BTC/USDT on binance' });
    expect(message!.text).toContain('Agent:  BTC watcher');
    expect(message!.text).toContain('Market: BTC/USDT on binance');
    expect(message!.text).toContain('RSI 78.2 on BTC/USDT on binance is above 70.');
    // SPEC's 'MMM d, yyyy HH:mm' (24-hour, as every time the product shows), the zone named.
    expect(message!.text).toMatch(/Time: +\w{3} \d{1,2}, \d{4} \d{2}:\d{2} GMT\+[12] \(Europe\/Paris\)\n/);
    // The link every channel carries too: the agent's details at the run (contracts/links.ts).
    expect(message!.text).toContain(`Open the agents console: ${notificationUrl(t.config.publicUrl, created[0]!)}`);
    expect(notificationUrl(t.config.publicUrl, created[0]!)).toMatch(/\/agents-console\?agent=[0-9a-f-]{36}/);

    const settled = await settledEmail(t, ada.cookie, created[0]!.id);
    expect(settled.emailStatus).toBe('sent');
    expect(await emailRow(t, created[0]!.id)).toMatchObject({ emailAttempts: 1, emailError: null });

    // Still firing on the next run: no second email.
    await withEmail([rsi(true)]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(catcher.messages()).toHaveLength(1);
  });

  it('goes to the alert email from Settings when there is one', async () => {
    expect((await putSettings({ alertEmail: 'Desk@Example.com', timeZone: null })).statusCode).toBe(200);
    await withEmail([rsi(true)]);
    const [message] = await catcher.waitForMessages(1);
    expect(message!.to).toEqual(['desk@example.com']);
    expect(message!.text).toMatch(/Time: +\w{3} \d{1,2}, \d{4} \d{2}:\d{2} UTC\n/);
  });

  it('records a failed attempt and rethrows so the queue retries; the last attempt records failed and resolves', async () => {
    catcher.setMode('refuse');
    const { created } = await t.app.notifications.applyAlerts(alertsInput(ada, agentId, [rsi(true)], { emailEnabled: true }));
    const id = created[0]!.id;
    await settledEmail(t, ada.cookie, id); // the default (inline, single) attempt: failed
    await t.database.db.update(notifications).set({ emailStatus: 'pending', emailAttempts: 0, emailError: null }).where(eq(notifications.id, id));

    await expect(t.app.notifications.deliverEmail(id, { number: 1, last: false })).rejects.toThrow(/421/);
    let row = await emailRow(t, id);
    expect(row).toMatchObject({ emailStatus: 'pending', emailAttempts: 1 });
    expect(row.emailError).toMatch(/Could not send email through 127\.0\.0\.1:\d+: .*421/);
    expect(row.emailError).not.toContain(SMTP_SECRET);

    await expect(t.app.notifications.deliverEmail(id, { number: 2, last: true })).resolves.toBeUndefined();
    row = await emailRow(t, id);
    expect(row).toMatchObject({ emailStatus: 'failed', emailAttempts: 2 });

    // A retry that comes after all succeeds and clears the error.
    catcher.setMode('accept');
    await t.database.db.update(notifications).set({ emailStatus: 'pending' }).where(eq(notifications.id, id));
    await t.app.notifications.deliverEmail(id, { number: 3, last: false });
    expect(await emailRow(t, id)).toMatchObject({ emailStatus: 'sent', emailAttempts: 3, emailError: null });
    expect(catcher.messages()).toHaveLength(1);
  });

  it('gives up at once on a permanent refusal (5xx): retrying would get the same answer', async () => {
    catcher.setMode('reject');
    const { created } = await withEmail([rsi(true)]);
    const id = created[0]!.id;
    await settledEmail(t, ada.cookie, id);
    await t.database.db.update(notifications).set({ emailStatus: 'pending', emailAttempts: 0 }).where(eq(notifications.id, id));
    await expect(t.app.notifications.deliverEmail(id, { number: 1, last: false })).resolves.toBeUndefined();
    expect(await emailRow(t, id)).toMatchObject({ emailStatus: 'failed', emailAttempts: 1, emailError: expect.stringContaining('554') });
  });

  it('does not send again an email already sent (a job run twice), nor one never asked for', async () => {
    const { created } = await withEmail([rsi(true)]);
    const id = created[0]!.id;
    await catcher.waitForMessages(1);
    await settledEmail(t, ada.cookie, id);
    await t.app.notifications.deliverEmail(id, { number: 2, last: false });

    const { created: quiet } = await t.app.notifications.applyAlerts(alertsInput(ada, agentId, [rsi(true, 'ETH')]));
    await t.app.notifications.deliverEmail(quiet[0]!.id, { number: 1, last: true });
    await t.app.notifications.deliverEmail(UNKNOWN_ID, { number: 1, last: true });
    expect(catcher.messages()).toHaveLength(1);
  });

  it('never fails the alert when the email cannot be queued: the email is marked failed', async () => {
    const lines: Array<{ level: number; msg: string }> = [];
    const service = createNotificationsService({
      db: t.database.db,
      mailer: createMailer(t.config.email, pino({ level: 'silent' })),
      enqueueEmail: async () => {
        throw new Error('queue is down');
      },
      logger: pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) }),
      publicUrl: t.config.publicUrl,
    });
    const { created } = await service.applyAlerts(alertsInput(ada, agentId, [rsi(true)], { emailEnabled: true }));
    expect(created).toHaveLength(1);
    expect(created[0]!.emailStatus).toBe('failed');
    expect(await emailRow(t, created[0]!.id)).toMatchObject({
      emailStatus: 'failed',
      emailAttempts: 0,
      emailError: 'Could not queue the email: queue is down',
    });
    expect(lines.filter((l) => l.level >= 50).map((l) => l.msg)).toEqual(['could not queue an alert email']);
    expect(catcher.messages()).toEqual([]);
  });
});
