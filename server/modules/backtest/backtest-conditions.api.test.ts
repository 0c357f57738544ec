import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAgentConfig, findTemplate, type TAgentConfig } from '../../../contracts/agents.ts';
import { ZBacktestEvent, ZBacktestResult, type TBacktestResult } from '../../../contracts/backtest.ts';
import type { TCondition } from '../../../contracts/conditions.ts';
import { startFakeExchanges, type FakeExchanges, type ScriptedCandle } from '../../../tests/fakes/exchanges.ts';
import { startFakeYahoo, type FakeYahoo } from '../../../tests/fakes/yahoo.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';

/**
 * Issue 30 item 6: the owner's conditions on history through the API, one of them on a longer
 * timeframe whose history the test fetches through the same market data as live runs.
 *
 * Hand-worked: the fake exchange serves the script for every candle size, counted back from the
 * current candle: 80 candles closing at 100, then 10 at 110. On 1 minute the last ten minutes are
 * at 110; on 5 minutes the last ten 5-minute candles (the current one forming). With C5 the
 * current 5-minute candle's open, the first 5-minute candle at 110 opens at C5 - 45 min and
 * closes at C5 - 40 min: it counts from the 1-minute candle that closes then, opened at
 * C5 - 41 min, not before (no look-ahead).
 */
const MINUTE = 60_000;
const at = (close: number): ScriptedCandle => ({ close, high: close + 0.5, low: close - 0.5, volume: 1000 });
const SERIES: ScriptedCandle[] = [...Array.from({ length: 80 }, () => at(100)), ...Array.from({ length: 10 }, () => at(110))];

const id = (k: number) => `00000000-0000-4000-8000-00000000000${k}`;
const level = { indicator: 'number', value: 105 } as const;
const CONDITIONS: TCondition[] = [
  { id: id(1), name: 'Breakout', when: { kind: 'group', join: 'all', clauses: [{ kind: 'clause', left: { indicator: 'close' }, operator: 'crosses-above', right: level }] }, trigger: { mode: 'once-per-close' } },
  { id: id(2), when: { kind: 'group', join: 'all', clauses: [{ kind: 'clause', left: { indicator: 'close', timeframe: '5m' }, operator: 'above', right: level }] }, trigger: { mode: 'once' } },
  {
    id: id(3),
    name: 'Five-minute hold',
    when: { kind: 'group', join: 'all', clauses: [{ kind: 'clause', left: { indicator: 'close', timeframe: '5m' }, operator: 'above', right: level }] },
    trigger: { mode: 'once-per-close', cooldownMinutes: 10 },
  },
];

function config(): TAgentConfig {
  const defaults = defaultAgentConfig(findTemplate('crypto-market-monitor')!, 'Europe/Paris');
  return {
    ...defaults,
    notifications: { email: false, inApp: true, thresholds: [], maxPerHour: 1000 },
    parameters: { ...defaults.parameters, token: 'BTC', exchanges: ['Binance'], timeframe: '1min', includeOnChainMetrics: false, walletTracking: false, priceChangeThreshold: 20 },
    conditions: CONDITIONS,
  };
}

function resultOf(body: string): TBacktestResult {
  const last = body
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => ZBacktestEvent.parse(JSON.parse(line)))
    .at(-1);
  if (last?.type !== 'result') throw new Error(`no result: ${body.slice(0, 500)}`);
  return ZBacktestResult.parse(last.result);
}

