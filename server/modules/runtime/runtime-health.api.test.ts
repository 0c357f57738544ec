import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { failingTitle, recoveredTitle } from '../../../contracts/agent-health.ts';
import { defaultAgentConfig, findTemplate, type TAgent, type TAgentConfig, type TAgentRun } from '../../../contracts/agents.ts';
import { MARKET_FAILURES, type TMarketResult } from '../../../contracts/market.ts';
import type { TNotificationList } from '../../../contracts/notifications.ts';
import { startFakeExchanges, type FakeExchanges } from '../../../tests/fakes/exchanges.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { startTestWorkers } from '../../test/test-workers.ts';
import { until } from '../../test/until.ts';
import type { Workers } from './workers.ts';

const CRYPTO = 'crypto-market-monitor';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const KRAKEN_DOWN = `BTC/USD (kraken): ${MARKET_FAILURES.unavailable}`;

/** A crypto agent on hourly candles, in-app alerts only; a price-change alert at 0% fires on any fresh candle. */
function configOf(exchanges: string[], thresholdValue = 0): TAgentConfig {
  const base = defaultAgentConfig(findTemplate(CRYPTO)!);
  return {
    ...base,
    schedule: { ...base.schedule, timeZone: 'UTC' },
    notifications: { email: false, inApp: true, thresholds: [{ type: 'priceChange', value: thresholdValue, message: 'Price moved' }] },
    parameters: { ...base.parameters, token: 'BTC', exchanges, timeframe: '1h', includeOnChainMetrics: false, walletTracking: false },
  };
}

/**
 * Health you can see (issue 15 item 3): the agent's state follows its latest run, the owner
 * hears once after three failed runs in a row and once on recovery, performance is the latest
 * successful run's with its time; stale data and too-short series fail with what arrived.
 */
