import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TIMEFRAME_MS } from '../../../contracts/market.ts';
import { startFakeExchanges, type FakeExchange, type FakeExchanges } from '../../../tests/fakes/exchanges.ts';
import { startFakeYahoo, type FakeYahoo } from '../../../tests/fakes/yahoo.ts';
import type { MarketConfig } from '../../config.ts';
import { MarketDataError } from '../../integrations/market/candle-source.ts';
import { createMarketData, type MarketData } from './market-data.ts';

// getHistory against the exchange and Yahoo fakes, without a database (no cache): paging with
// each provider's own limits, short histories, failures mid-paging, cancellation, and live runs
// served before a long paging's remaining pages. The cache is history-cache.api.test.ts.

const HOUR = TIMEFRAME_MS['1h'];
const DAY = 86_400_000;
/** A Wednesday afternoon, market open: Yahoo's clock in the Yahoo tests. */
const YAHOO_NOW = new Date('2024-03-06T18:05:00Z');

let exchanges: FakeExchanges;
let yahoo: FakeYahoo;
beforeAll(async () => {
  [exchanges, yahoo] = await Promise.all([startFakeExchanges(), startFakeYahoo({ now: () => YAHOO_NOW.getTime() })]);
});
afterAll(() => Promise.all([exchanges.close(), yahoo.close()]));

const opened: MarketData[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((m) => m.close()));
  exchanges.reset();
  yahoo.reset();
});

/** A fresh MarketData (own ccxt instances: they are cached per timeout). */
let seq = 0;
function marketData(options: { retries?: number; now?: Date; mode?: MarketConfig['mode'] } = {}) {
  const config: MarketConfig = {
    mode: options.mode ?? 'live',
    baseUrls: { ...exchanges.baseUrls, yahoo: yahoo.baseUrl },
    whaleAlert: { apiKey: null, minUsd: 1 },
    timeoutMs: 5_000 + seq++,
    retries: options.retries ?? 1,
  };
  const now = options.now;
  const md = createMarketData(config, { logger: pino({ level: 'silent' }), backoffMs: 5, rateLimitMs: 5, historyRestMs: 5, ...(now ? { now: () => now } : {}) });
  opened.push(md);
  return md;
}

const signal = () => new AbortController().signal;
const candleRequests = (exchange: FakeExchange) => exchanges.requests(exchange).filter((r) => r.kind === 'candles');
const currentHour = () => Math.floor(Date.now() / HOUR) * HOUR;
const hourly = (n: number) => Array.from({ length: n }, (_, i) => currentHour() - (n - 1 - i) * HOUR);

describe('paging each exchange with its own page size', () => {
  it.each([
    ['binance', 'BTC/USDT', 1000, 'limit'],
    ['coinbase', 'BTC/USD', 300, null],
    ['kucoin', 'BTC/USDT', 1500, null],
    ['htx', 'BTC/USDT', 1000, 'size'],
  ] as const)('%s (%s): 2,600 hourly candles in pages of at most %i, oldest first, the last the current one', async (source, symbol, pageMax, limitParam) => {
    const md = marketData();
    const progress: Array<[number, number]> = [];
    const history = await md.getHistory({ source, symbol, timeframe: '1h', candles: 2600 }, { signal: signal(), onProgress: (loaded, total) => progress.push([loaded, total]) });

    expect(history.simulated).toBe(false);
    expect(history.coverage).toEqual({ requested: 2600, received: 2600, cached: 0, short: null });
    expect(history.candles.map((c) => c.time)).toEqual(hourly(2600));
    const pages = candleRequests(source);
    expect(pages).toHaveLength(Math.ceil(2600 / pageMax));
    if (limitParam) for (const page of pages) expect(Number(page.query[limitParam])).toBeLessThanOrEqual(pageMax);
    // Progress after each page, rising to the total.
    expect(progress.length).toBeGreaterThanOrEqual(pages.length);
    expect(progress.at(-1)).toEqual([2600, 2600]);
    expect(progress.every(([loaded], i) => i === 0 || loaded >= progress[i - 1]![0])).toBe(true);
  });

  it('kraken: gives its latest 720 whatever `since` says, and says the provider has no more', async () => {
    const history = await marketData().getHistory({ source: 'kraken', symbol: 'BTC/USD', timeframe: '1h', candles: 1000 }, { signal: signal() });
    expect(history.coverage).toEqual({ requested: 1000, received: 720, cached: 0, short: 'provider-history' });
    expect(history.candles.map((c) => c.time)).toEqual(hourly(720));
    expect(candleRequests('kraken')).toHaveLength(1);
  });

  it('a pair listed after the oldest wanted candle: what it has, short for provider history', async () => {
    exchanges.listSince('binance', currentHour() - 99 * HOUR);
    const history = await marketData().getHistory({ source: 'binance', symbol: 'BTC/USDT', timeframe: '1h', candles: 500 }, { signal: signal() });
    expect(history.coverage).toEqual({ requested: 500, received: 100, cached: 0, short: 'provider-history' });
    expect(history.candles.map((c) => c.time)).toEqual(hourly(100));
  });

  it('merges an exchange’s smaller candles, paging those (Coinbase 4h from 1h)', async () => {
    const history = await marketData().getHistory({ source: 'coinbase', symbol: 'ETH/USD', timeframe: '4h', candles: 200 }, { signal: signal() });
    const FOUR = TIMEFRAME_MS['4h'];
    expect(history.coverage.received).toBe(200);
    expect(history.candles.at(-1)!.time).toBe(Math.floor(Date.now() / FOUR) * FOUR);
    expect(history.candles.every((c, i) => i === 0 || c.time - history.candles[i - 1]!.time === FOUR)).toBe(true);
    expect(candleRequests('coinbase').every((r) => r.query.granularity === '3600' && r.outcome === 200)).toBe(true);
  });
});

