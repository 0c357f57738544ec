import { and, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultAgentConfig, findTemplate, type TAgent, type TAgentConfig, type TAgentRun } from '../../../contracts/agents.ts';
import type { TNotification, TNotificationList } from '../../../contracts/notifications.ts';
import { startFakeExchanges, type FakeExchanges, type ScriptedCandle } from '../../../tests/fakes/exchanges.ts';
import { agents, alertStates, notifications } from '../../db/schema.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { startTestWorkers } from '../../test/test-workers.ts';
import { until } from '../../test/until.ts';
import type { Workers } from '../runtime/workers.ts';
import type { AlertCondition, ApplyAlertsInput } from './notifications.service.ts';

const HOUR = 60 * 60 * 1000;

/** A firing price-change condition on its own market, so each one alerts (no dedupe between them). */
const firing = (market: string): AlertCondition => ({ market, thresholdType: 'priceChange', firing: true, value: 4, limit: 3, message: `${market} moved 4%` });

function crypto(notifications: Partial<TAgentConfig['notifications']> = {}): TAgentConfig {
  const defaults = defaultAgentConfig(findTemplate('crypto-market-monitor')!);
  return {
    ...defaults,
    notifications: { email: false, inApp: true, thresholds: [{ type: 'priceChange', value: 0.5, message: 'Price change above 0.5%' }], ...notifications },
    parameters: { ...defaults.parameters, token: 'BTC', exchanges: ['Binance'], timeframe: '1min', includeOnChainMetrics: false },
  };
}

/** '14:05 UTC', as the storm notice writes a time for a user without a time zone. */
const utcClock = (at: Date) => `${at.toISOString().slice(11, 16)} UTC`;

