import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAgentConfig, findTemplate, type TAgent, type TAgentConfig, type TAgentRun } from '../../../contracts/agents.ts';
import { ZBacktestEvent, ZBacktestResult, type TBacktestEvent, type TBacktestResult } from '../../../contracts/backtest.ts';
import { startFakeExchanges, type FakeExchanges, type ScriptedCandle } from '../../../tests/fakes/exchanges.ts';
import { createTestApp, TEST_ORIGIN, type TestApp } from '../../test/test-app.ts';
import { startTestWorkers } from '../../test/test-workers.ts';
import { until } from '../../test/until.ts';
import type { Workers } from '../runtime/workers.ts';

const MARKET = 'BTC/USDT on binance';

/**
 * Hand-worked: quiet one-minute candles closing at 100 (and every older one, as the fake repeats
 * the first), then a jump to 106 (+6%), back to 100 (-5.66%), quiet, a drop to 94 (-6%), quiet,
 * and the current candle at 100.8 (+7.2%: the live run's last candle fires too). With a price
 * change alert above 5%: four firings; the first two are one event (the second did not clear
 * it), so three notifications, each on its own candle.
 */
const QUIET: ScriptedCandle = { close: 100, high: 100.5, low: 99.5, volume: 1000 };
const at = (close: number): ScriptedCandle => ({ close, high: close + 0.5, low: close - 0.5, volume: 1000 });
const SERIES: ScriptedCandle[] = [
  ...Array.from({ length: 30 }, () => QUIET),
  at(106),
  at(100),
  ...Array.from({ length: 13 }, () => QUIET),
  at(94),
  ...Array.from({ length: 13 }, () => at(94)),
  at(100.8),
];

function config(priceChangeAlert = 5): TAgentConfig {
  const defaults = defaultAgentConfig(findTemplate('crypto-market-monitor')!, 'Europe/Paris');
  return {
    ...defaults,
    notifications: { email: false, inApp: true, thresholds: [{ type: 'priceChange', value: priceChangeAlert, message: `Price change above ${priceChangeAlert}%` }] },
    parameters: { ...defaults.parameters, token: 'BTC', exchanges: ['Binance'], timeframe: '1min', includeOnChainMetrics: false, walletTracking: false, priceChangeThreshold: 3 },
  };
}

/** The answer's NDJSON lines, each checked against the contract. */
function events(body: string): TBacktestEvent[] {
  return body
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => ZBacktestEvent.parse(JSON.parse(line)));
}

function resultOf(body: string): TBacktestResult {
  const all = events(body);
  const last = all.at(-1);
  if (last?.type !== 'result') throw new Error(`no result: ${body.slice(0, 500)}`);
  // Exactly one terminal event, and it is the last line.
  expect(all.filter((e) => e.type !== 'progress')).toHaveLength(1);
  return ZBacktestResult.parse(last.result);
}