describe('agent health', () => {
  let exchanges: FakeExchanges;
  let t: TestApp;
  let workers: Workers;
  let admin: string;

  beforeAll(async () => {
    // The exchanges' candles run up to the app's clock, which these tests move a minute per run.
    exchanges = await startFakeExchanges({ now: () => (t ? t.now().getTime() : Date.now()) });
    t = await createTestApp({
      env: { ...exchanges.env, ADMIN_EMAILS: 'admin@example.com', MARKET_DATA: 'live', MARKET_RETRIES: '1', MARKET_TIMEOUT_MS: '5000', DISPATCH_INTERVAL_MS: '50' },
    });
    admin = await t.signIn('admin@example.com', 'Admin');
    workers = await startTestWorkers(t);
  });
  afterEach(() => exchanges.reset());
  afterAll(async () => {
    await workers?.stop();
    await t?.close();
    await exchanges?.close();
  });

  const create = async (config: TAgentConfig, name: string): Promise<TAgent> => {
    const res = await t.request({ method: 'POST', url: '/api/agents', cookie: admin, payload: { templateId: CRYPTO, name, config } });
    expect(res.statusCode).toBe(201);
    return res.json();
  };
  const agentOf = async (id: string): Promise<TAgent> => {
    const res = await t.request({ url: `/api/agents/${id}`, cookie: admin });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const notificationsOf = async (agentId: string) =>
    ((await t.request({ url: '/api/notifications?limit=100', cookie: admin })).json() as TNotificationList).notifications.filter((n) => n.agentId === agentId);

  /** Runs the agent now, in a minute of its own (runs of one minute share their fetches), and waits for the run. */
  async function runOnce(agentId: string): Promise<TAgentRun> {
    t.advanceTime(MINUTE);
    const queued = await t.request({ method: 'POST', url: `/api/agents/${agentId}/run`, cookie: admin });
    expect(queued.statusCode).toBe(202);
    const { runId } = queued.json<{ runId: number }>();
    const runs = await until(
      async () => (await t.request({ url: `/api/agents/${agentId}/runs`, cookie: admin })).json<TAgentRun[]>(),
      (list) => list.some((r) => r.id === runId && (r.status === 'success' || r.status === 'failure')),
      20_000,
    );
    return runs.find((r) => r.id === runId)!;
  }

  it('shows a failing agent at once, notifies once after three failed runs, and once when it recovers', async () => {
    const agent = await create(configOf(['Kraken']), 'Kraken watcher');
    expect(agent.health).toEqual({ state: 'new', reason: null, lastSuccessAt: null });

    // Two good runs: the second has a performance (the first has nothing to compare with).
    await runOnce(agent.id);
    const good = await runOnce(agent.id);
    expect(good.status).toBe('success');
    const healthy = await agentOf(agent.id);
    expect(healthy.health).toEqual({ state: 'healthy', reason: null, lastSuccessAt: good.endTime });
    expect(healthy.performance).toMatch(/^[+-]?\d+\.\d%$/);
    const notificationsBefore = (await notificationsOf(agent.id)).length;

    exchanges.setFault('kraken', '500');
    const failed = await runOnce(agent.id);
    expect(failed).toMatchObject({ status: 'failure', error: KRAKEN_DOWN });
    const failing = await agentOf(agent.id);
    // Failing within one run; performance stays the last good run's, shown with that run's time.
    expect(failing.health).toEqual({ state: 'failing', reason: KRAKEN_DOWN, lastSuccessAt: good.endTime });
    expect(failing.performance).toBe(healthy.performance);
    expect((await t.request({ url: '/api/agents', cookie: admin })).json<TAgent[]>().find((a) => a.id === agent.id)!.health.state).toBe('failing');

    await runOnce(agent.id);
    expect(await notificationsOf(agent.id)).toHaveLength(notificationsBefore); // two failures: not yet
    const third = await runOnce(agent.id);
    // The health notification is stored just after the run shows as finished: wait for it.
    const told = await until(() => notificationsOf(agent.id), (list) => list.length > notificationsBefore);
    expect(told).toHaveLength(notificationsBefore + 1);
    expect(told[0]).toMatchObject({ kind: 'failing', runId: third.id, title: failingTitle('Kraken watcher', KRAKEN_DOWN), alerts: [] });

    // Still failing: nothing more.
    await runOnce(agent.id);
    await runOnce(agent.id);
    expect(await notificationsOf(agent.id)).toHaveLength(notificationsBefore + 1);

    exchanges.setFault('kraken', 'none');
    const back = await runOnce(agent.id);
    expect(back.status).toBe('success');
    const recovered = await until(() => notificationsOf(agent.id), (list) => list.some((n) => n.kind === 'recovered'));
    expect(recovered.filter((n) => n.kind === 'recovered')).toEqual([expect.objectContaining({ runId: back.id, title: recoveredTitle('Kraken watcher') })]);
    expect(recovered.filter((n) => n.kind === 'failing')).toHaveLength(1);
    expect((await agentOf(agent.id)).health).toEqual({ state: 'healthy', reason: null, lastSuccessAt: back.endTime });

    // Healthy again and failing again: told again, once.
    exchanges.setFault('kraken', '500');
    for (let i = 0; i < 4; i++) await runOnce(agent.id);
    const again = await until(() => notificationsOf(agent.id), (list) => list.filter((n) => n.kind === 'failing').length >= 2);
    expect(again.filter((n) => n.kind === 'failing')).toHaveLength(2);
  }, 120_000);

  it("never shows an older run's performance as current: a success with nothing to compare clears it", async () => {
    const agent = await create(configOf(['Kraken']), 'Switching watcher');
    await runOnce(agent.id);
    await runOnce(agent.id);
    expect((await agentOf(agent.id)).performance).not.toBeNull();
    // Now watching another exchange: its first run has no earlier price to compare with.
    const patched = await t.request({ method: 'PATCH', url: `/api/agents/${agent.id}`, cookie: admin, payload: { config: configOf(['Binance']) } });
    expect(patched.statusCode).toBe(200);
    const switched = await runOnce(agent.id);
    expect(switched.status).toBe('success');
    const after = await agentOf(agent.id);
    expect(after.performance).toBeNull();
    expect(after.health.lastSuccessAt).toBe(switched.endTime);
  }, 60_000);

  it('with both channels off, a failing agent shows on its card but notifies nobody', async () => {
    const config = configOf(['Kraken']);
    const agent = await create({ ...config, notifications: { ...config.notifications, inApp: false } }, 'Quiet watcher');
    exchanges.setFault('kraken', '500');
    for (let i = 0; i < 3; i++) await runOnce(agent.id);
    expect((await agentOf(agent.id)).health.state).toBe('failing');
    expect(await notificationsOf(agent.id)).toEqual([]);
  }, 30_000);

  it('marks a frozen market stale: no rules, no alerts, and the run fails when every market is stale', async () => {
    // The owner reads times in Tokyo (Settings); the schedule was set in New York. The sentence is
    // stored and shown as it is, so its time is the owner's, named (docs/decisions/0066).
    expect((await t.request({ method: 'PUT', url: '/api/settings', cookie: admin, payload: { alertEmail: null, timeZone: 'Asia/Tokyo' } })).statusCode).toBe(200);
    const config = configOf(['Kraken']);
    const agent = await create({ ...config, schedule: { ...config.schedule, timeZone: 'America/New_York' } }, 'Frozen watcher');
    const frozenAt = t.now().getTime() - 5 * HOUR;
    exchanges.freeze('kraken', frozenAt);
    const run = await runOnce(agent.id).finally(() => t.request({ method: 'PUT', url: '/api/settings', cookie: admin, payload: { alertEmail: null, timeZone: null } }));
    const latestCandle = Math.floor(frozenAt / HOUR) * HOUR;
    // Tokyo is UTC+9 all year: its reading is the UTC one nine hours on.
    const inTokyo = (ms: number) => new Date(ms + 9 * HOUR).toISOString();
    const since = inTokyo(latestCandle).slice(11, 16);
    const sameDay = inTokyo(latestCandle).slice(0, 10) === inTokyo(t.now().getTime()).slice(0, 10);
    expect(run.status).toBe('failure');
    expect(run.error).toMatch(new RegExp(`^no fresh data from Kraken since ${sameDay ? '' : '\\w{3} \\d{1,2}, '}${since} GMT\\+9$`));
    const [market] = run.result!.markets as TMarketResult[];
    expect(market).toEqual({ ok: false, symbol: 'BTC/USD', source: 'kraken', simulated: false, failure: 'stale', error: MARKET_FAILURES.stale, candleTime: new Date(latestCandle).toISOString() });
    expect(run.result!.alerts).toEqual([]);
    expect(await notificationsOf(agent.id)).toEqual([]);
    expect((await agentOf(agent.id)).health).toMatchObject({ state: 'failing', reason: run.error });
  }, 30_000);

  it('with one market stale and one fresh, the run succeeds and only the fresh market feeds rules and alerts', async () => {
    const agent = await create(configOf(['Kraken', 'Binance']), 'Half frozen');
    exchanges.freeze('kraken', t.now().getTime() - 5 * HOUR);
    const run = await runOnce(agent.id);
    expect(run.status).toBe('success');
    const markets = run.result!.markets as TMarketResult[];
    expect(markets.map((m) => (m.ok ? `${m.source} ok` : `${m.source} ${m.failure}`))).toEqual(['kraken stale', 'binance ok']);
    expect(run.result!.alerts.map((a) => a.market)).toEqual(['BTC/USDT on binance']);
    const [notification] = await notificationsOf(agent.id);
    expect(notification).toMatchObject({ kind: 'alerts', runId: run.id, alerts: [expect.objectContaining({ market: 'BTC/USDT on binance' })] });
  }, 30_000);

  it('a market listed an hour ago says how many candles arrived, not that none did', async () => {
    const agent = await create(configOf(['Kraken']), 'New listing');
    // The candle that opened at the listing is the only one.
    // runOnce moves the clock a minute on first: count hours from where the run will stand,
    // or a run just past an hour's end would see one candle more.
    const runAt = () => t.now().getTime() + MINUTE;
    exchanges.listSince('kraken', Math.floor(runAt() / HOUR) * HOUR);
    const run = await runOnce(agent.id);
    expect(run.status).toBe('failure');
    const [market] = run.result!.markets as TMarketResult[];
    expect(market).toMatchObject({ ok: false, failure: 'too-few-candles', error: 'The data provider sent 1 candle; the rules need at least 2.' });
    expect(run.error).toBe('BTC/USD (kraken): The data provider sent 1 candle; the rules need at least 2.');

    // Twelve candles: the run goes ahead, and each rule that needs more says how many came.
    exchanges.listSince('kraken', (Math.floor(runAt() / HOUR) - 11) * HOUR);
    const short = await runOnce(agent.id);
    expect(short.status).toBe('success');
    const [evaluated] = short.result!.markets as TMarketResult[];
    const waiting = evaluated!.ok ? evaluated!.rules.filter((r) => r.status === 'insufficient data') : [];
    expect(waiting.map((r) => r.name)).toEqual(['Volatility spike', 'Volume surge']);
    for (const rule of waiting) expect(rule.detail).toMatch(/; 12 candles arrived$/);
  }, 30_000);
});