/** Issue 17 item 4 (docs/decisions/0041): at most maxPerHour alert notifications per agent and hour. */
describe('notifications per hour per agent', () => {
  let t: TestApp;
  let cookie: string;
  let userId: string;

  beforeAll(async () => {
    t = await createTestApp();
    cookie = await t.signIn('owner@example.com', 'Owner');
    userId = ((await t.request({ url: '/api/auth/me', cookie })).json() as { user: { id: string } }).user.id;
  });
  afterAll(async () => t?.close());
  afterEach(async () => {
    await t.database.db.delete(notifications);
    await t.database.db.delete(agents);
  });

  async function createAgent(config: TAgentConfig, name = 'BTC watch'): Promise<TAgent> {
    const res = await t.request({ method: 'POST', url: '/api/agents', cookie, payload: { templateId: 'crypto-market-monitor', name, config } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<TAgent>();
  }

  const input = (agent: TAgent, conditions: AlertCondition[], channels: Partial<ApplyAlertsInput> = {}): ApplyAlertsInput => ({
    userId,
    agentId: agent.id,
    agentName: agent.name,
    runId: null,
    emailEnabled: false,
    inAppEnabled: true,
    conditions,
    ...channels,
  });
  const alert = async (agent: TAgent, market: string, channels: Partial<ApplyAlertsInput> = {}) =>
    (await t.app.notifications.applyAlerts(input(agent, [firing(market)], channels))).created;
  const bell = async (): Promise<TNotificationList> => (await t.request({ url: '/api/notifications?limit=100', cookie })).json();
  const ofKind = async (kind: TNotification['kind']) => (await bell()).notifications.filter((n) => n.kind === kind);

  it('12 by default: the 13th is held under one storm notice, later ones add to it, the hour after notifies again', async () => {
    const agent = await createAgent(crypto());
    expect(agent.config.notifications.maxPerHour).toBeUndefined();
    for (let i = 1; i <= 12; i++) expect(await alert(agent, `M${i}`)).toEqual([expect.objectContaining({ kind: 'alerts' })]);
    const first = (await ofKind('alerts')).at(-1)!;
    const resumes = new Date(new Date(first.createdAt).getTime() + HOUR);

    const [storm] = await alert(agent, 'M13');
    expect(storm).toMatchObject({
      kind: 'alert-storm',
      agentId: agent.id,
      title: `BTC watch: alert storm, notifications paused until ${utcClock(resumes)}`,
      market: 'M13',
      thresholdType: 'priceChange',
      alerts: [{ market: 'M13', threshold: 'priceChange', value: 4, limit: 3, message: 'M13 moved 4%' }],
      readAt: null,
      heldUntil: resumes.toISOString(),
    });
    expect(storm!.message).toBe(
      [
        'This agent reached its limit of 12 notifications per hour.',
        `Held back since ${utcClock(new Date(storm!.createdAt))}: 1 alert on M13 (Price change).`,
        `Notifications resume at ${utcClock(resumes)}. Run History records every firing.`,
      ].join('\n'),
    );

    // Further alerts in the hour create nothing; the one notice counts them.
    expect(await alert(agent, 'M14')).toEqual([]);
    expect(await t.app.notifications.applyAlerts(input(agent, [firing('M15'), { ...firing('M15'), thresholdType: 'volumeAlert', message: 'M15 volume' }]))).toEqual({ created: [], held: true, repeated: [] });
    const list = await bell();
    expect(list.notifications.filter((n) => n.kind === 'alerts')).toHaveLength(12);
    const storms = list.notifications.filter((n) => n.kind === 'alert-storm');
    expect(storms).toEqual([expect.objectContaining({ id: storm!.id, title: storm!.title, market: null, thresholdType: null })]);
    expect(storms[0]!.alerts.map((a) => `${a.market} ${a.threshold}`)).toEqual(['M13 priceChange', 'M14 priceChange', 'M15 priceChange', 'M15 volumeAlert']);
    expect(storms[0]!.message).toContain('4 alerts on M13, M14, M15 (Price change, Volume alert).');
    expect(list.unread).toBe(13);

    // Held alerts still mark their condition: one still firing when the cap lifts does not alert late.
    const marked = await t.database.db.select().from(alertStates).where(and(eq(alertStates.agentId, agent.id), eq(alertStates.market, 'M14')));
    expect(marked).toHaveLength(1);

    t.advanceTime(HOUR);
    expect(await alert(agent, 'M14')).toEqual([]);
    expect(await alert(agent, 'M16')).toEqual([expect.objectContaining({ kind: 'alerts', market: 'M16' })]);
    // The window slides: the hour's first notifications left it, so there is room again.
    expect(await alert(agent, 'M17')).toEqual([expect.objectContaining({ kind: 'alerts', market: 'M17' })]);
    expect(await ofKind('alert-storm')).toHaveLength(1);
  });

  it("a new held period gets a new notice; the agent's own cap and the user's time zone apply", async () => {
    expect((await t.request({ method: 'PUT', url: '/api/settings', cookie, payload: { alertEmail: null, timeZone: 'Asia/Kolkata' } })).statusCode).toBe(200);
    try {
      const agent = await createAgent(crypto({ maxPerHour: 2 }));
      expect(agent.config.notifications.maxPerHour).toBe(2);
      expect(await alert(agent, 'A')).toHaveLength(1);
      expect(await alert(agent, 'B')).toHaveLength(1);
      const [storm] = await alert(agent, 'C');
      const first = (await ofKind('alerts')).at(-1)!;
      const kolkata = (at: number) => new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: 'Asia/Kolkata' }).format(at);
      // In the owner's zone, named: the notice is stored, emailed and sent as written (docs/decisions/0066).
      expect(storm).toMatchObject({ kind: 'alert-storm', title: `BTC watch: alert storm, notifications paused until ${kolkata(new Date(first.createdAt).getTime() + HOUR)} GMT+5:30` });
      expect(storm!.message).toContain(`Notifications resume at ${kolkata(new Date(first.createdAt).getTime() + HOUR)} GMT+5:30.`);
      expect(storm!.message).toContain('limit of 2 notifications per hour');

      t.advanceTime(HOUR);
      expect(await alert(agent, 'D')).toHaveLength(1);
      expect(await alert(agent, 'E')).toHaveLength(1);
      expect(await alert(agent, 'F')).toEqual([expect.objectContaining({ kind: 'alert-storm', alerts: [expect.objectContaining({ market: 'F' })] })]);
      expect(await ofKind('alert-storm')).toHaveLength(2);
    } finally {
      await t.request({ method: 'PUT', url: '/api/settings', cookie, payload: { alertEmail: null, timeZone: null } });
    }
  });

  it('concurrent runs at the edge do not pass the cap together', async () => {
    for (let round = 0; round < 3; round++) {
      const agent = await createAgent(crypto({ maxPerHour: 3 }), `Race ${round}`);
      expect(await alert(agent, 'X')).toHaveLength(1);
      expect(await alert(agent, 'Y')).toHaveLength(1);
      // One slot left, five runs at once: one alert passes, the others are held under one notice.
      await Promise.all(['P1', 'P2', 'P3', 'P4', 'P5'].map((market) => alert(agent, market)));
      const rows = await t.database.db.select().from(notifications).where(eq(notifications.agentId, agent.id));
      expect(rows.filter((n) => n.kind === 'alerts')).toHaveLength(3);
      const storms = rows.filter((n) => n.kind === 'alert-storm');
      expect(storms).toHaveLength(1);
      expect(storms[0]!.alerts).toHaveLength(4);
    }
  });

  it('health notifications pass regardless, and do not count against the cap', async () => {
    const agent = await createAgent(crypto({ maxPerHour: 1 }));
    const health = { userId, agentId: agent.id, agentName: agent.name, runId: null, emailEnabled: false, inAppEnabled: true };
    expect((await t.app.notifications.applyHealth({ ...health, failing: { reason: 'exchange down', failedRuns: 3 } })).created).toEqual([
      expect.objectContaining({ kind: 'failing' }),
    ]);
    expect(await alert(agent, 'A')).toEqual([expect.objectContaining({ kind: 'alerts' })]);
    expect(await alert(agent, 'B')).toEqual([expect.objectContaining({ kind: 'alert-storm' })]);
    expect((await t.app.notifications.applyHealth({ ...health, failing: null })).created).toEqual([expect.objectContaining({ kind: 'recovered' })]);
  });

  it('emails the storm notice once and the held alerts never', async () => {
    const agent = await createAgent(crypto({ email: true, maxPerHour: 1 }));
    await alert(agent, 'A', { emailEnabled: true });
    const [storm] = await alert(agent, 'B', { emailEnabled: true });
    expect(storm).toMatchObject({ kind: 'alert-storm', emailStatus: 'pending' });
    await alert(agent, 'C', { emailEnabled: true });
    const rows = await t.database.db.select().from(notifications).where(eq(notifications.agentId, agent.id));
    expect(rows.map((r) => [r.kind, r.emailStatus === 'none' ? 'none' : 'emailed'])).toEqual(
      expect.arrayContaining([
        ['alerts', 'emailed'],
        ['alert-storm', 'emailed'],
      ]),
    );
    expect(rows).toHaveLength(2);
    await until(bell, (list) => list.notifications.find((n) => n.id === storm!.id)?.emailStatus === 'logged');
  });

  it('validates maxPerHour: a whole number from 1 to 1000, on create and on edit', async () => {
    for (const [maxPerHour, message] of [
      [0, 'Notifications per hour must be at least 1'],
      [1001, 'Notifications per hour must be at most 1,000'],
      [2.5, 'Notifications per hour must be a whole number'],
      ['12', 'Notifications per hour must be a number'],
      [null, 'Notifications per hour must be a number'],
    ] as const) {
      const config = { ...crypto(), notifications: { ...crypto().notifications, maxPerHour } };
      const res = await t.request({ method: 'POST', url: '/api/agents', cookie, payload: { templateId: 'crypto-market-monitor', name: 'Bad cap', config } });
      expect(res.statusCode, String(maxPerHour)).toBe(400);
      expect(res.json()).toEqual({ error: 'Invalid request', details: [{ path: 'config.notifications.maxPerHour', message }] });
    }
    expect((await t.request({ url: '/api/agents', cookie })).json<TAgent[]>()).toEqual([]);

    const agent = await createAgent(crypto());
    const bad = await t.request({ method: 'PATCH', url: `/api/agents/${agent.id}`, cookie, payload: { config: crypto({ maxPerHour: 0 }) } });
    expect(bad.statusCode).toBe(400);
    expect((await t.request({ url: `/api/agents/${agent.id}`, cookie })).json<TAgent>().config.notifications.maxPerHour).toBeUndefined();
    const good = await t.request({ method: 'PATCH', url: `/api/agents/${agent.id}`, cookie, payload: { config: crypto({ maxPerHour: 1000 }) } });
    expect(good.statusCode).toBe(200);
    expect((await t.request({ url: `/api/agents/${agent.id}`, cookie })).json<TAgent>().config.notifications.maxPerHour).toBe(1000);
  });
});

