import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultAgentConfig, findTemplate, type TAgent, type TAgentConfig, type TAgentRun } from '../../../contracts/agents.ts';
import type { TChannel } from '../../../contracts/channels.ts';
import type { TConditionOutcome } from '../../../contracts/condition-outcomes.ts';
import type { TCondition, TConditionState, TTrigger } from '../../../contracts/conditions.ts';
import type { TMarketResult } from '../../../contracts/market.ts';
import type { TNotificationList } from '../../../contracts/notifications.ts';
import type { TWatchedMarket } from '../../../contracts/watchlist.ts';
import { startChannelReceivers, type ChannelReceivers } from '../../../tests/fakes/channel-receivers.ts';
import { startFakeExchanges, type FakeExchanges, type ScriptedCandle } from '../../../tests/fakes/exchanges.ts';
import { startSmtpCatcher, type SmtpCatcher } from '../../../tests/fakes/smtp-catcher.ts';
import { startFakeYahoo, type FakeYahoo } from '../../../tests/fakes/yahoo.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { startTestWorkers } from '../../test/test-workers.ts';
import { until } from '../../test/until.ts';
import type { Workers } from './workers.ts';

const OWNER = 'owner@example.com';
const BTC = 'BTC/USDT on binance';
const BTC_MARKET: TWatchedMarket = { kind: 'crypto', symbol: 'BTC/USDT', exchange: 'binance' };

/** Quiet at 100, then the current (forming) one-minute candle at 100.6: close crosses above 100.5 on it. */
const QUIET: ScriptedCandle = { close: 100, volume: 1000 };
const CROSSING: ScriptedCandle[] = [...Array.from({ length: 30 }, () => QUIET), { close: 100.6, volume: 1000 }];
/** One candle later: the crossing candle has closed, a calm one is forming. */
const CROSSED: ScriptedCandle[] = [...CROSSING, { close: 100.7, volume: 1000 }];

const closeCrossesAbove = (value: number) => ({ kind: 'clause' as const, left: { indicator: 'close' as const }, operator: 'crosses-above' as const, right: { indicator: 'number' as const, value } });
const closeAbove = (value: number, timeframe?: '1h') => ({
  kind: 'clause' as const,
  left: { indicator: 'close' as const, ...(timeframe ? { timeframe } : {}) },
  operator: 'above' as const,
  right: { indicator: 'number' as const, value },
});

function condition(clauses: TCondition['when']['clauses'], trigger: TTrigger, name?: string): TCondition {
  return { id: randomUUID(), ...(name ? { name } : {}), when: { kind: 'group', join: 'all', clauses }, trigger };
}

function monitor(watchlist: TWatchedMarket[], conditions: TCondition[], notifications: Partial<TAgentConfig['notifications']> = {}, timeframe = '1min'): TAgentConfig {
  const defaults = defaultAgentConfig(findTemplate('custom-monitor')!);
  return {
    ...defaults,
    parameters: { timeframe },
    notifications: { email: false, inApp: true, thresholds: [], ...notifications },
    watchlist,
    conditions,
  };
}

const outcomesOf = (run: TAgentRun, market: number): TConditionOutcome[] => {
  const result = run.result!.markets[market] as TMarketResult & { ok: true };
  if (!result.ok) throw new Error(`market ${market} failed: ${JSON.stringify(result)}`);
  return result.conditions!;
};