describe('failures while paging', () => {
  it('retries a 429 mid-paging and goes on', async () => {
    const md = marketData({ retries: 1 });
    const history = await md.getHistory(
      { source: 'binance', symbol: 'BTC/USDT', timeframe: '1h', candles: 2500 },
      { signal: signal(), onProgress: (loaded) => loaded === 1000 && exchanges.failNext('binance', 1, '429') },
    );
    expect(history.coverage).toEqual({ requested: 2500, received: 2500, cached: 0, short: null });
    expect(candleRequests('binance').map((r) => r.outcome)).toEqual([200, 429, 200, 200]);
  });

  it('keeps what arrived when the 429s outlast the retries, and says it was rate limited', async () => {
    const md = marketData({ retries: 1 });
    const history = await md.getHistory(
      { source: 'binance', symbol: 'BTC/USDT', timeframe: '1h', candles: 2500 },
      { signal: signal(), onProgress: (loaded) => loaded === 1000 && exchanges.setFault('binance', '429') },
    );
    expect(history.coverage).toEqual({ requested: 2500, received: 1000, cached: 0, short: 'rate-limited' });
    // The first page: from the oldest wanted candle on.
    expect(history.candles.map((c) => c.time)).toEqual(hourly(2500).slice(0, 1000));
    expect(candleRequests('binance').map((r) => r.outcome)).toEqual([200, 429, 429]);
  });

  it('rejects as getCandles does when nothing at all could be read', async () => {
    exchanges.setFault('kucoin', '500');
    const err = await marketData({ retries: 1 })
      .getHistory({ source: 'kucoin', symbol: 'BTC/USDT', timeframe: '1h', candles: 100 }, { signal: signal() })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MarketDataError);
    expect(err).toMatchObject({ failure: 'unavailable', source: 'kucoin' });
  });

  it('stops paging when the signal aborts, and rejects as cancelled', async () => {
    const controller = new AbortController();
    const err = await marketData()
      .getHistory({ source: 'binance', symbol: 'BTC/USDT', timeframe: '1h', candles: 4000 }, { signal: controller.signal, onProgress: () => controller.abort() })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MarketDataError);
    expect(err).toMatchObject({ failure: 'cancelled' });
    expect(candleRequests('binance')).toHaveLength(1);
  });
});