const QUIET: ScriptedCandle = { close: 100, high: 100.5, low: 99.5, volume: 1000 };

/** Through a real run: the held alert is still in Run History. */
describe('a run held back by the cap', () => {
  let exchanges: FakeExchanges;
  let t: TestApp;
  let workers: Workers;

  beforeAll(async () => {
    exchanges = await startFakeExchanges();
    exchanges.setSeries('BTC', [...Array.from({ length: 20 }, () => QUIET), { close: 101, high: 101.2, low: 100.4, volume: 1000 }]);
    t = await createTestApp({ env: { ...exchanges.env, MARKET_DATA: 'live', DISPATCH_INTERVAL_MS: '50', DISPATCH_LOOKAHEAD_MS: '0' } });
    workers = await startTestWorkers(t);
  });
  afterAll(async () => {
    await workers?.stop();
    await t?.close();
    await exchanges?.close();
  });

  it('records the firing in the run and tells the owner once, by the storm notice', async () => {
    const cookie = await t.signIn('trader@example.com', 'Trader');
    const userId = ((await t.request({ url: '/api/auth/me', cookie })).json() as { user: { id: string } }).user.id;
    const created = await t.request({ method: 'POST', url: '/api/agents', cookie, payload: { templateId: 'crypto-market-monitor', name: 'BTC watch', config: crypto({ maxPerHour: 1 }) } });
    expect(created.statusCode, created.body).toBe(201);
    const agent = created.json<TAgent>();
    // The hour's one notification already went out (another market of this agent).
    await t.app.notifications.applyAlerts({ userId, agentId: agent.id, agentName: agent.name, runId: null, emailEnabled: false, inAppEnabled: true, conditions: [firing('ETH/USDT on binance')] });

    expect((await t.request({ method: 'POST', url: `/api/agents/${agent.id}/run`, cookie })).statusCode).toBe(202);
    const [run] = await until(
      async () => (await t.request({ url: `/api/agents/${agent.id}/runs`, cookie })).json<TAgentRun[]>(),
      (runs) => runs[0]?.status === 'success' || runs[0]?.status === 'failure',
      15_000,
    );
    expect(run!.status).toBe('success');
    expect(run!.result!.alerts).toEqual([expect.objectContaining({ market: 'BTC/USDT on binance', threshold: 'priceChange' })]);

    const list = await until(
      async () => (await t.request({ url: '/api/notifications', cookie })).json<TNotificationList>(),
      (l) => l.notifications.some((n) => n.kind === 'alert-storm'),
    );
    expect(list.notifications.map((n) => n.kind)).toEqual(['alert-storm', 'alerts']);
    expect(list.notifications[0]).toMatchObject({ runId: run!.id, alerts: [expect.objectContaining({ market: 'BTC/USDT on binance', threshold: 'priceChange' })] });
  });
});