describe('test on history through the API, on a hand-worked series', () => {
  let exchanges: FakeExchanges;
  let t: TestApp;
  let cookie: string;

  beforeAll(async () => {
    exchanges = await startFakeExchanges();
    exchanges.setSeries('BTC', SERIES);
    t = await createTestApp({ env: { ...exchanges.env, MARKET_DATA: 'live', ADMIN_EMAILS: 'owner@example.com,other@example.com', BACKTEST_RATE_LIMIT: '100' } });
    cookie = await t.signIn('owner@example.com', 'Owner');
    // The scripted series ends at the current minute: frozen, it stays on the same candle times
    // however long the tests take, so the cache holds what the exchange serves. Frozen once the
    // app is up: a start slower than a few minutes (a loaded machine) would leave the latest
    // candle stale, and a stale candle is read by no rule, live or on history. The tests below
    // take a few seconds and read the latest candle as the current one: frozen in the last
    // seconds of a minute, they would run into the next one, where it is no longer current, so
    // the freeze waits for the next minute then.
    const leftInMinute = 60_000 - (Date.now() % 60_000);
    if (leftInMinute < 15_000) await new Promise((resolve) => setTimeout(resolve, leftInMinute + 100));
    exchanges.freeze('binance', Date.now());
  });
  afterAll(async () => {
    await t?.close();
    await exchanges?.close();
  });

  it('streams progress then one typed result with the firings and notifications worked out by hand', async () => {
    const res = await t.request({ method: 'POST', url: '/api/agents/backtest', cookie, payload: { templateId: 'crypto-market-monitor', config: config(), candles: 50 } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
    expect(res.headers['cache-control']).toMatch(/no-store/);
    const all = events(res.body);
    expect(all.some((e) => e.type === 'progress' && e.market === MARKET)).toBe(true);
    const result = resultOf(res.body);

    expect(result).toMatchObject({ templateId: 'crypto-market-monitor', candles: 50, simulated: false, timeZone: 'Europe/Paris', channels: { email: false, inApp: true } });
    const market = result.markets[0]!;
    if (!market.ok) throw new Error(market.error);
    expect(market).toMatchObject({ label: MARKET, source: 'binance', timeframe: '1m', evaluated: 50 });
    expect(market.history.received).toBeGreaterThanOrEqual(50);
    const alert = market.rows.find((r) => r.kind === 'alert')!;
    expect(alert).toMatchObject({ key: 'threshold-0', fired: 4, notifications: 3 });
    const alertFirings = market.firings.filter((f) => f.key === 'threshold-0');
    expect(alertFirings.map((f) => f.notified)).toEqual([true, false, true, true]);
    // After one candle: 106 -> 100, 100 -> 100, 94 -> 94; the last firing has no candle after it.
    expect(alertFirings.map((f) => f.forward[0])).toEqual([expect.closeTo(-5.6604, 3), 0, 0, null]);
    expect(alertFirings.map((f) => f.direction)).toEqual(['up', 'down', 'down', 'up']);
    // The template's own price change signal (3%) fires on the same candles; it notifies nobody.
    expect(market.rows.find((r) => r.key === 'Price change')).toMatchObject({ kind: 'signal', fired: 4, notifications: null });
    expect(result.notifications.total).toBe(3);
    expect(result.summary.find((r) => r.key === 'threshold-0')).toMatchObject({ fired: 4, notifications: 3 });
  });

  it('counts follow the configuration as sent, unsaved: a higher alert limit fires less', async () => {
    const res = await t.request({ method: 'POST', url: '/api/agents/backtest', cookie, payload: { templateId: 'crypto-market-monitor', config: config(6.5), candles: 50 } });
    const market = resultOf(res.body).markets[0]!;
    if (!market.ok) throw new Error(market.error);
    // Only the +7.2% of the current candle passes 6.5%.
    expect(market.rows.find((r) => r.key === 'threshold-0')).toMatchObject({ fired: 1, notifications: 1 });
  });

  it("a second test reads the closed candles from the cache instead of the exchange", async () => {
    const body = { templateId: 'crypto-market-monitor', config: config(), candles: 50 };
    const first = resultOf((await t.request({ method: 'POST', url: '/api/agents/backtest', cookie, payload: body })).body);
    const before = exchanges.requests('binance').filter((r) => r.kind === 'candles').length;
    const second = resultOf((await t.request({ method: 'POST', url: '/api/agents/backtest', cookie, payload: body })).body);
    const market = second.markets[0]!;
    if (!market.ok) throw new Error(market.error);
    expect(market.history.cached).toBeGreaterThan(0);
    // At most the still-forming candle's page is fetched again.
    expect(exchanges.requests('binance').filter((r) => r.kind === 'candles').length - before).toBeLessThanOrEqual(1);
    const firstMarket = first.markets[0]!;
    expect(firstMarket.ok && firstMarket.rows).toEqual(market.rows);
  });

  it('compresses the stream when the client accepts gzip', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/api/agents/backtest',
      cookie,
      headers: { 'accept-encoding': 'gzip' },
      payload: { templateId: 'crypto-market-monitor', config: config(), candles: 50 },
    });
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(resultOf(gunzipSync(res.rawPayload).toString('utf8')).markets).toHaveLength(1);
  });

  it("an agent's test uses its saved configuration, or the unsaved one sent in its place; another admin's agent is 404", async () => {
    const created = await t.request({ method: 'POST', url: '/api/agents', cookie, payload: { templateId: 'crypto-market-monitor', name: 'BTC', config: config() } });
    const agent = created.json<TAgent>();
    const saved = resultOf((await t.request({ method: 'POST', url: `/api/agents/${agent.id}/backtest`, cookie, payload: { candles: 50 } })).body);
    expect(saved.summary.find((r) => r.key === 'threshold-0')).toMatchObject({ fired: 4 });
    const edited = resultOf((await t.request({ method: 'POST', url: `/api/agents/${agent.id}/backtest`, cookie, payload: { candles: 50, config: config(6.5) } })).body);
    expect(edited.summary.find((r) => r.key === 'threshold-0')).toMatchObject({ fired: 1 });

    const other = await t.signIn('other@example.com', 'Other');
    const refused = await t.request({ method: 'POST', url: `/api/agents/${agent.id}/backtest`, cookie: other, payload: {} });
    expect(refused.statusCode).toBe(404);
  });
});