describe('live runs first', () => {
  it('serves live candles asked for while a long paging runs before the paging’s remaining pages', async () => {
    const md = marketData();
    const live: Array<Promise<unknown>> = [];
    const history = md.getHistory(
      { source: 'binance', symbol: 'BTC/USDT', timeframe: '1h', candles: 5000 },
      {
        signal: signal(),
        onProgress: (loaded) => {
          if (loaded !== 1000) return;
          live.push(md.getCandles({ source: 'binance', symbol: 'ETH/USDT', timeframe: '1h', limit: 50 }, 't'));
          live.push(md.getCandles({ source: 'binance', symbol: 'SOL/USDT', timeframe: '15m', limit: 50 }, 't'));
          live.push(md.getCandles({ source: 'binance', symbol: 'BTC/USDT', timeframe: '5m', limit: 50 }, 't'));
        },
      },
    );
    expect((await history).coverage.received).toBe(5000);
    await Promise.all(live);
    // In the order the exchange saw them: page 1, the three live requests, then pages 2 to 5. The
    // live three go out together, so the exchange may see them in any order among themselves (a
    // loaded machine delivered BTC's first once).
    const order = candleRequests('binance').map((r) => (r.query.startTime ? 'history' : `live ${r.query.symbol}`));
    expect(order.map((o) => (o.startsWith('live') ? 'live' : o))).toEqual(['history', 'live', 'live', 'live', 'history', 'history', 'history', 'history']);
    expect(order.slice(1, 4).sort()).toEqual(['live BTCUSDT', 'live ETHUSDT', 'live SOLUSDT']);
  });

  it('Yahoo too: a live chart asked for during a 1-minute paging goes before its next window', async () => {
    const md = marketData({ now: YAHOO_NOW });
    let asked = false;
    const live: Array<Promise<unknown>> = [];
    const history = await md.getHistory(
      { source: 'yahoo', symbol: 'AAPL', timeframe: '1m', candles: 5000 },
      {
        signal: signal(),
        onProgress: () => {
          if (asked) return;
          asked = true;
          live.push(md.getCandles({ source: 'yahoo', symbol: 'MSFT', timeframe: '1d', limit: 30 }, 't'));
        },
      },
    );
    await Promise.all(live);
    expect(history.coverage.short).toBeNull();
    const order = yahoo.requests().filter((r) => r.path.startsWith('/v8/finance/chart/')).map((r) => r.path.split('/').at(-1));
    expect(order.length).toBeGreaterThanOrEqual(3);
    expect(order.slice(0, 3)).toEqual(['AAPL', 'MSFT', 'AAPL']);
  });
});

describe('Yahoo’s intraday limits', () => {
  const charts = () => yahoo.requests().filter((r) => r.path.startsWith('/v8/finance/chart/'));

  it('1-minute candles: requests of at most 7 days, all within the last 30 days', async () => {
    const history = await marketData({ now: YAHOO_NOW }).getHistory({ source: 'yahoo', symbol: 'AAPL', timeframe: '1m', candles: 5000 }, { signal: signal() });
    expect(history.coverage).toEqual({ requested: 5000, received: 5000, cached: 0, short: null });
    expect(charts().length).toBeGreaterThan(1);
    for (const r of charts()) {
      expect(r.outcome).toBe(200);
      expect(Number(r.query.period2) - Number(r.query.period1)).toBeLessThanOrEqual(7 * 86_400);
      expect(Number(r.query.period1) * 1000).toBeGreaterThanOrEqual(YAHOO_NOW.getTime() - 30 * DAY);
    }
    expect(history.candles.every((c, i) => i === 0 || c.time > history.candles[i - 1]!.time)).toBe(true);
  });

  it('5-minute candles: what the last 60 days hold, short for provider history, never a refused range', async () => {
    const history = await marketData({ now: YAHOO_NOW }).getHistory({ source: 'yahoo', symbol: 'AAPL', timeframe: '5m', candles: 5000 }, { signal: signal() });
    expect(history.coverage.short).toBe('provider-history');
    expect(history.coverage.received).toBeGreaterThan(2000);
    expect(history.coverage.received).toBeLessThan(5000);
    expect(charts().map((r) => r.outcome)).toEqual([200]);
    expect(history.candles[0]!.time).toBeGreaterThanOrEqual(YAHOO_NOW.getTime() - 60 * DAY);
  });

  it('daily candles far back in one request', async () => {
    const history = await marketData({ now: YAHOO_NOW }).getHistory({ source: 'yahoo', symbol: 'MSFT', timeframe: '1d', candles: 3000 }, { signal: signal() });
    expect(history.coverage).toMatchObject({ received: 3000, short: null });
    expect(charts()).toHaveLength(1);
  });
});

describe('simulated mode', () => {
  it('serves the simulator’s candles, marked simulated, without touching the network', async () => {
    const md = marketData({ mode: 'simulated', now: new Date('2025-06-04T12:34:56Z') });
    const history = await md.getHistory({ source: 'binance', symbol: 'BTC/USDT', timeframe: '1h', candles: 3000 }, { signal: signal() });
    expect(history.simulated).toBe(true);
    expect(history.coverage).toEqual({ requested: 3000, received: 3000, cached: 0, short: null });
    expect(history.candles.at(-1)!.time).toBe(Date.parse('2025-06-04T12:00:00Z'));
    expect(exchanges.requests()).toHaveLength(0);
    expect(yahoo.requests()).toHaveLength(0);
  });
});