/** Issue 30 items 2 and 3: a Custom Monitor's conditions live, per market, with their triggers and notifications. */
describe('conditions in live runs', () => {
  let exchanges: FakeExchanges;
  let yahoo: FakeYahoo;
  let smtp: SmtpCatcher;
  let receivers: ChannelReceivers;
  let t: TestApp;
  let workers: Workers;
  let cookie: string;

  beforeAll(async () => {
    // The fakes' candles follow the app's clock, which moves a minute between runs: each run
    // reads candles of its own minute (the candle cache shares a minute's).
    const clock = () => (t ? t.now().getTime() : Date.now());
    [exchanges, yahoo, smtp, receivers] = await Promise.all([startFakeExchanges({ now: clock }), startFakeYahoo({ now: clock }), startSmtpCatcher(), startChannelReceivers()]);
    t = await createTestApp({
      env: {
        ...exchanges.env,
        ...yahoo.env,
        SMTP_URL: smtp.url,
        ADMIN_EMAILS: OWNER,
        MARKET_DATA: 'live',
        DISPATCH_INTERVAL_MS: '50',
        DISPATCH_LOOKAHEAD_MS: '0',
        OUTBOUND_ALLOW_LOOPBACK: 'true',
        OUTBOUND_CA_FILE: receivers.caFile,
      },
    });
    workers = await startTestWorkers(t, { notifications: t.app.notifications, channels: t.app.channels });
    cookie = await t.signIn(OWNER, 'Owner');
  });
  afterEach(() => {
    exchanges.setSeries('BTC', null);
    smtp.reset();
  });
  afterAll(async () => {
    await workers?.stop();
    await t?.close();
    await Promise.all([exchanges?.close(), yahoo?.close(), smtp?.close(), receivers?.close()]);
  });

  async function create(config: TAgentConfig): Promise<TAgent> {
    const res = await t.request({ method: 'POST', url: '/api/agents', cookie, payload: { templateId: 'custom-monitor', name: 'Watch', config } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<TAgent>();
  }

  /** Runs the agent now, a minute after the previous run, and answers the finished run. */
  async function runOnce(agentId: string): Promise<TAgentRun> {
    t.advanceTime(60_000);
    // The run decides which candle is forming at the app's clock and the fake serves the series
    // counted back from its current candle at its own reading of it: a minute turning over
    // between the two (a busy machine) would shift the series by a candle. Each run starts in
    // the first half of its minute, far from the next.
    const intoMinute = t.now().getTime() % 60_000;
    if (intoMinute > 30_000) t.advanceTime(60_000 - intoMinute + 1_000);
    const { runId } = (await t.request({ method: 'POST', url: `/api/agents/${agentId}/run`, cookie })).json<{ runId: number }>();
    const runs = await until(
      async () => (await t.request({ url: `/api/agents/${agentId}/runs`, cookie })).json<TAgentRun[]>(),
      (list) => list.some((r) => r.id === runId && (r.status === 'success' || r.status === 'failure')),
      20_000,
    );
    const run = runs.find((r) => r.id === runId)!;
    expect(run.status, run.error ?? '').toBe('success');
    return run;
  }

  const notificationsOf = async (agentId: string) =>
    (await t.request({ url: '/api/notifications?limit=100', cookie })).json<TNotificationList>().notifications.filter((n) => n.agentId === agentId);

  it('watches a mixed watchlist on two timeframes: outcomes per market, and the met one told in plain words in the bell, the email and the webhook', async () => {
    exchanges.setSeries('BTC', CROSSING);
    const hook = (await t.request({ method: 'POST', url: '/api/channels', cookie, payload: { kind: 'webhook', name: 'Hook', url: `${receivers.origin}/webhook/conditions` } })).json<TChannel & { signingSecret: string }>();
    receivers.setWebhookSecret('conditions', hook.signingSecret);
    const breakout = condition([closeCrossesAbove(100.5), closeAbove(50, '1h')], { mode: 'once-per-candle' });
    // Five-minute candles: Yahoo serves one-minute ones for 7 days at a time, too few over a weekend.
    const agent = await create(monitor([{ kind: 'stock', symbol: 'AAPL' }, BTC_MARKET], [breakout], { email: true, channels: [hook.id] }, '5min'));

    const run = await runOnce(agent.id);
    // No fixed signals: a Custom Monitor's result lists no template rules.
    expect(run.result!.markets.map((m) => (m.ok ? m.rules : m.error))).toEqual([[], []]);
    const [aapl] = outcomesOf(run, 0);
    const [btc] = outcomesOf(run, 1);
    // AAPL trades near 190: it never crossed 100.5 on this candle.
    expect(aapl).toMatchObject({ id: breakout.id, status: 'evaluated', met: false, delivery: null });
    expect(btc).toMatchObject({ id: breakout.id, status: 'evaluated', met: true, delivery: 'notified', text: 'close on 5 minutes crosses above 100.5 and close on 1 hour is above 50' });
    // Per clause, both sides at the deciding candle and the one before (the crossing's 100 -> 100.6).
    expect(btc!.clauses[0]).toMatchObject({ path: '0', met: true, sides: [{ label: 'close', at: 100.6, before: 100 }, { label: '100.5' }] });
    expect(btc!.clauses[1]).toMatchObject({ path: '1', met: true });

    const [notification] = await until(
      () => notificationsOf(agent.id),
      (list) => list.length > 0,
    );
    expect(notification!.conditions).toEqual([
      { conditionId: breakout.id, market: BTC, title: 'close on 5 minutes crosses above 100.5 and close on 1 hour is above 50', text: expect.stringMatching(/^BTC\/USDT on binance: close on 5 minutes crossed above 100\.5 \(100\.6, before 100\) and close on 1 hour is above 50 \(100(\.6)?\)$/) },
    ]);
    const text = notification!.conditions[0]!.text;
    expect(notification!.message).toBe(text);
    expect(notification!.title).toBe('Watch: close on 5 minutes crosses above 100.5 and close on 1 hour is above 50 on BTC/USDT on binance');

    const [email] = await smtp.waitForMessages(1, 15_000);
    expect(email!.text).toContain(text);
    const receipt = await until(
      async () => receivers.receipts.find((r) => r.name === 'conditions'),
      (r) => r !== undefined,
      15_000,
    );
    expect(receipt!.verdict).toBe('signed');
    expect((receipt!.body as { version: number; notification: { conditions: unknown } }).version).toBe(1);
    expect((receipt!.body as { notification: { conditions: unknown } }).notification.conditions).toEqual(notification!.conditions);
  }, 60_000);

  it("'only once' notifies, then disarms and says so in the run, until re-armed", async () => {
    const once = condition([closeAbove(50)], { mode: 'once' });
    const agent = await create(monitor([BTC_MARKET], [once]));
    expect(outcomesOf(await runOnce(agent.id), 0)[0]).toMatchObject({ status: 'evaluated', met: true, delivery: 'notified' });
    expect(outcomesOf(await runOnce(agent.id), 0)[0]).toMatchObject({ status: 'disarmed', met: false, delivery: null, clauses: [] });
    expect(await notificationsOf(agent.id)).toHaveLength(1);
    const states = (await t.request({ url: `/api/agents/${agent.id}/conditions/state`, cookie })).json<TConditionState[]>();
    expect(states).toEqual([{ conditionId: once.id, disarmed: true, snoozedUntil: null, lastNotifiedAt: expect.any(String) }]);

    expect((await t.request({ method: 'POST', url: `/api/agents/${agent.id}/conditions/${once.id}/rearm`, cookie })).json<TConditionState>()).toMatchObject({ disarmed: false });
    expect(outcomesOf(await runOnce(agent.id), 0)[0]).toMatchObject({ status: 'evaluated', met: true, delivery: 'notified' });
    await until(
      () => notificationsOf(agent.id),
      (list) => list.length === 2,
    );
  }, 60_000);

  it("'once per candle close' decides on the latest closed candle: the crossing counts once its candle has closed", async () => {
    exchanges.setSeries('BTC', CROSSING);
    const onClose = condition([closeCrossesAbove(100.5)], { mode: 'once-per-close' });
    const agent = await create(monitor([BTC_MARKET], [onClose]));
    const forming = await runOnce(agent.id);
    const [waiting] = outcomesOf(forming, 0);
    const market = forming.result!.markets[0] as TMarketResult & { ok: true };
    // Decided on the candle before the forming one (100 after 100): not crossed yet.
    expect(waiting).toMatchObject({ status: 'evaluated', met: false, delivery: null });
    expect(Date.parse(waiting!.candleTime!)).toBe(Date.parse(market.candleTime) - 60_000);

    exchanges.setSeries('BTC', CROSSED);
    const [closed] = outcomesOf(await runOnce(agent.id), 0);
    expect(closed).toMatchObject({ status: 'evaluated', met: true, delivery: 'notified' });
    expect(closed!.clauses[0]!.sides[0]).toMatchObject({ at: 100.6, before: 100 });
  }, 60_000);

  it('a cooldown keeps a met condition quiet, recorded as such', async () => {
    const cooled = condition([closeAbove(50)], { mode: 'once-per-candle', cooldownMinutes: 60 });
    const agent = await create(monitor([BTC_MARKET], [cooled]));
    expect(outcomesOf(await runOnce(agent.id), 0)[0]).toMatchObject({ met: true, delivery: 'notified' });
    expect(outcomesOf(await runOnce(agent.id), 0)[0]).toMatchObject({ met: true, delivery: 'cooldown' });
    expect(await notificationsOf(agent.id)).toHaveLength(1);
  }, 60_000);

  it('an expired condition shows expired and is not evaluated', async () => {
    const expired = condition([closeAbove(50)], { mode: 'once-per-candle', expiresAt: new Date(Date.now() - 60_000).toISOString() });
    const agent = await create(monitor([BTC_MARKET], [expired]));
    expect(outcomesOf(await runOnce(agent.id), 0)).toEqual([
      { id: expired.id, title: 'close on 1 minute is above 50', text: 'close on 1 minute is above 50', status: 'expired', met: false, candleTime: null, delivery: null, clauses: [] },
    ]);
    expect(await notificationsOf(agent.id)).toHaveLength(0);
  }, 60_000);

  it('a snoozed condition is recorded as snoozed and not notified; unsnoozed, it speaks again', async () => {
    const snoozed = condition([closeAbove(50)], { mode: 'once-per-candle' });
    const agent = await create(monitor([BTC_MARKET], [snoozed]));
    const res = await t.request({ method: 'POST', url: `/api/agents/${agent.id}/conditions/${snoozed.id}/snooze`, cookie, payload: { preset: '4h' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(outcomesOf(await runOnce(agent.id), 0)[0]).toMatchObject({ met: true, delivery: 'snoozed' });
    expect(await notificationsOf(agent.id)).toHaveLength(0);
    expect((await t.request({ method: 'DELETE', url: `/api/agents/${agent.id}/conditions/${snoozed.id}/snooze`, cookie })).json<TConditionState>().snoozedUntil).toBeNull();
    expect(outcomesOf(await runOnce(agent.id), 0)[0]).toMatchObject({ met: true, delivery: 'notified' });
  }, 60_000);

  it("the hourly cap holds a met condition back: recorded as 'held', listed in the cap's notice", async () => {
    const busy = condition([closeAbove(50)], { mode: 'once-per-candle' });
    const agent = await create(monitor([BTC_MARKET], [busy], { maxPerHour: 1 }));
    expect(outcomesOf(await runOnce(agent.id), 0)[0]).toMatchObject({ delivery: 'notified' });
    expect(outcomesOf(await runOnce(agent.id), 0)[0]).toMatchObject({ delivery: 'held' });
    const list = await notificationsOf(agent.id);
    expect(list.map((n) => n.kind).sort()).toEqual(['alert-storm', 'alerts']);
    expect(list.find((n) => n.kind === 'alert-storm')!.conditions).toEqual([expect.objectContaining({ conditionId: busy.id, market: BTC })]);
  }, 60_000);
});