/** Issue 16 item 2 end to end: the test's last candle is what the live run records for it. */
describe('the same evaluation as live', () => {
  let exchanges: FakeExchanges;
  let t: TestApp;
  let workers: Workers;

  beforeAll(async () => {
    exchanges = await startFakeExchanges();
    exchanges.setSeries('BTC', SERIES);
    t = await createTestApp({ env: { ...exchanges.env, MARKET_DATA: 'live', DISPATCH_INTERVAL_MS: '50', DISPATCH_LOOKAHEAD_MS: '0' } });
    workers = await startTestWorkers(t);
  });
  afterAll(async () => {
    await workers?.stop();
    await t?.close();
    await exchanges?.close();
  });

  it("records, for the latest candle, the rules and alerts the test lists on that candle, in the same words", async () => {
    const cookie = await t.signIn('trader@example.com', 'Trader');
    const agent = (await t.request({ method: 'POST', url: '/api/agents', cookie, payload: { templateId: 'crypto-market-monitor', name: 'BTC', config: config() } })).json<TAgent>();
    // Both read the same minute's candles: freeze the feed so neither sees a newer one.
    exchanges.freeze('binance', Date.now());
    expect((await t.request({ method: 'POST', url: `/api/agents/${agent.id}/run`, cookie })).statusCode).toBe(202);
    const [run] = await until(
      async () => (await t.request({ url: `/api/agents/${agent.id}/runs`, cookie })).json<TAgentRun[]>(),
      (runs) => runs[0]?.status === 'success' || runs[0]?.status === 'failure',
      15_000,
    );
    const live = run!.result!.markets[0]!;
    if (!live.ok) throw new Error(live.error);
    const tested = resultOf((await t.request({ method: 'POST', url: `/api/agents/${agent.id}/backtest`, cookie, payload: { candles: 50 } })).body).markets[0]!;
    if (!tested.ok) throw new Error(tested.error);

    const lastTime = Date.parse(live.candleTime);
    expect(Date.parse(tested.to)).toBe(lastTime);
    const onLast = tested.firings.filter((f) => f.time === lastTime);
    for (const rule of live.rules) {
      const firing = onLast.find((f) => f.key === rule.name);
      expect(firing?.detail, rule.name).toBe(rule.fired ? rule.detail : undefined);
    }
    expect(onLast.filter((f) => f.key.startsWith('threshold-')).map((f) => f.detail)).toEqual(run!.result!.alerts.map((a) => a.message));
    expect(run!.result!.alerts).toHaveLength(1);
  });
});