describe("test on history with the owner's conditions, on two timeframes", () => {
  let exchanges: FakeExchanges;
  let yahoo: FakeYahoo;
  let t: TestApp;
  let cookie: string;

  beforeAll(async () => {
    [exchanges, yahoo] = await Promise.all([startFakeExchanges(), startFakeYahoo()]);
    exchanges.setSeries('BTC', SERIES);
    t = await createTestApp({ env: { ...exchanges.env, ...yahoo.env, MARKET_DATA: 'live', ADMIN_EMAILS: 'owner@example.com', BACKTEST_RATE_LIMIT: '100' } });
    cookie = await t.signIn('owner@example.com', 'Owner');
    // Frozen so the current candles stay put while the test runs (see backtest.api.test.ts).
    exchanges.freeze('binance', Date.now());
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([exchanges?.close(), yahoo?.close()]);
  });

  it('counts firings and notifications per trigger, reading the 5-minute candles only once closed', async () => {
    const res = await t.request({ method: 'POST', url: '/api/agents/backtest', cookie, payload: { templateId: 'crypto-market-monitor', config: config(), candles: 60 } });
    expect(res.statusCode, res.body).toBe(200);
    const result = resultOf(res.body);
    const market = result.markets[0]!;
    if (!market.ok) throw new Error(market.error);
    const current = Date.parse(market.to);
    const c5 = Math.floor(current / (5 * MINUTE)) * 5 * MINUTE;
    const minutes = (from: number) => Array.from({ length: (current - from) / MINUTE + 1 }, (_, k) => from + k * MINUTE);

    // The 1-minute crossing: the first candle at 110, nine minutes before the current one.
    const breakout = market.firings.filter((f) => f.key === `condition-${id(1)}`);
    expect(breakout.map((f) => f.time)).toEqual([current - 9 * MINUTE]);
    expect(breakout[0]).toMatchObject({ notified: true, price: 110, detail: 'close crosses above 105: close 110 (before 100)' });

    // The 5-minute close counts from the 1-minute candle on which its candle closed.
    const held = minutes(c5 - 41 * MINUTE);
    const fiveMinute = market.firings.filter((f) => f.key === `condition-${id(2)}`);
    expect(fiveMinute.map((f) => f.time)).toEqual(held);
    expect(fiveMinute.map((f) => f.notified)).toEqual(held.map((_, k) => k === 0));
    expect(market.rows.find((r) => r.key === `condition-${id(2)}`)).toMatchObject({ kind: 'condition', label: 'close on 5 minutes is above 105', fired: held.length, notifications: 1 });

    // A cooldown of 10 minutes, decided at each candle's close: every tenth one notifies.
    const cooled = market.firings.filter((f) => f.key === `condition-${id(3)}`);
    expect(cooled.filter((f) => f.notified).map((f) => f.time)).toEqual(held.filter((_, k) => k % 10 === 0));
    expect(market.rows.find((r) => r.key === `condition-${id(3)}`)).toMatchObject({ label: 'Five-minute hold', fired: held.length, notifications: Math.ceil(held.length / 10) });

    // Markers with the conditions' titles, the summary, and the notifications (one per candle that notified any).
    expect(market.chart.markers.filter((m) => m.rule === 'Breakout').map((m) => m.time)).toEqual([current - 9 * MINUTE]);
    expect(result.summary.find((r) => r.key === `condition-${id(3)}`)).toMatchObject({ fired: held.length });
    const notifiedTimes = new Set(market.firings.filter((f) => f.notified).map((f) => f.time));
    expect(result.notifications.total).toBe(notifiedTimes.size);

    // The 5-minute history came from the exchange, as a live run reads it.
    expect(exchanges.requests('binance').some((r) => r.kind === 'candles' && r.query.interval === '5m')).toBe(true);
  });

  it("a Custom Monitor's watchlist on history: a stock and a pair, each with its own history on both timeframes", async () => {
    const defaults = defaultAgentConfig(findTemplate('custom-monitor')!, 'Europe/Paris');
    const always: TCondition = { id: id(4), when: { kind: 'group', join: 'all', clauses: [{ kind: 'clause', left: { indicator: 'close' }, operator: 'above', right: { indicator: 'number', value: 0 } }] }, trigger: { mode: 'once-per-close' } };
    const daily: TCondition = {
      id: id(5),
      name: 'Off its daily average',
      when: {
        kind: 'group',
        join: 'any',
        clauses: [
          { kind: 'clause', left: { indicator: 'close' }, operator: 'above', right: { indicator: 'sma', period: 2, timeframe: '1d' } },
          { kind: 'clause', left: { indicator: 'close' }, operator: 'below', right: { indicator: 'sma', period: 2, timeframe: '1d' } },
        ],
      },
      trigger: { mode: 'once-per-close', cooldownMinutes: 24 * 60 },
    };
    const monitor: TAgentConfig = {
      ...defaults,
      parameters: { timeframe: '1h' },
      notifications: { email: false, inApp: true, thresholds: [], maxPerHour: 1000 },
      watchlist: [
        { kind: 'stock', symbol: 'AAPL' },
        { kind: 'crypto', symbol: 'ETH/USDT', exchange: 'binance' },
      ],
      conditions: [always, daily],
    };
    const res = await t.request({ method: 'POST', url: '/api/agents/backtest', cookie, payload: { templateId: 'custom-monitor', config: monitor, candles: 100 } });
    expect(res.statusCode, res.body).toBe(200);
    const result = resultOf(res.body);
    expect(result.markets.map((m) => m.label)).toEqual(['AAPL', 'ETH/USDT on binance']);
    for (const market of result.markets) {
      if (!market.ok) throw new Error(`${market.label}: ${market.error}`);
      expect(market.timeframe).toBe('1h');
      // No fixed signals: only the owner's conditions have rows.
      expect(market.rows.map((r) => r.kind)).toEqual(['condition', 'condition']);
      // Close above 0 holds on every candle and notifies every one.
      expect(market.rows[0]).toMatchObject({ key: `condition-${id(4)}`, fired: market.evaluated, notifications: market.evaluated });
      // The daily average is defined from the first candle (its warm-up fetched): met on nearly every
      // candle, notified at most once a day per market.
      const dailyRow = market.rows[1]!;
      expect(dailyRow.label).toBe('Off its daily average');
      expect(dailyRow.fired).toBeGreaterThan(market.evaluated / 2);
      expect(dailyRow.notifications).toBeGreaterThan(0);
      const notified = market.firings.filter((f) => f.key === `condition-${id(5)}` && f.notified).map((f) => f.time);
      for (let k = 1; k < notified.length; k++) expect(notified[k]! - notified[k - 1]!).toBeGreaterThanOrEqual(24 * 60 * MINUTE);
    }
    expect(result.summary.find((r) => r.key === `condition-${id(4)}`)!.fired).toBe(result.markets.reduce((sum, m) => sum + (m.ok ? m.evaluated : 0), 0));
    // Each market's daily history came from its own provider.
    expect(yahoo.requests().some((r) => r.path.includes('AAPL') && r.query.interval === '1d')).toBe(true);
    expect(yahoo.requests().some((r) => r.path.includes('AAPL') && r.query.interval === '60m')).toBe(true);
    expect(exchanges.requests('binance').some((r) => r.query.symbol === 'ETHUSDT' && r.query.interval === '1d')).toBe(true);
  });

  it('refuses a condition the runtime would refuse, before any history is read: a 400 on its clause and field', async () => {
    const before = exchanges.requests('binance').length;
    const shorter: TCondition = { id: id(6), when: { kind: 'group', join: 'all', clauses: [{ kind: 'clause', left: { indicator: 'close', timeframe: '1m' }, operator: 'above', right: level }] }, trigger: { mode: 'once' } };
    const body = config();
    const res = await t.request({ method: 'POST', url: '/api/agents/backtest', cookie, payload: { templateId: 'crypto-market-monitor', config: { ...body, parameters: { ...body.parameters, timeframe: '1h' }, conditions: [shorter] }, candles: 60 } });
    expect(res.statusCode).toBe(400);
    expect(res.json<{ details: Array<{ path: string; message: string }> }>().details).toEqual([
      expect.objectContaining({ path: expect.stringMatching(/conditions\.0\.when\.clauses\.0\.left\.timeframe$/), message: "A timeframe must be the agent's (1 hour) or longer" }),
    ]);
    expect(exchanges.requests('binance').length).toBe(before);
  });
});