describe('test on history refusals', () => {
  let t: TestApp;
  let owner: string;

  beforeAll(async () => {
    t = await createTestApp({ env: { MARKET_DATA: 'simulated', ADMIN_EMAILS: 'owner@example.com', BACKTEST_RATE_LIMIT: '3' } });
    owner = await t.signIn('owner@example.com', 'Owner');
  });
  afterAll(async () => t?.close());

  const stockConfig = (symbols: string): TAgentConfig => {
    const defaults = defaultAgentConfig(findTemplate('stock-market-scanner')!);
    return { ...defaults, parameters: { ...defaults.parameters, symbols } };
  };
  const post = (payload: unknown, cookie = owner) => t.request({ method: 'POST', url: '/api/agents/backtest', cookie, payload: payload as object });

  it('names the field and its rule for bad input, before anything is fetched', async () => {
    const cases: Array<[unknown, string, RegExp]> = [
      [{ templateId: 'stock-market-scanner', config: stockConfig('AAPL'), candles: 10 }, 'candles', /^Candles per market must be at least 50$/],
      [{ templateId: 'stock-market-scanner', config: stockConfig('AAPL'), candles: 5001 }, 'candles', /^Candles per market must be at most 5,000$/],
      [{ templateId: 'stock-market-scanner', config: stockConfig('AAPL'), candles: 1.5 }, 'candles', /^Candles per market must be a whole number$/],
      [{ templateId: 'nope', config: stockConfig('AAPL') }, 'templateId', /^Template 'nope' does not exist/],
      [{ templateId: 'stock-market-scanner', config: { ...stockConfig('AAPL'), parameters: { ...stockConfig('AAPL').parameters, rsiThreshold: 500 } } }, 'parameters.rsiThreshold', /^RSI threshold must be between 0 and 100$/],
      [{ templateId: 'stock-market-scanner', config: stockConfig('!!! ???') }, 'parameters.symbols', /^Symbols name no market/],
      // 11 markets x 5,000 candles is more work than one test may do.
      [
        { templateId: 'stock-market-scanner', config: stockConfig('A B C D E F G H I J K'), candles: 5000 },
        'candles',
        /^Candles per market must be at most 4,545 with 11 markets \(a test reads at most 50,000 candles in all\)$/,
      ],
    ];
    for (const [payload, path, message] of cases) {
      const res = await post(payload);
      expect(res.statusCode, JSON.stringify(payload).slice(0, 120)).toBe(400);
      const detail = res.json<{ details: Array<{ path: string; message: string }> }>().details.find((d) => d.path === path);
      expect(detail?.message, `${path} in ${res.body}`).toMatch(message);
    }
  });

  it('is admin-only, and limited per user per minute with Retry-After', async () => {
    const guest = await t.signIn('guest@example.com', 'Guest');
    expect((await post({ templateId: 'stock-market-scanner', config: stockConfig('AAPL'), candles: 50 }, guest)).statusCode).toBe(403);
    expect((await t.request({ method: 'POST', url: '/api/agents/backtest', payload: {} })).statusCode).toBe(401);

    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await post({ templateId: 'stock-market-scanner', config: stockConfig('AAPL'), candles: 50 })).statusCode);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = await post({ templateId: 'stock-market-scanner', config: stockConfig('AAPL'), candles: 50 });
    expect(limited.headers['retry-after']).toMatch(/^\d+$/);
    expect(limited.json<{ message: string }>().message).toMatch(/3 times a minute/);
  });

  it('marks simulated data as simulated', async () => {
    const t2 = await createTestApp({ env: { MARKET_DATA: 'simulated', ADMIN_EMAILS: 'owner@example.com' } });
    try {
      const cookie = await t2.signIn('owner@example.com', 'Owner');
      const res = await t2.request({ method: 'POST', url: '/api/agents/backtest', cookie, payload: { templateId: 'stock-market-scanner', config: stockConfig('AAPL MSFT') } });
      const result = resultOf(res.body);
      expect(result.simulated).toBe(true);
      expect(result.candles).toBe(500);
      expect(result.markets.map((m) => m.ok && m.simulated)).toEqual([true, true]);
    } finally {
      await t2.close();
    }
  });
});

/** Issue 16 item 4: a test the client left stops loading history and frees its place. */
describe('test on history cancelled when the client goes away', () => {
  let exchanges: FakeExchanges;
  let t: TestApp;

  beforeAll(async () => {
    exchanges = await startFakeExchanges();
    t = await createTestApp({
      // One test at a time, and an exchange wait far longer than the test: only cancelling frees the place.
      env: { ...exchanges.env, MARKET_DATA: 'live', ADMIN_EMAILS: 'owner@example.com', BACKTEST_CONCURRENCY: '1', MARKET_TIMEOUT_MS: '120000', MARKET_RETRIES: '0' },
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await t?.close();
    await exchanges?.close();
  });

  it('aborts the hanging history request, so the next test runs instead of finding the server busy', async () => {
    const cookie = await t.signIn('owner@example.com', 'Owner');
    const payload = { templateId: 'crypto-market-monitor', config: config(), candles: 50 };
    // Markets loaded and history cached first: the next test asks the exchange for newer candles only.
    expect((await t.request({ method: 'POST', url: '/api/agents/backtest', cookie, payload })).statusCode).toBe(200);
    const asked = exchanges.requests('binance').length;
    exchanges.failNext('binance', 1, 'hang');

    const address = t.app.server.address();
    if (!address || typeof address === 'string') throw new Error('not listening');
    const leaving = new AbortController();
    const pending = fetch(`http://127.0.0.1:${address.port}/api/agents/backtest`, {
      method: 'POST',
      signal: leaving.signal,
      headers: { cookie, origin: TEST_ORIGIN, 'content-type': 'application/json' },
      body: JSON.stringify(payload),
    }).then((res) => res.text());
    pending.catch(() => {});
    await until(
      async () => exchanges.requests('binance').slice(asked),
      (requests) => requests.some((r) => r.outcome === 'hang'),
    );
    // Taken: a second test now is turned away.
    expect((await t.request({ method: 'POST', url: '/api/agents/backtest', cookie, payload })).statusCode).toBe(503);
    leaving.abort();

    const next = await until(
      async () => (await t.request({ method: 'POST', url: '/api/agents/backtest', cookie, payload })).statusCode,
      (status) => status === 200,
      10_000,
    );
    expect(next).toBe(200);
  });
});
